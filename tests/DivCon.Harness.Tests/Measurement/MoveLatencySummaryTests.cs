using DivCon.Harness.Measurement;

namespace DivCon.Harness.Tests.Measurement;

public sealed class MoveLatencySummaryTests
{
    [Fact]
    public void Percentiles_use_the_nearest_rank_over_the_moves_that_arrived()
    {
        TimeSpan?[] latencies = [null, .. Enumerable.Range(1, 100).Reverse().Select(ms => (TimeSpan?)TimeSpan.FromMilliseconds(ms))];
        MoveLatencySummary summary = MoveLatencySummary.Compute("dynamic", latencies);
        Assert.Equal(("dynamic", 101, 100), (summary.Scheme, summary.Moves, summary.Arrived));
        Assert.Equal(50, summary.P50Ms, 9);
        Assert.Equal(95, summary.P95Ms, 9);
        Assert.Equal(99, summary.P99Ms, 9);
        Assert.Equal(100, summary.MaxMs, 9);
    }

    [Fact]
    public void One_move_is_every_percentile_and_none_gives_no_figures()
    {
        MoveLatencySummary one = MoveLatencySummary.Compute("s", [TimeSpan.FromMilliseconds(3)]);
        Assert.Equal([3.0, 3.0, 3.0, 3.0], [one.P50Ms, one.P95Ms, one.P99Ms, one.MaxMs]);
        MoveLatencySummary none = MoveLatencySummary.Compute("s", [null, null]);
        Assert.Equal((2, 0), (none.Moves, none.Arrived));
        Assert.True(double.IsNaN(none.P50Ms) && double.IsNaN(none.MaxMs));
    }

    [Fact]
    public void Bad_input_is_rejected_with_the_parameter_named()
    {
        Assert.Throws<ArgumentException>("latencies", () => MoveLatencySummary.Compute("s", [TimeSpan.FromMilliseconds(-1)]));
        Assert.Throws<ArgumentException>("scheme", () => MoveLatencySummary.Compute(" ", []));
        Assert.Throws<ArgumentOutOfRangeException>("p", () => MoveLatencySummary.Percentile([1.0], 0));
        Assert.Throws<ArgumentOutOfRangeException>("p", () => MoveLatencySummary.Percentile([1.0], 1.5));
    }
}
