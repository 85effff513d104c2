namespace DivCon.Harness.Performance;

/// <summary>
/// The component model of parallel execution time: P·T_P = Σ work + Σ overhead + Σ idle, with work further
/// split into the sequential work and work-time inflation, and the ideal bound max(T_S/P, T_∞).
/// </summary>
/// <remarks>
/// <para>
/// Idea: a run that falls short of linear speedup lost its thread time somewhere. Idle time says the
/// scheduler had too little parallelism to hand out (or failed to find it); overhead time says scheduling
/// itself cost too much; inflation (Σ work − T_S) says the same instructions ran slower in parallel, usually
/// from memory effects (caches shared or lost by stealing, remote NUMA memory, bandwidth). With inflation
/// ratio r the speedup can never exceed P / r.
/// </para>
/// <para>
/// Work inflation can also be computed from a skeleton's phase profile alone:
/// <see cref="WorkInflation"/> takes the sum of the execute-phase times of all leaves in the parallel run
/// and the time of the same execute work sequentially.
/// </para>
/// </remarks>
public static class PerformanceModel
{
    /// <summary>Breaks one run's thread time down.</summary>
    /// <param name="workers">Per-worker times (at least one worker; no negative times).</param>
    /// <param name="elapsed">T_P, wall-clock time of the run (positive).</param>
    /// <param name="sequentialWork">T_S, the time of the same work sequentially (positive).</param>
    /// <param name="criticalPath">T_∞ if known (non-negative), else null (taken as zero: the bound is T_S/P).</param>
    /// <returns>The breakdown.</returns>
    /// <exception cref="ArgumentException">No workers or a negative worker time.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A time argument is out of range.</exception>
    public static PerformanceBreakdown Analyze(IReadOnlyList<WorkerTimes> workers, TimeSpan elapsed, TimeSpan sequentialWork, TimeSpan? criticalPath = null)
    {
        ArgumentNullException.ThrowIfNull(workers);
        if (workers.Count == 0)
        {
            throw new ArgumentException("At least one worker is needed.", nameof(workers));
        }

        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(elapsed, TimeSpan.Zero);
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(sequentialWork, TimeSpan.Zero);
        if (criticalPath is { } span)
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(span, TimeSpan.Zero, nameof(criticalPath));
        }

        TimeSpan work = TimeSpan.Zero, overhead = TimeSpan.Zero, idle = TimeSpan.Zero;
        foreach (WorkerTimes worker in workers)
        {
            ArgumentNullException.ThrowIfNull(worker, nameof(workers));
            if (worker.Work < TimeSpan.Zero || worker.Overhead < TimeSpan.Zero || worker.Idle < TimeSpan.Zero)
            {
                throw new ArgumentException($"Worker {worker.Worker} has a negative time: {worker}.", nameof(workers));
            }

            work += worker.Work;
            overhead += worker.Overhead;
            idle += worker.Idle;
        }

        return new PerformanceBreakdown(workers.Count, elapsed, work, overhead, idle, sequentialWork, criticalPath ?? TimeSpan.Zero);
    }

    /// <summary>
    /// Work-time inflation from phase timings: the sum of execute-phase times over all leaves of the parallel
    /// run minus the execute time of the sequential run (positive: the work ran slower in parallel).
    /// </summary>
    /// <param name="parallelExecuteSum">Σ execute-phase time over the parallel run's leaves (non-negative).</param>
    /// <param name="sequentialExecute">Execute time of the sequential run (positive).</param>
    /// <returns>The inflation.</returns>
    /// <exception cref="ArgumentOutOfRangeException">A time is out of range.</exception>
    public static TimeSpan WorkInflation(TimeSpan parallelExecuteSum, TimeSpan sequentialExecute)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(parallelExecuteSum, TimeSpan.Zero);
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(sequentialExecute, TimeSpan.Zero);
        return parallelExecuteSum - sequentialExecute;
    }
}
