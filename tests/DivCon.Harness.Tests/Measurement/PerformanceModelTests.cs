using DivCon.Harness.Measurement;
using DivCon.Harness.Tests.Support;
using DivCon.Skeletons;

namespace DivCon.Harness.Tests.Measurement;

public class PerformanceModelTests
{
    private static TimeSpan S(double seconds) => TimeSpan.FromSeconds(seconds);

    private static TimeSpan Ms(double ms) => TimeSpan.FromMilliseconds(ms);

    [Fact]
    public void Breakdown_matches_hand_computation()
    {
        // P = 4, T_P = 10 s: 32 s of work, 36 s of CPU. One worker: T_1 = 30 s with 24 s of work. T_inf = 7 s.
        PerformanceBreakdown b = PerformanceModel.Analyze(4, S(10), S(32), S(36), S(30), S(24), S(7));

        Assert.Equal(S(40), b.ThreadTime);
        Assert.Equal(S(4), b.Overhead);                 // CPU beyond the work
        Assert.Equal(S(4), b.Idle);                     // thread time without CPU
        Assert.Equal(TimeSpan.Zero, b.Unaccounted);
        Assert.Equal(0.8, b.WorkShare, 12);
        Assert.Equal(0.1, b.OverheadShare, 12);
        Assert.Equal(0.1, b.IdleShare, 12);
        Assert.Equal(S(8), b.WorkInflation);
        Assert.Equal(4.0 / 3, b.InflationRatio, 12);
        Assert.Equal(3.0, b.MaxSpeedupUnderInflation, 12);
        Assert.Equal(S(7.5), b.PerfectDivision);
        Assert.Equal(S(7.5), b.LowerBound);             // max(30/4, 7)
        Assert.Equal(0.75, b.BoundEfficiency, 12);
        Assert.Equal(3.0, b.Speedup, 12);
    }

    [Fact]
    public void A_plausible_breakdown_has_no_flags()
    {
        Assert.Empty(PerformanceModel.Analyze(4, S(10), S(32), S(36), S(30), S(24), S(7)).Flags);
    }

    [Fact]
    public void Work_above_the_thread_time_and_a_span_above_T_P_are_flagged()
    {
        // P = 1, T_P = 1 s, but 1.79 s of "work" (an asynchronous split timed by its wall time) and a 1.2 s span.
        PerformanceBreakdown b = PerformanceModel.Analyze(1, S(1), S(1.79), S(1), S(1), S(1.79), S(1.2));
        Assert.Equal([PerformanceBreakdown.WorkAboveThreadTime, PerformanceBreakdown.SpanAboveElapsed], b.Flags.Select(f => f.Code));
        Assert.Contains("1.790", b.Flags[0].Detail, StringComparison.Ordinal);

        // Within 2% is clock difference, not a flag.
        Assert.Empty(PerformanceModel.Analyze(2, S(1), S(2.03), S(2), S(2), S(2), S(0.5)).Flags);
    }

    [Fact]
    public void Cpu_time_above_the_thread_time_is_flagged_with_the_excess()
    {
        // A short two-worker run: T_P = 10 ms, work 12 ms, but the process used 32.3 ms of CPU (JIT and GC threads):
        // overhead 20.3 ms = 101.5% of P x T_P, unaccounted -12.3 ms. Impossible for the workers alone.
        PerformanceBreakdown b = PerformanceModel.Analyze(2, S(0.010), S(0.012), S(0.0323), S(0.02), S(0.012), S(0.001));
        Assert.Equal([PerformanceBreakdown.CpuAboveThreadTime], b.Flags.Select(f => f.Code));
        Assert.Contains("0.032 s of CPU", b.Flags[0].Detail, StringComparison.Ordinal);
        Assert.Contains("0.012 s beyond", b.Flags[0].Detail, StringComparison.Ordinal);

        // The one-worker row of a granular fib(40) sweep on the 2-CPU VM: work 98.8%, overhead 61.6%, unaccounted -60.4%.
        Assert.Equal(
            [PerformanceBreakdown.CpuAboveThreadTime],
            PerformanceModel.Analyze(1, S(0.3143), S(0.3105), S(0.5041), S(0.3143), S(0.3105), S(0.0595)).Flags.Select(f => f.Code));

        // Within 2% of P x T_P is clock difference; and work above the thread time is flagged once, as such.
        Assert.Empty(PerformanceModel.Analyze(2, S(1), S(1.5), S(2.03), S(2), S(1.5), S(0.1)).Flags);
        Assert.Equal(
            [PerformanceBreakdown.WorkAboveThreadTime],
            PerformanceModel.Analyze(1, S(1), S(1.5), S(1.6), S(2), S(1.5), S(0.1)).Flags.Select(f => f.Code));
    }

