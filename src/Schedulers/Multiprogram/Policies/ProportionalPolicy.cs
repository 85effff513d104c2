using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram.Policies;

/// <summary>
/// Static scalability-based partitioning: each program gets cores in proportion to its whole-machine speedup.
/// </summary>
/// <remarks>
/// <para>
/// Algorithm: exact share_i = cores x speedup_i / sum of speedups; round with the largest-remainder method
/// (floor every share, then give the cores left one each to the largest fractional parts; ties to the higher
/// speedup, then the earlier program). When there are at least as many cores as programs, a program whose share
/// rounds to zero then takes one core from the program with the highest cores / share ratio, so every program
/// runs.
/// </para>
/// <para>
/// Example (the thesis's): speedups 23, 13 and 12 on 64 cores give shares 30.67, 17.33 and 16.00, hence 31, 17
/// and 16 cores. Speedups 15.18, 10.43 and 9.71 on 32 cores give 13.75, 9.45 and 8.80, hence 14, 9 and 9.
/// </para>
/// </remarks>
public sealed class ProportionalPolicy : IAllocationPolicy
{
    /// <inheritdoc />
    public string Name => "proportional";

    /// <summary>The exact (unrounded) proportional share of every program, in snapshot order.</summary>
    /// <param name="snapshot">The workload.</param>
    /// <returns>cores x speedup_i / sum of speedups, for each program.</returns>
    public static IReadOnlyList<double> Shares(AllocationSnapshot snapshot)
    {
        ArgumentNullException.ThrowIfNull(snapshot);
        return ProportionalShares.Shares(snapshot);
    }

    /// <inheritdoc />
    public AllocationDecision Allocate(AllocationSnapshot snapshot)
    {
        ArgumentNullException.ThrowIfNull(snapshot);
        var cores = ProportionalShares.Base(snapshot, ProportionalShares.Shares(snapshot));
        return new AllocationDecision(Name, snapshot, cores, usedFastPath: false, "proportional to speedup, largest remainder");
    }

    /// <inheritdoc />
    public bool IsStillValid(AllocationSnapshot current, AllocationDecision previous)
    {
        ArgumentNullException.ThrowIfNull(current);
        ArgumentNullException.ThrowIfNull(previous);
        return ProportionalShares.SameProgramsAndScalability(current, previous.Snapshot);
    }
}
