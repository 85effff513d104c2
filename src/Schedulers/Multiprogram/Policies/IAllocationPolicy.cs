using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram.Policies;

/// <summary>
/// A pure function from a snapshot of the workload to a target allocation (cores per program). Policies know
/// nothing of threads or clocks; the rebalancer calls them and hands the result to the mechanism.
/// </summary>
/// <remarks>
/// Contract for every implementation: with at least one program the allocations sum exactly to
/// <see cref="AllocationSnapshot.CoreCount"/>, none is negative, and when there are at least as many cores as
/// programs every program gets at least one core (so a program momentarily between tasks is never starved until
/// the next decision). With more programs than cores some programs get none. No programs: an empty decision.
/// The same snapshot always gives the same decision (ties are broken by fixed rules, never by chance).
/// </remarks>
public interface IAllocationPolicy
{
    /// <summary>A short name for reports ("equal", "proportional", ...).</summary>
    string Name { get; }

    /// <summary>Computes the target allocation.</summary>
    /// <param name="snapshot">The workload now.</param>
    /// <returns>The decision.</returns>
    AllocationDecision Allocate(AllocationSnapshot snapshot);

    /// <summary>
    /// The cheap (O(m)) check of the rebalancer: whether <see cref="Allocate"/> on <paramref name="current"/> is
    /// certain to return the same allocation as <paramref name="previous"/>, so that the policy run can be skipped.
    /// May answer <see langword="false"/> when unsure; must never answer <see langword="true"/> wrongly.
    /// </summary>
    /// <param name="current">The workload now.</param>
    /// <param name="previous">The last decision this policy made.</param>
    /// <returns><see langword="true"/> when the previous decision still stands.</returns>
    bool IsStillValid(AllocationSnapshot current, AllocationDecision previous);
}