    [Fact]
    public void A_long_span_sets_the_bound()
    {
        PerformanceBreakdown b = PerformanceModel.Analyze(8, S(5), S(10), S(12), S(12), S(10), S(4));
        Assert.Equal(S(1.5), b.PerfectDivision);
        Assert.Equal(S(4), b.LowerBound);
        Assert.Equal(0.8, b.BoundEfficiency, 12);
    }

    [Fact]
    public void Clock_disagreements_show_as_unaccounted_never_as_negative_components()
    {
        // More CPU than thread time (threads other than the workers ran): no idle, a negative remainder.
        PerformanceBreakdown busy = PerformanceModel.Analyze(2, S(1), S(1.5), S(2.5), S(2), S(1.5), S(0.1));
        Assert.Equal(TimeSpan.Zero, busy.Idle);
        Assert.Equal(S(1), busy.Overhead);
        Assert.Equal(S(-0.5), busy.Unaccounted);

        // Less CPU than work (the CPU clock's coarse ticks): no overhead, idle measured from the work.
        PerformanceBreakdown coarse = PerformanceModel.Analyze(2, S(1), S(1.5), S(1.4), S(2), S(1.5), S(0.1));
        Assert.Equal(TimeSpan.Zero, coarse.Overhead);
        Assert.Equal(S(0.5), coarse.Idle);
        Assert.Equal(TimeSpan.Zero, coarse.Unaccounted);
    }

    [Fact]
    public void Span_is_the_longest_path_of_mean_tasks()
    {
        // Level 0: one split (4 ms) and one merge (6 ms). Level 1: two splits (2 ms each), two merges (1 ms each) and
        // one leaf (30 ms). Level 2: four leaves of 10 ms. Paths: 10 + 30 = 40 ms to level 1, 10 + 3 + 10 = 23 ms to level 2.
        PhaseLevelTimes[] levels =
        [
            new(0, Ms(4), TimeSpan.Zero, Ms(6), 1, 0, 1),
            new(1, Ms(4), Ms(30), Ms(2), 2, 1, 2),
            new(2, TimeSpan.Zero, Ms(40), TimeSpan.Zero, 0, 4, 0),
        ];
        Assert.Equal(Ms(40), PerformanceModel.Span(levels));
        Assert.Equal(Ms(23), PerformanceModel.Span([levels[0], levels[1] with { Execute = TimeSpan.Zero, ExecuteCount = 0 }, levels[2]]));
        Assert.Equal(TimeSpan.Zero, PerformanceModel.Span([]));
    }

    [Fact]
    public void Observations_feed_the_model_with_the_one_worker_span()
    {
        // A root split (10 ms) and merge (10 ms) around two leaves: 40 ms each on one worker, 50 ms on four.
        PhaseLevelTimes[] oneWorker = [new(0, Ms(10), TimeSpan.Zero, Ms(10), 1, 0, 1), new(1, TimeSpan.Zero, Ms(80), TimeSpan.Zero, 0, 2, 0)];
        PhaseLevelTimes[] fourWorkers = [new(0, Ms(10), TimeSpan.Zero, Ms(10), 1, 0, 1), new(1, TimeSpan.Zero, Ms(100), TimeSpan.Zero, 0, 2, 0)];
        var one = new RunObservation(1, Ms(100), Ms(100), oneWorker);
        var four = new RunObservation(4, Ms(60), Ms(150), fourWorkers);

        PerformanceBreakdown b = PerformanceModel.Analyze(four, one);

        Assert.Equal(Ms(120), b.Work);
        Assert.Equal(Ms(100), b.OneWorkerWork);
        Assert.Equal(Ms(60), b.Span);                   // split + mean one-worker leaf + merge
        Assert.Equal(Ms(60), b.LowerBound);             // max(100/4, 60)
        Assert.Equal(Ms(30), b.Overhead);
        Assert.Equal(Ms(90), b.Idle);
        Assert.Throws<ArgumentException>(() => PerformanceModel.Analyze(four, four));
    }

