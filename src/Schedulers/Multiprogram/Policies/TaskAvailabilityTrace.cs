using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram.Policies;

// Diagnostics only (tests and teaching: the rows of the thesis's Figure 5.20); internal because a user of the
// scheduler reads decisions through RebalanceEvent, not the policy's dry run.

/// <summary>A full dry run of <see cref="TaskAvailabilityPolicy"/>.</summary>
/// <param name="Shares">Exact proportional shares.</param>
/// <param name="BaseCores">Rounded proportional allocation.</param>
/// <param name="CappedCores">
/// Base allocation capped at each program's available tasks (at least 1 when cores >= programs); equal to the
/// base when the fast path applied.
/// </param>
/// <param name="Steps">One row per core handed out after capping, plus the row that ends pass 1 when pass 2 runs.</param>
/// <param name="Decision">The final decision.</param>
internal sealed record TaskAvailabilityTrace(
    IReadOnlyList<double> Shares,
    IReadOnlyList<int> BaseCores,
    IReadOnlyList<int> CappedCores,
    IReadOnlyList<RepartitionStep> Steps,
    AllocationDecision Decision);

/// <summary>One row of the task-availability heuristic's dry run (a row of the thesis's Figure 5.20).</summary>
/// <param name="Pass">1 while allocations are capped at available tasks, 2 once no program is eligible under the cap.</param>
/// <param name="Remaining">Cores still to give, before this step's choice.</param>
/// <param name="Cores">Allocation of every program before this step's choice, in snapshot order.</param>
/// <param name="Scores">Score of every program (cores / proportional share) before the choice.</param>
/// <param name="Chosen">
/// Index of the program that gets the next core, or <see langword="null"/> for the row that ends pass 1 because no
/// program may take another core under the cap.
/// </param>
internal sealed record RepartitionStep(int Pass, int Remaining, IReadOnlyList<int> Cores, IReadOnlyList<double> Scores, int? Chosen);
