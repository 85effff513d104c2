using System.Globalization;

namespace DivCon.Harness.Measurement;
/// <summary>
/// Where a parallel run's time went (work / overhead / idle), how much the work itself grew with the worker
/// count (work-time inflation), and how T_P compares with the ideal bound max(T_1/P, T_∞).
/// </summary>
/// <remarks>
/// <para>The P workers offer P·T_P of thread time. <b>Work</b> is the time spent in the user's split, execute and
/// merge functions (the skeleton's phase observer, summed over all tasks). <b>Overhead</b> is the rest of the CPU
/// time the process used: scheduling, task creation, stealing, spinning before parking, garbage collection.
/// <b>Idle</b> is thread time that used no CPU: parked workers, or workers the OS did not run. Because the CPU time
/// and the phase times come from different clocks, a remainder is kept as <b>unaccounted</b> (negative when more
/// CPU was used than P·T_P, e.g. by threads other than the workers).</para>
/// <para><b>Work-time inflation</b> compares the work on P workers with the work of the same program on one
/// worker: r = W_P / W_1. Above 1, the same computation took longer in parallel (memory bandwidth, caches,
/// hyper-threads sharing a core), which caps the speedup at P / r whatever the scheduler does.</para>
/// <para>The <b>span</b> T_∞ is estimated from the one-worker phase profile: for each level where leaves
/// execute, the mean split and merge of every level above it plus the mean leaf at that level; the span is the
/// largest such path. It assumes a balanced tree (tasks of one level alike), so it is a lower estimate for
/// unbalanced ones (quicksort on skewed pivots).</para>
/// </remarks>
public static class PerformanceModel
{
    /// <summary>Analyses a run on P workers against the same program on one worker.</summary>
    /// <param name="run">The run on P workers (means over repetitions, see <see cref="RunObservation.Mean"/>).</param>
    /// <param name="oneWorker">The run on one worker: T_1, W_1 and the span come from it.</param>
    /// <returns>The breakdown.</returns>
    public static PerformanceBreakdown Analyze(RunObservation run, RunObservation oneWorker)
    {
        ArgumentNullException.ThrowIfNull(run);
        ArgumentNullException.ThrowIfNull(oneWorker);
        if (oneWorker.Workers != 1)
        {
            throw new ArgumentException($"The baseline must be a one-worker run, not {oneWorker.Workers} workers.", nameof(oneWorker));
        }

        return Analyze(run.Workers, run.Elapsed, run.Work, run.CpuTime, oneWorker.Elapsed, oneWorker.Work, Span(oneWorker.Levels));
    }

    /// <summary>Analyses plain numbers (see the remarks of <see cref="PerformanceModel"/>).</summary>
    /// <param name="workers">P (≥ 1).</param>
    /// <param name="elapsed">T_P (&gt; 0).</param>
    /// <param name="work">W_P: time in the user's functions, summed over tasks (≥ 0).</param>
    /// <param name="cpuTime">CPU time used during the run (≥ 0).</param>
    /// <param name="oneWorkerElapsed">T_1 (&gt; 0).</param>
    /// <param name="oneWorkerWork">W_1 (&gt; 0).</param>
    /// <param name="span">T_∞ (≥ 0).</param>
    /// <returns>The breakdown.</returns>
    /// <exception cref="ArgumentOutOfRangeException">A value out of its range.</exception>
    public static PerformanceBreakdown Analyze(
        int workers, TimeSpan elapsed, TimeSpan work, TimeSpan cpuTime, TimeSpan oneWorkerElapsed, TimeSpan oneWorkerWork, TimeSpan span)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(workers, 1);
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(elapsed, TimeSpan.Zero);
        ArgumentOutOfRangeException.ThrowIfLessThan(work, TimeSpan.Zero);
        ArgumentOutOfRangeException.ThrowIfLessThan(cpuTime, TimeSpan.Zero);
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(oneWorkerElapsed, TimeSpan.Zero);
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(oneWorkerWork, TimeSpan.Zero);
        ArgumentOutOfRangeException.ThrowIfLessThan(span, TimeSpan.Zero);
        TimeSpan threadTime = elapsed * workers;
        TimeSpan overhead = cpuTime > work ? cpuTime - work : TimeSpan.Zero;
        TimeSpan busy = cpuTime > work ? cpuTime : work;
        TimeSpan idle = threadTime > busy ? threadTime - busy : TimeSpan.Zero;
        return new PerformanceBreakdown(workers, elapsed, work, overhead, idle, oneWorkerElapsed, oneWorkerWork, span);
    }

    /// <summary>
    /// The span (critical path) of a balanced D&amp;C tree from its phase profile: the longest root-to-leaf path,
    /// each level contributing its mean split and merge, the leaf level its mean execute.
    /// </summary>
    /// <param name="levels">Per-level times and counts.</param>
    /// <returns>T_∞; zero when no leaf executed.</returns>
    public static TimeSpan Span(IReadOnlyList<PhaseLevelTimes> levels)
    {
        ArgumentNullException.ThrowIfNull(levels);
        TimeSpan above = TimeSpan.Zero, longest = TimeSpan.Zero;
        foreach (PhaseLevelTimes level in levels.OrderBy(l => l.Level))
        {
            if (level.ExecuteCount > 0)
            {
                TimeSpan path = above + (level.Execute / level.ExecuteCount);
                longest = path > longest ? path : longest;
            }

            // Every deeper leaf waits for one split of this level before it starts and one merge after it ends.
            above += (level.SplitCount > 0 ? level.Split / level.SplitCount : TimeSpan.Zero)
                   + (level.MergeCount > 0 ? level.Merge / level.MergeCount : TimeSpan.Zero);
        }

        return longest;
    }
}

