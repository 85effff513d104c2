using DivCon.Simulator.Workloads;

namespace DivCon.Simulator.Tests;

/// <summary>The mix metrics and the aggregate table, on plain data worked out by hand.</summary>
public sealed class MixMetricsTests
{
    [Fact]
    public void Ntt_stp_antt_and_worst_follow_the_definitions()
    {
        // alone 1 s and 2 s; turnarounds 2, 4 (mean 3: NTT 3) and 2 (NTT 1).
        var m = MixMetrics.Compute([("a", 1.0, [2.0, 4.0]), ("b", 2.0, [2.0])]);

        Assert.Equal([3.0, 1.0], m.Programs.Select(p => p.Ntt));
        Assert.Equal([2, 1], m.Programs.Select(p => p.Runs));
        Assert.Equal((1.0 / 3) + 1, m.Stp, 12);
        Assert.Equal(2.0, m.Antt, 12);
        Assert.Equal(3.0, m.WorstNtt, 12);
        Assert.False(m.Incomplete);
    }

    [Fact]
    public void A_program_without_a_counted_run_makes_the_mix_incomplete()
    {
        var m = MixMetrics.Compute([("a", 1.0, [2.0]), ("starved", 1.0, [])]);

        Assert.True(m.Incomplete);
        Assert.True(double.IsNaN(m.Stp) && double.IsNaN(m.Antt) && double.IsNaN(m.WorstNtt));
        Assert.Equal(2.0, m.Programs[0].Ntt);
    }

    [Fact]
    public void Bad_metric_inputs_are_refused()
    {
        Assert.Throws<ArgumentException>(() => MixMetrics.Compute([]));
        Assert.Contains("'z'", Assert.Throws<ArgumentException>(() => MixMetrics.Compute([("z", 0.0, [1.0])])).Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => MixMetrics.Compute([("z", 1.0, [double.NaN])]));
        Assert.Throws<ArgumentException>(() => MixMetrics.Compute([("z", 1.0, [-1.0])]));
    }

    [Fact]
    public void The_aggregate_counts_wins_near_best_ratios_and_worst_cases()
    {
        MixOutcome[] rows =
        [
            new("m1", 16, "A", 2.00, 1.50, 2, 10, 1),
            new("m1", 16, "B", 1.99, 1.52, 2, 20, 2),
            new("m1", 16, "C", 1.50, 2.00, 3, 0, 0),
            new("m2", 16, "A", 1.00, 3.00, 4, 30, 3),
            new("m2", 16, "B", 1.20, 2.50, 3, 40, 4),
            new("m2", 16, "C", double.NaN, double.NaN, double.NaN, 0, 0),
        ];

        var table = MixAggregate.Compute(rows, ["A", "B", "C"]);
        var (a, b, c) = (table[0], table[1], table[2]);

        // A wins m1; on m2 it is 1/1.2 of the best (not within 1%).
        Assert.Equal((2, 0, 1, 1), (a.Mixes, a.Incomplete, a.Wins, a.NearBest));
        Assert.Equal(Math.Sqrt(2.0 / 1.99 * (1.0 / 1.2)), a.GeoMeanRatio, 12);
        Assert.Equal((1.0 / 1.2, "m2"), (a.WorstRatio, a.WorstMix));
        Assert.Equal((20.0, 2.0), (a.MovesPerSecond, a.HandoversPerSecond));
        // B wins m2 (C incomplete there) and is within 1% STP (1.99 >= 1.98) and 2% ANTT (1.52 <= 1.53) on m1.
        Assert.Equal((2, 0, 1, 2), (b.Mixes, b.Incomplete, b.Wins, b.NearBest));
        Assert.Equal(Math.Sqrt(1.99 / 2.0 * 1.2), b.GeoMeanRatio, 12);
        Assert.Equal((1.99 / 2.0, "m1"), (b.WorstRatio, b.WorstMix));
        // C: incomplete on m2, so one ratio (0.75).
        Assert.Equal((2, 1, 0, 0), (c.Mixes, c.Incomplete, c.Wins, c.NearBest));
        Assert.Equal(0.75, c.GeoMeanRatio, 12);
        Assert.Equal((0.75, "m1"), (c.WorstRatio, c.WorstMix));
    }

    [Fact]
    public void Within_one_percent_but_two_percent_worse_antt_is_not_near_best()
    {
        MixOutcome[] rows = [new("m", 64, "A", 2.00, 1.50, 2, 0, 0), new("m", 64, "B", 1.995, 1.54, 2, 0, 0)];

        var table = MixAggregate.Compute(rows, ["A", "B"]);

        Assert.Equal(0, table[1].NearBest);
        Assert.Equal(2.00 / 1.995, table[0].GeoMeanRatio, 12);
    }

    [Fact]
    public void Near_best_is_the_best_stp_or_within_one_percent_stp_and_two_percent_antt()
    {
        Assert.True(MixAggregate.IsNearBest(2.00, 9.0, 2.00, 1.50)); // the best STP, whatever its ANTT
        Assert.True(MixAggregate.IsNearBest(1.98, 1.53, 2.00, 1.50)); // 1% and 2% exactly
        Assert.False(MixAggregate.IsNearBest(1.979, 1.50, 2.00, 1.50)); // STP more than 1% behind
        Assert.False(MixAggregate.IsNearBest(1.995, 1.54, 2.00, 1.50)); // ANTT more than 2% worse
    }

    [Fact]
    public void Bad_aggregate_inputs_are_refused()
    {
        MixOutcome Row(string mix, int cores, string scheme) => new(mix, cores, scheme, 1, 1, 1, 0, 0);

        Assert.Throws<ArgumentException>(() => MixAggregate.Compute([Row("m", 16, "A"), Row("m", 64, "A")], ["A"]));
        Assert.Throws<ArgumentException>(() => MixAggregate.Compute([Row("m", 16, "A"), Row("m", 16, "A")], ["A"]));
        Assert.Contains("'X'", Assert.Throws<ArgumentException>(() => MixAggregate.Compute([Row("m", 16, "X")], ["A"])).Message, StringComparison.Ordinal);
    }
}
