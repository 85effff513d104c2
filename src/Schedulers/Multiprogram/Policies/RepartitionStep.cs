using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram.Policies;

/// <summary>One row of the task-availability heuristic's dry run (a row of the thesis's Figure 5.20).</summary>
/// <param name="Pass">1 while allocations are capped at available tasks, 2 once no program is eligible under the cap.</param>
/// <param name="Remaining">Cores still to give, before this step's choice.</param>
/// <param name="Cores">Allocation of every program before this step's choice, in snapshot order.</param>
/// <param name="Scores">Score of every program (cores / proportional share) before the choice.</param>
/// <param name="Chosen">
/// Index of the program that gets the next core, or <see langword="null"/> for the row that ends pass 1 because no
/// program may take another core under the cap.
/// </param>
public sealed record RepartitionStep(int Pass, int Remaining, IReadOnlyList<int> Cores, IReadOnlyList<double> Scores, int? Chosen);