    [Fact]
    public void Bad_inputs_are_rejected()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => PerformanceModel.Analyze(0, S(1), S(1), S(1), S(1), S(1), S(0)));
        Assert.Throws<ArgumentOutOfRangeException>(() => PerformanceModel.Analyze(1, TimeSpan.Zero, S(1), S(1), S(1), S(1), S(0)));
        Assert.Throws<ArgumentOutOfRangeException>(() => PerformanceModel.Analyze(1, S(1), S(-1), S(1), S(1), S(1), S(0)));
        Assert.Throws<ArgumentOutOfRangeException>(() => PerformanceModel.Analyze(1, S(1), S(1), S(-1), S(1), S(1), S(0)));
        Assert.Throws<ArgumentOutOfRangeException>(() => PerformanceModel.Analyze(1, S(1), S(1), S(1), TimeSpan.Zero, S(1), S(0)));
        Assert.Throws<ArgumentOutOfRangeException>(() => PerformanceModel.Analyze(1, S(1), S(1), S(1), S(1), TimeSpan.Zero, S(0)));
        Assert.Throws<ArgumentOutOfRangeException>(() => PerformanceModel.Analyze(1, S(1), S(1), S(1), S(1), S(1), S(-1)));
    }

    [Fact]
    public void Phase_levels_group_the_aggregator_by_depth_and_average_runs()
    {
        long Ticks(double ms) => (long)(ms * System.Diagnostics.Stopwatch.Frequency / 1000);
        var aggregator = new PhaseAggregator();
        aggregator.OnPhase(DivideAndConquerPhase.Split, 0, Ticks(5));
        aggregator.OnPhase(DivideAndConquerPhase.Execute, 1, Ticks(10));
        aggregator.OnPhase(DivideAndConquerPhase.Execute, 1, Ticks(12));
        aggregator.OnPhase(DivideAndConquerPhase.Merge, 0, Ticks(4));

        IReadOnlyList<PhaseLevelTimes> levels = PhaseLevelTimes.From(aggregator.Snapshot());
        Assert.Equal([0, 1], levels.Select(l => l.Level));
        Assert.Equal((1L, 0L, 1L), (levels[0].SplitCount, levels[0].ExecuteCount, levels[0].MergeCount));
        Assert.Equal(22, levels[1].Execute.TotalMilliseconds, 2);
        Assert.Equal(2, levels[1].Count);

        IReadOnlyList<PhaseLevelTimes> mean = PhaseLevelTimes.Mean([levels, [levels[0]]]);
        Assert.Equal(11, mean[1].Execute.TotalMilliseconds, 2);   // level 1 missing from the second run counts as zero
        Assert.Equal(1, mean[1].ExecuteCount);
        Assert.Equal(5, mean[0].Split.TotalMilliseconds, 2);
    }

    [Fact]
    public async Task An_observed_run_reads_the_clock_and_the_observer()
    {
        var clock = new ManualTimeProvider();
        RunObservation run = await RunObservation.ObserveAsync(3, (observer, _) =>
        {
            // One leaf of one second, reported as the engines report nodes.
            observer.OnNodePhase(new NodePhaseEvent(0, -1, 0, 0, DivideAndConquerPhase.Execute, System.Diagnostics.Stopwatch.GetTimestamp(), System.Diagnostics.Stopwatch.Frequency, 1, -1));
            clock.Advance(S(2));
            return Task.CompletedTask;
        }, clock);

        Assert.Equal(3, run.Workers);
        Assert.Equal(S(2), run.Elapsed);
        Assert.Equal(1000, run.Work.TotalMilliseconds, 2);
        Assert.True(run.CpuTime >= TimeSpan.Zero);
        Assert.Throws<ArgumentException>(() => RunObservation.Mean([run, run with { Workers = 1 }]));
        Assert.Equal(S(2), RunObservation.Mean([run, run with { Elapsed = S(4) }]).Elapsed - S(1));
    }
}
