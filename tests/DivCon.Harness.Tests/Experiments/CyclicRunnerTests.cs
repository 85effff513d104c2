using DivCon.Harness.Experiments;
using DivCon.Harness.Measurement;
using DivCon.Harness.Tests.Support;
using DivCon.Harness.Workload;

namespace DivCon.Harness.Tests.Experiments;

public class CyclicRunnerTests
{
    private static TimeSpan S(double seconds) => TimeSpan.FromSeconds(seconds);

    [Fact]
    public async Task Programs_restart_until_the_limit_and_late_runs_are_discarded()
    {
        var clock = new ManualTimeProvider();
        var a = FakeProgram.Fixed("A", clock, 3);
        var b = FakeProgram.Fixed("B", clock, 5);
        var runner = new CyclicRunner(S(13), clock);

        Task<CyclicTestResult> test = runner.RunAsync([a, b]);
        Assert.False(test.IsCompleted);
        Assert.Equal(2, clock.SleeperCount); // both started at once
        clock.AdvanceTo(S(100));
        CyclicTestResult result = await test.WaitAsync(TestTimeouts.Wait);

        // A: [0,3] [3,6] [6,9] [9,12] counted; restarted at 12 < 13, ends at 15: discarded.
        Assert.Equal([S(3), S(3), S(3), S(3)], result.CountedRuns("A").Select(r => r.Duration));
        Assert.Equal([S(0), S(3), S(6), S(9)], result.CountedRuns("A").Select(r => r.Start));
        // B: [0,5] [5,10] counted; [10,15] discarded.
        Assert.Equal([S(5), S(5)], result.CountedRuns("B").Select(r => r.Duration));
        RunRecord[] discarded = result.Runs.Where(r => !r.Counted).OrderBy(r => r.Program, StringComparer.Ordinal).ToArray();
        Assert.Equal(2, discarded.Length);
        Assert.Equal(("A", 4, S(12), S(15)), (discarded[0].Program, discarded[0].RunIndex, discarded[0].Start, discarded[0].End));
        Assert.Equal(("B", 2, S(10), S(15)), (discarded[1].Program, discarded[1].RunIndex, discarded[1].Start, discarded[1].End));
        // It waited for the in-flight runs and restarted nothing after the limit.
        Assert.Equal(S(15), result.Elapsed);
        Assert.Equal(5, a.Runs);
        Assert.Equal(3, b.Runs);
        Assert.Equal(0, clock.SleeperCount);
        Assert.Equal(["A", "B"], result.Programs);
    }

    [Fact]
    public async Task A_run_ending_exactly_at_the_limit_counts_and_is_not_restarted()
    {
        var clock = new ManualTimeProvider();
        var a = FakeProgram.Fixed("A", clock, 3);
        Task<CyclicTestResult> test = new CyclicRunner(S(12), clock).RunAsync([a]);
        clock.AdvanceTo(S(100));
        CyclicTestResult result = await test.WaitAsync(TestTimeouts.Wait);

        Assert.Equal(4, result.Runs.Count);
        Assert.Equal(4, result.CountedRuns("A").Count);
        Assert.All(result.Runs, r => Assert.True(r.Counted));
        Assert.Equal(4, a.Runs);
        Assert.Equal(S(12), result.Elapsed);
    }

    [Fact]
    public async Task Ntt_follows_from_known_single_and_multi_program_times()
    {
        var clock = new ManualTimeProvider();
        // Alone A takes 1.5 s and B 2.5 s; together A takes 3 s and B 5 s: both NTTs are 2.
        Task<IReadOnlyList<ProgramTimings>> alone = new SingleProgramTimer(timeProvider: clock)
            .MeasureAsync([FakeProgram.Fixed("A", clock, 1.5), FakeProgram.Fixed("B", clock, 2.5)]);
        clock.Advance(S(100));
        IReadOnlyList<ProgramTimings> single = await alone.WaitAsync(TestTimeouts.Wait);

        Task<CyclicTestResult> together = new CyclicRunner(S(30), clock)
            .RunAsync([FakeProgram.Fixed("A", clock, 3), FakeProgram.Fixed("B", clock, 5)]);
        clock.Advance(S(100));
        CyclicTestResult result = await together.WaitAsync(TestTimeouts.Wait);

        WorkloadMetrics metrics = MultiprogramMetrics.Compute(result.ToMeasurements(single));
        Assert.Equal(10, metrics.Programs[0].Multiprogram.Count); // 30 s / 3 s
        Assert.Equal(6, metrics.Programs[1].Multiprogram.Count);  // 30 s / 5 s
        Assert.Equal(2.0, metrics.Programs[0].NormalizedTurnaroundTime, 9);
        Assert.Equal(2.0, metrics.Programs[1].NormalizedTurnaroundTime, 9);
        Assert.Equal(2.0, metrics.Antt, 9);
        Assert.Equal(1.0, metrics.Stp, 9);
    }

