using DivCon.Harness.Experiments;
using DivCon.Harness.Measurement;
using DivCon.Harness.Tests.Support;

namespace DivCon.Harness.Tests.Experiments;

public class SingleProgramTimerTests
{
    private static TimeSpan S(double seconds) => TimeSpan.FromSeconds(seconds);

    [Fact]
    public async Task Each_program_runs_alone_the_given_number_of_times_after_warmup()
    {
        var clock = new ManualTimeProvider();
        var a = new FakeProgram("A", clock, S(10), S(1), S(2), S(3));
        var b = FakeProgram.Fixed("B", clock, 0.5);
        var timer = new SingleProgramTimer(repetitions: 3, warmupRuns: 1, timeProvider: clock);

        Task<IReadOnlyList<ProgramTimings>> measuring = timer.MeasureAsync([a, b]);
        Assert.Equal(1, clock.SleeperCount); // one at a time
        clock.Advance(S(1000));
        IReadOnlyList<ProgramTimings> timings = await measuring.WaitAsync(TestTimeouts.Wait);

        Assert.Equal("A", timings[0].Program);
        Assert.Equal([1.0, 2.0, 3.0], timings[0].Seconds);
        Assert.Equal([0.5, 0.5, 0.5], timings[1].Seconds);
        Assert.Equal(4, a.Runs);
    }

    [Fact]
    public async Task Default_is_five_recorded_runs()
    {
        var clock = new ManualTimeProvider();
        var a = FakeProgram.Fixed("A", clock, 1);
        Task<IReadOnlyList<ProgramTimings>> measuring = new SingleProgramTimer(timeProvider: clock).MeasureAsync([a]);
        clock.Advance(S(100));
        IReadOnlyList<ProgramTimings> timings = await measuring.WaitAsync(TestTimeouts.Wait);

        Assert.Equal(5, timings[0].Seconds.Count);
        Assert.Equal(SingleProgramTimer.DefaultRepetitions, a.Runs);
    }

    [Fact]
    public void Bad_counts_are_rejected()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new SingleProgramTimer(repetitions: 0));
        Assert.Throws<ArgumentOutOfRangeException>(() => new SingleProgramTimer(warmupRuns: -1));
    }
}
