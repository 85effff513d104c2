using DivCon.Harness.Cli;
using DivCon.Harness.Measurement;

namespace DivCon.Harness.Tests.Measurement;

/// <summary>The interleaved A/B's summary: the median of per-pair ratios with a bootstrap interval.</summary>
public sealed class PairedRatiosTests
{
    [Fact]
    public void Equal_variants_give_one_and_an_interval_that_contains_it()
    {
        PairedRatios summary = PairedRatios.Of([1.0, 1.0, 1.0, 1.0, 1.0]);
        Assert.Equal(1.0, summary.Median);
        Assert.Equal(1.0, summary.Low);
        Assert.Equal(1.0, summary.High);
        Assert.True(summary.ContainsOne);
        Assert.Equal(5, summary.Pairs);
    }

    [Fact]
    public void A_consistent_slowdown_is_shown_and_bracketed()
    {
        double[] ratios = [1.10, 1.20, 1.15, 1.12, 1.18, 1.11, 1.13, 1.16, 1.14, 1.17];
        PairedRatios summary = PairedRatios.Of(ratios);
        Assert.Equal(1.145, summary.Median, 10);
        Assert.InRange(summary.Low, 1.10, summary.Median);
        Assert.InRange(summary.High, summary.Median, 1.20);
        Assert.False(summary.ContainsOne);
        Assert.Equal(summary, PairedRatios.Of(ratios)); // Reproducible: the same seed, the same interval.
    }

    [Fact]
    public void Noise_around_one_gives_an_interval_across_one()
    {
        PairedRatios summary = PairedRatios.Of([0.97, 1.04, 0.99, 1.02, 0.96, 1.03, 1.01, 0.98]);
        Assert.True(summary.ContainsOne, $"[{summary.Low}, {summary.High}]");
        Assert.True(summary.Low < summary.High);
    }

    [Fact]
    public void Bad_input_is_refused_with_its_parameter()
    {
        Assert.Equal("ratios", Assert.Throws<ArgumentException>(() => PairedRatios.Of([1.0])).ParamName);
        Assert.Equal("ratios", Assert.Throws<ArgumentException>(() => PairedRatios.Of([1.0, 0.0])).ParamName);
        Assert.Equal("ratios", Assert.Throws<ArgumentException>(() => PairedRatios.Of([1.0, double.NaN])).ParamName);
        Assert.Equal("confidence", Assert.Throws<ArgumentOutOfRangeException>(() => PairedRatios.Of([1.0, 1.1], confidence: 1)).ParamName);
        Assert.Throws<ArgumentNullException>(() => PairedRatios.Of(null!));
    }

    [Fact]
    public void Ratios_are_taken_within_pairs_so_drift_between_pairs_cancels()
    {
        // The machine's speed halves and doubles between pairs; within each pair "on" is 5% slower.
        double[] speed = [1.0, 2.0, 0.5, 1.6, 0.8, 2.6];
        var rows = new List<(int Pair, bool On, string Benchmark, double Nanoseconds)>();
        for (int pair = 0; pair < speed.Length; pair++)
        {
            rows.Add((pair, true, "x", 1000 * speed[pair] * 1.05));
            rows.Add((pair, false, "x", 1000 * speed[pair]));
        }

        rows.Add((99, true, "x", 1.0)); // A pair with one side only is left out.
        var summary = Assert.Single(InstrumentationBenchCommand.Summarize(rows));
        Assert.Equal("x", summary.Benchmark);
        Assert.Equal(speed.Length, summary.Ratio.Pairs);
        Assert.Equal(1.05, summary.Ratio.Median, 10);
        Assert.Equal(1.05, summary.Ratio.Low, 10);
        Assert.Equal(1.05, summary.Ratio.High, 10);
    }
}
