using DivCon.Harness.Performance;

namespace DivCon.Harness.Tests.Performance;

public class PerformanceModelTests
{
    private static TimeSpan S(double seconds) => TimeSpan.FromSeconds(seconds);

    [Fact]
    public void Breakdown_matches_hand_computation()
    {
        // 4 workers, T_P = 10 s: each 8 s work, 1 s overhead, 0.5 s idle. T_S = 24 s, T_inf = 7 s.
        WorkerTimes[] workers = Enumerable.Range(0, 4).Select(i => new WorkerTimes(i, S(8), S(1), S(0.5))).ToArray();
        PerformanceBreakdown b = PerformanceModel.Analyze(workers, S(10), S(24), S(7));

        Assert.Equal(S(40), b.TotalThreadTime);
        Assert.Equal(S(32), b.Work);
        Assert.Equal(S(4), b.Overhead);
        Assert.Equal(S(2), b.Idle);
        Assert.Equal(S(2), b.Unaccounted);
        Assert.Equal(0.8, b.WorkShare, 12);
        Assert.Equal(0.1, b.OverheadShare, 12);
        Assert.Equal(0.05, b.IdleShare, 12);
        Assert.Equal(0.05, b.UnaccountedShare, 12);
        Assert.Equal(S(8), b.WorkInflation);
        Assert.Equal(0.2, b.InflationShare, 12);
        Assert.Equal(4.0 / 3, b.InflationRatio, 12);
        Assert.Equal(3.0, b.MaxSpeedupUnderInflation, 12);
        Assert.Equal(S(7), b.LowerBound);           // max(24/4 = 6, 7)
        Assert.Equal(0.7, b.BoundEfficiency, 12);
        Assert.Equal(2.4, b.Speedup, 12);
    }

    [Fact]
    public void Without_a_critical_path_the_bound_is_work_over_p()
    {
        PerformanceBreakdown b = PerformanceModel.Analyze([new WorkerTimes(0, S(3), S(0), S(0)), new WorkerTimes(1, S(3), S(0), S(0))], S(4), S(6));

        Assert.Equal(S(3), b.LowerBound);
        Assert.Equal(TimeSpan.Zero, b.CriticalPath);
        Assert.Equal(TimeSpan.Zero, b.WorkInflation);
        Assert.Equal(S(2), b.Unaccounted);
    }

    [Fact]
    public void Inflation_from_phase_sums()
    {
        Assert.Equal(S(1.5), PerformanceModel.WorkInflation(S(11.5), S(10)));
        Assert.Equal(S(-0.5), PerformanceModel.WorkInflation(S(9.5), S(10)));
    }

    [Fact]
    public void Bad_inputs_are_rejected()
    {
        WorkerTimes ok = new(0, S(1), S(0), S(0));
        Assert.Throws<ArgumentException>(() => PerformanceModel.Analyze([], S(1), S(1)));
        Assert.Throws<ArgumentException>(() => PerformanceModel.Analyze([new WorkerTimes(3, S(-1), S(0), S(0))], S(1), S(1)));
        Assert.Throws<ArgumentOutOfRangeException>(() => PerformanceModel.Analyze([ok], TimeSpan.Zero, S(1)));
        Assert.Throws<ArgumentOutOfRangeException>(() => PerformanceModel.Analyze([ok], S(1), TimeSpan.Zero));
        Assert.Throws<ArgumentOutOfRangeException>(() => PerformanceModel.Analyze([ok], S(1), S(1), S(-1)));
        Assert.Throws<ArgumentOutOfRangeException>(() => PerformanceModel.WorkInflation(S(-1), S(1)));
        Assert.Throws<ArgumentOutOfRangeException>(() => PerformanceModel.WorkInflation(S(1), TimeSpan.Zero));
    }
}
