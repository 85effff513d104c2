using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram.Policies;

/// <summary>A full dry run of <see cref="TaskAvailabilityPolicy"/>, for tests, logs and teaching.</summary>
/// <param name="Shares">Exact proportional shares.</param>
/// <param name="BaseCores">Rounded proportional allocation.</param>
/// <param name="CappedCores">
/// Base allocation capped at each program's available tasks (at least 1 when cores >= programs); equal to the
/// base when the fast path applied.
/// </param>
/// <param name="Steps">One row per core handed out after capping, plus the row that ends pass 1 when pass 2 runs.</param>
/// <param name="Decision">The final decision.</param>
public sealed record TaskAvailabilityTrace(
    IReadOnlyList<double> Shares,
    IReadOnlyList<int> BaseCores,
    IReadOnlyList<int> CappedCores,
    IReadOnlyList<RepartitionStep> Steps,
    AllocationDecision Decision);