/// <summary>The performance model's view of one run on <see cref="Workers"/> workers.</summary>
/// <param name="Workers">P.</param>
/// <param name="Elapsed">T_P.</param>
/// <param name="Work">W_P: time in the user's functions, summed over tasks.</param>
/// <param name="Overhead">CPU time beyond the work.</param>
/// <param name="Idle">Thread time that used no CPU.</param>
/// <param name="OneWorkerElapsed">T_1.</param>
/// <param name="OneWorkerWork">W_1.</param>
/// <param name="Span">T_∞ (zero when unknown).</param>
public sealed record PerformanceBreakdown(
    int Workers, TimeSpan Elapsed, TimeSpan Work, TimeSpan Overhead, TimeSpan Idle, TimeSpan OneWorkerElapsed, TimeSpan OneWorkerWork, TimeSpan Span)
{
    /// <summary>P·T_P.</summary>
    public TimeSpan ThreadTime => Elapsed * Workers;

    /// <summary>Thread time neither work, overhead nor idle (negative when the CPU time exceeded P·T_P).</summary>
    public TimeSpan Unaccounted => ThreadTime - Work - Overhead - Idle;

    /// <summary>W_P − W_1: work added by running in parallel (negative: the parallel run worked less).</summary>
    public TimeSpan WorkInflation => Work - OneWorkerWork;

    /// <summary>r = W_P / W_1.</summary>
    public double InflationRatio => Work / OneWorkerWork;

    /// <summary>P / r: the speedup the inflation alone allows.</summary>
    public double MaxSpeedupUnderInflation => Workers / InflationRatio;

    /// <summary>Work / (P·T_P).</summary>
    public double WorkShare => Work / ThreadTime;

    /// <summary>Overhead / (P·T_P).</summary>
    public double OverheadShare => Overhead / ThreadTime;

    /// <summary>Idle / (P·T_P).</summary>
    public double IdleShare => Idle / ThreadTime;

    /// <summary>Unaccounted / (P·T_P).</summary>
    public double UnaccountedShare => Unaccounted / ThreadTime;

    /// <summary>T_1 / P: perfect division of the one-worker time.</summary>
    public TimeSpan PerfectDivision => OneWorkerElapsed / Workers;

    /// <summary>max(T_1/P, T_∞): no scheduler can do better than this.</summary>
    public TimeSpan LowerBound => PerfectDivision > Span ? PerfectDivision : Span;

    /// <summary>Bound / T_P: 1 is ideal.</summary>
    public double BoundEfficiency => LowerBound / Elapsed;

    /// <summary>T_1 / T_P.</summary>
    public double Speedup => OneWorkerElapsed / Elapsed;

    /// <summary>
    /// Warnings about values this breakdown cannot have if every phase time were pure work: more work than the
    /// thread time P·T_P (beyond 2% for clock differences), or a span longer than T_P. Both happen when a phase is
    /// timed by its wall time while other tasks run meanwhile: an asynchronous split or merge that waits for nested
    /// parallel work (the sorts' and Strassen's long sweeps cut into blocks) is observed from its call to its
    /// completion, so its time counts the blocks it waited for, and, on one worker, whatever else that worker ran.
    /// Also a process CPU time above P·T_P (a negative unaccounted share beyond 2%): threads other than the workers
    /// used CPU during the run (the JIT's background compilation, the garbage collector, the .NET pool, timers), which
    /// is common in runs of a few tens of milliseconds; the overhead column then counts their time as the workers'.
    /// </summary>
    public IReadOnlyList<MetricFlag> Flags
    {
        get
        {
            var flags = new List<MetricFlag>();
            if (Work > ThreadTime * 1.02)
            {
                flags.Add(new MetricFlag(WorkAboveThreadTime, string.Create(CultureInfo.InvariantCulture,
                    $"P={Workers}: work {Work.TotalSeconds:F3} s exceeds P x T_P = {ThreadTime.TotalSeconds:F3} s, which pure work cannot: phase times that overlap other tasks (an asynchronous split or merge timed from call to completion) overstate work, inflation and overhead's complement.")));
            }

            if (Work <= ThreadTime * 1.02 && Unaccounted < -(ThreadTime * 0.02))
            {
                flags.Add(new MetricFlag(CpuAboveThreadTime, string.Create(CultureInfo.InvariantCulture,
                    $"P={Workers}: the process used {(ThreadTime - Unaccounted).TotalSeconds:F3} s of CPU, more than P x T_P = {ThreadTime.TotalSeconds:F3} s, which the workers alone cannot: other threads (JIT, GC, the .NET pool, timers) ran, and the overhead ({OverheadShare:P1}) counts their {(-Unaccounted).TotalSeconds:F3} s beyond P x T_P as the workers'.")));
            }

            if (Span > Elapsed)
            {
                flags.Add(new MetricFlag(SpanAboveElapsed, string.Create(CultureInfo.InvariantCulture,
                    $"P={Workers}: the estimated span {Span.TotalSeconds:F3} s exceeds T_P = {Elapsed.TotalSeconds:F3} s, which a true span cannot: the one-worker phase times it is built from include overlapping work.")));
            }

            return flags;
        }
    }

    /// <summary>Code of a work time above the thread time P·T_P.</summary>
    public const string WorkAboveThreadTime = "work>P·T_P";

    /// <summary>Code of a process CPU time above the thread time P·T_P.</summary>
    public const string CpuAboveThreadTime = "cpu>P·T_P";

    /// <summary>Code of a span estimate above the measured time.</summary>
    public const string SpanAboveElapsed = "span>T_P";
}
