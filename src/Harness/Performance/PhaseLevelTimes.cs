using DivCon.Skeletons;

namespace DivCon.Harness.Performance;

/// <summary>
/// Split, execute and merge time summed over every task at one recursion level, with how many times each phase
/// ran there: the per-level view of the skeleton's <see cref="PhaseAggregator"/>.
/// </summary>
/// <param name="Level">Recursion depth (the root is 0).</param>
/// <param name="Split">Summed split time at this level.</param>
/// <param name="Execute">Summed execute (leaf) time at this level.</param>
/// <param name="Merge">Summed merge time at this level.</param>
/// <param name="SplitCount">Splits at this level.</param>
/// <param name="ExecuteCount">Executes (leaves) at this level.</param>
/// <param name="MergeCount">Merges at this level.</param>
public sealed record PhaseLevelTimes(int Level, TimeSpan Split, TimeSpan Execute, TimeSpan Merge, long SplitCount, long ExecuteCount, long MergeCount)
{
    /// <summary>Phase invocations at this level, all phases together.</summary>
    public long Count => SplitCount + ExecuteCount + MergeCount;

    /// <summary>Time in the user's functions at this level: split + execute + merge.</summary>
    public TimeSpan Total => Split + Execute + Merge;

    /// <summary>Groups an aggregator's snapshot by level, ascending.</summary>
    /// <param name="statistics">The snapshot (<see cref="PhaseAggregator.Snapshot"/>).</param>
    /// <returns>One entry per level that ran any phase.</returns>
    public static IReadOnlyList<PhaseLevelTimes> From(IEnumerable<PhaseLevelStatistics> statistics)
    {
        ArgumentNullException.ThrowIfNull(statistics);
        return statistics.Where(s => s.Count > 0).GroupBy(s => s.Depth).OrderBy(g => g.Key).Select(g =>
        {
            PhaseLevelStatistics? Of(DivideAndConquerPhase phase) => g.SingleOrDefault(s => s.Phase == phase);
            return new PhaseLevelTimes(g.Key,
                Of(DivideAndConquerPhase.Split)?.TotalTime ?? TimeSpan.Zero,
                Of(DivideAndConquerPhase.Execute)?.TotalTime ?? TimeSpan.Zero,
                Of(DivideAndConquerPhase.Merge)?.TotalTime ?? TimeSpan.Zero,
                Of(DivideAndConquerPhase.Split)?.Count ?? 0,
                Of(DivideAndConquerPhase.Execute)?.Count ?? 0,
                Of(DivideAndConquerPhase.Merge)?.Count ?? 0);
        }).ToArray();
    }

    /// <summary>
    /// The per-level mean over several runs: times and counts summed and divided by the number of runs (a level
    /// missing from a run counts as zero there; counts are rounded down).
    /// </summary>
    /// <param name="runs">At least one run's levels.</param>
    /// <returns>The mean levels, ascending.</returns>
    public static IReadOnlyList<PhaseLevelTimes> Mean(IReadOnlyList<IReadOnlyList<PhaseLevelTimes>> runs)
    {
        ArgumentNullException.ThrowIfNull(runs);
        ArgumentOutOfRangeException.ThrowIfZero(runs.Count);
        int n = runs.Count;
        return runs.SelectMany(r => r).GroupBy(l => l.Level).OrderBy(g => g.Key).Select(g => new PhaseLevelTimes(g.Key,
            Sum(g, l => l.Split) / n, Sum(g, l => l.Execute) / n, Sum(g, l => l.Merge) / n,
            g.Sum(l => l.SplitCount) / n, g.Sum(l => l.ExecuteCount) / n, g.Sum(l => l.MergeCount) / n)).ToArray();

        static TimeSpan Sum(IEnumerable<PhaseLevelTimes> levels, Func<PhaseLevelTimes, TimeSpan> select) =>
            levels.Aggregate(TimeSpan.Zero, (sum, l) => sum + select(l));
    }
}
