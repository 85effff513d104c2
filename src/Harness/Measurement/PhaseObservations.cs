using DivCon.Skeletons;
using DivCon.Skeletons.Tracing;

namespace DivCon.Harness.Measurement;

/// <summary>
/// What one observed run of a program on <paramref name="Workers"/> workers showed: its wall-clock time, the CPU
/// time the process consumed meanwhile, and the skeleton's per-level phase times.
/// </summary>
/// <param name="Workers">Workers of the scheduler the run used (P).</param>
/// <param name="Elapsed">Wall-clock time of the run (T_P).</param>
/// <param name="CpuTime">Process CPU time (user + kernel, all threads) consumed during the run.</param>
/// <param name="Levels">Phase times per recursion level.</param>
public sealed record RunObservation(int Workers, TimeSpan Elapsed, TimeSpan CpuTime, IReadOnlyList<PhaseLevelTimes> Levels)
{
    /// <summary>Time in the user's split, execute and merge functions, summed over all tasks.</summary>
    public TimeSpan Work => Levels.Aggregate(TimeSpan.Zero, (sum, l) => sum + l.Total);

    /// <summary>
    /// Runs <paramref name="run"/> once with a fresh <see cref="TaskTreeRecorder"/>, timing it on
    /// <paramref name="time"/> and reading the process's CPU time before and after; the levels count every phase's
    /// own work (<see cref="PhaseLevelTimes.From(TaskTree)"/>).
    /// </summary>
    /// <param name="workers">Workers of the scheduler <paramref name="run"/> uses (≥ 1).</param>
    /// <param name="run">Runs the program once, reporting its phases to the given observer.</param>
    /// <param name="time">The clock.</param>
    /// <param name="cancellationToken">Cancels the run.</param>
    /// <returns>The observation. A run shorter than the clock's resolution counts as one tick.</returns>
    /// <remarks>
    /// The CPU time is the whole process's: on an otherwise idle process (the harness waits while the program runs)
    /// it is the workers' busy time, user code and scheduling alike. Its resolution is the OS's accounting tick.
    /// </remarks>
    public static async Task<RunObservation> ObserveAsync(
        int workers, Func<IDivideAndConquerObserver, CancellationToken, Task> run, TimeProvider time, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(workers, 1);
        ArgumentNullException.ThrowIfNull(run);
        ArgumentNullException.ThrowIfNull(time);
        // The recorder, not a phase aggregator: an asynchronous split or merge that awaits nested runs (a partition or
        // merge cut into blocks) is timed from its call to its completion, and on a busy worker that wall time also
        // covers other tasks the worker ran meanwhile; the recorder subtracts the nested runs' spans from the host
        // phase and records the nested runs' own phases instead, so every piece of work is counted once.
        var recorder = new TaskTreeRecorder();
        TimeSpan cpuBefore = Environment.CpuUsage.TotalTime;
        long start = time.GetTimestamp();
        await run(recorder, cancellationToken).ConfigureAwait(false);
        TimeSpan elapsed = time.GetElapsedTime(start);
        TimeSpan cpu = Environment.CpuUsage.TotalTime - cpuBefore;
        return new RunObservation(workers, elapsed > TimeSpan.Zero ? elapsed : TimeSpan.FromTicks(1),
            cpu > TimeSpan.Zero ? cpu : TimeSpan.Zero, recorder.Count == 0 ? [] : PhaseLevelTimes.From(recorder.ToTree()));
    }

    /// <summary>The mean of several observations of the same program on the same worker count.</summary>
    /// <param name="runs">At least one observation, all with the same <see cref="Workers"/>.</param>
    /// <returns>Mean elapsed and CPU time, mean levels.</returns>
    public static RunObservation Mean(IReadOnlyList<RunObservation> runs)
    {
        ArgumentNullException.ThrowIfNull(runs);
        ArgumentOutOfRangeException.ThrowIfZero(runs.Count);
        if (runs.Any(r => r.Workers != runs[0].Workers))
        {
            throw new ArgumentException("Observations on different worker counts cannot be averaged.", nameof(runs));
        }

        return new RunObservation(runs[0].Workers,
            TimeSpan.FromTicks((long)runs.Average(r => r.Elapsed.Ticks)),
            TimeSpan.FromTicks((long)runs.Average(r => r.CpuTime.Ticks)),
            PhaseLevelTimes.Mean(runs.Select(r => r.Levels).ToArray()));
    }
}

/// <summary>
/// Split, execute and merge time summed over every task at one recursion level, with how many times each phase
/// ran there: the per-level view of a recorded run (or of the skeleton's <see cref="PhaseAggregator"/>).
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
    /// The per-level own work of a recorded run: each node's split, execute and merge at its depth, a host phase
    /// counting only its own work (the recorder already took its nested runs' spans out of it), plus, at the host's
    /// level and phase, the work of the runs nested in it (their phases' own work, summed, not their wall span).
    /// </summary>
    /// <param name="tree">The recorded tree (<see cref="TaskTreeRecorder.ToTree"/>).</param>
    /// <returns>One entry per level, ascending; the levels' total is <see cref="TaskTree.TotalWork"/>.</returns>
    public static IReadOnlyList<PhaseLevelTimes> From(TaskTree tree)
    {
        ArgumentNullException.ThrowIfNull(tree);
        var split = new Dictionary<int, (long Ns, long Count)>();
        var execute = new Dictionary<int, (long Ns, long Count)>();
        var merge = new Dictionary<int, (long Ns, long Count)>();
        static void Add(Dictionary<int, (long Ns, long Count)> sums, int depth, long ns, long count)
        {
            (long n, long c) = sums.GetValueOrDefault(depth);
            sums[depth] = (n + ns, c + count);
        }

        foreach (TaskTreeNode node in tree.Nodes)
        {
            if (node.IsLeaf)
            {
                Add(execute, node.Depth, node.Work, 1);
            }
            else
            {
                Add(split, node.Depth, node.Work, 1);
                Add(merge, node.Depth, node.MergeWork, 1);
            }
        }

        foreach (TaskTreeNestedRun nested in tree.NestedRuns)
        {
            Add(nested.Phase == DivideAndConquerPhase.Merge ? merge : split, tree.Nodes[nested.Node].Depth, nested.Tree.TotalWork, 0);
        }

        static TimeSpan Time(long ns) => TimeSpan.FromTicks(ns / 100);
        return split.Keys.Union(execute.Keys).Union(merge.Keys).Order().Select(depth => new PhaseLevelTimes(depth,
            Time(split.GetValueOrDefault(depth).Ns), Time(execute.GetValueOrDefault(depth).Ns), Time(merge.GetValueOrDefault(depth).Ns),
            split.GetValueOrDefault(depth).Count, execute.GetValueOrDefault(depth).Count, merge.GetValueOrDefault(depth).Count)).ToArray();
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