    [Fact]
    public async Task Scripted_durations_are_recorded_in_run_order()
    {
        var clock = new ManualTimeProvider();
        var a = new FakeProgram("A", clock, S(1), S(2), S(4));
        Task<CyclicTestResult> test = new CyclicRunner(S(10), clock).RunAsync([a]);
        clock.AdvanceTo(S(100));
        CyclicTestResult result = await test.WaitAsync(TestTimeouts.Wait);

        // 1, 2, 4 (ends 7), then 4 more (ends 11 > 10: discarded).
        Assert.Equal([1.0, 2.0, 4.0], result.CountedSeconds("A"));
        Assert.Equal([0, 1, 2, 3], result.Runs.Select(r => r.RunIndex));
        Assert.False(result.Runs[^1].Counted);
    }

    [Fact]
    public async Task A_program_longer_than_the_limit_has_no_counted_run_and_metrics_refuse_it()
    {
        var clock = new ManualTimeProvider();
        Task<CyclicTestResult> test = new CyclicRunner(S(5), clock).RunAsync([FakeProgram.Fixed("slow", clock, 8)]);
        clock.AdvanceTo(S(100));
        CyclicTestResult result = await test.WaitAsync(TestTimeouts.Wait);

        Assert.Empty(result.CountedRuns("slow"));
        Assert.Single(result.Runs);
        Assert.Equal(S(8), result.Elapsed);
        Assert.Throws<ArgumentException>(() =>
            MultiprogramMetrics.Compute(result.ToMeasurements([new ProgramTimings("slow", [1.0])])));
        Assert.Throws<ArgumentException>(() => result.ToMeasurements([new ProgramTimings("other", [1.0])]));
    }

    [Fact]
    public async Task Progress_gets_one_report_per_finished_run()
    {
        var clock = new ManualTimeProvider();
        var sink = new RecordingProgressSink();
        Task<CyclicTestResult> test = new CyclicRunner(S(13), clock, sink)
            .RunAsync([FakeProgram.Fixed("A", clock, 3), FakeProgram.Fixed("B", clock, 5)]);
        clock.AdvanceTo(S(100));
        CyclicTestResult result = await test.WaitAsync(TestTimeouts.Wait);

        string[] events = sink.Events.ToArray();
        Assert.StartsWith("begin", events[0], StringComparison.Ordinal);
        Assert.StartsWith("end", events[^1], StringComparison.Ordinal);
        Assert.Equal(result.Runs.Count, events.Count(e => e.StartsWith("report", StringComparison.Ordinal)));
        Assert.Equal(2, events.Count(e => e.Contains("discarded", StringComparison.Ordinal)));
    }

    [Fact]
    public async Task A_faulting_program_faults_the_test_after_the_others_finish()
    {
        var clock = new ManualTimeProvider();
        var ok = FakeProgram.Fixed("ok", clock, 4);
        var bad = new WorkloadProgram("bad", async _ =>
        {
            await clock.WaitAsync(S(1));
            throw new InvalidOperationException("boom");
        });

        Task<CyclicTestResult> test = new CyclicRunner(S(10), clock).RunAsync([ok, bad]);
        clock.AdvanceTo(S(2));
        Assert.False(test.IsCompleted); // "ok" is still running
        clock.AdvanceTo(S(100));
        var ex = await Assert.ThrowsAsync<InvalidOperationException>(() => test.WaitAsync(TestTimeouts.Wait));
        Assert.Equal("boom", ex.Message);
    }

    [Fact]
    public async Task Cancellation_stops_restarting()
    {
        var clock = new ManualTimeProvider();
        using var cts = new CancellationTokenSource();
        var a = FakeProgram.Fixed("A", clock, 2);
        Task<CyclicTestResult> test = new CyclicRunner(S(10), clock).RunAsync([a], cts.Token);
        clock.AdvanceTo(S(3));
        await cts.CancelAsync();
        clock.AdvanceTo(S(100));

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => test.WaitAsync(TestTimeouts.Wait));
        Assert.Equal(2, a.Runs);
    }

    [Fact]
    public async Task Bad_workloads_are_rejected()
    {
        var clock = new ManualTimeProvider();
        var runner = new CyclicRunner(S(1), clock);
        await Assert.ThrowsAsync<ArgumentException>(() => runner.RunAsync([]));
        await Assert.ThrowsAsync<ArgumentException>(() => runner.RunAsync([FakeProgram.Fixed("A", clock, 1), FakeProgram.Fixed("A", clock, 1)]));
        await Assert.ThrowsAsync<ArgumentNullException>(() => runner.RunAsync(null!));
        Assert.Throws<ArgumentOutOfRangeException>(() => new CyclicRunner(TimeSpan.Zero));
        Assert.Throws<ArgumentException>(() => new WorkloadProgram(" ", _ => Task.CompletedTask));
    }
}
