using DivCon.Harness.Measurement;

namespace DivCon.Harness.Tests.Measurement;

/// <summary>
/// The analysis of two builds' paired children: B/A within each pair and each case against its baseline within each
/// child, on synthetic times from a machine whose speed drifts between pairs.
/// </summary>
public sealed class BuildComparisonTests
{
    // The speed of the machine at each pair: drifting by up to 2x, slower and faster in no order.
    private static readonly double[] s_drift = [1.0, 2.0, 1.3, 1.9, 1.05, 1.6, 1.2, 2.0, 1.45, 1.1];

    [Fact]
    public void A_2x_drift_between_pairs_with_B_always_3_percent_slower_gives_1_03()
    {
        var runs = new List<BuildRun>();
        for (int pair = 1; pair <= s_drift.Length; pair++)
        {
            double speed = s_drift[pair - 1];
            runs.Add(new BuildRun(pair, 'A', "sum.task-run", 100e6 * speed));
            runs.Add(new BuildRun(pair, 'B', "sum.task-run", 103e6 * speed));
        }

        CaseComparison comparison = Assert.Single(BuildComparison.CompareBuilds(runs));
        Assert.Equal("sum.task-run", comparison.Case);
        Assert.Equal(s_drift.Length, comparison.BOverA.Pairs);
        Assert.Equal(1.03, comparison.BOverA.Median, 12);
        Assert.Equal(1.03, comparison.BOverA.Low, 12);
        Assert.Equal(1.03, comparison.BOverA.High, 12);
        Assert.False(comparison.BOverA.ContainsOne);
        // Each build's own median, over its children whatever their speed: the middle speeds 1.3 and 1.45.
        Assert.Equal(137.5e6, comparison.MedianA, 3);
        Assert.Equal(141.625e6, comparison.MedianB, 3);
    }

    [Fact]
    public void Noise_within_pairs_under_drift_gives_an_interval_around_the_true_ratio()
    {
        double[] noise = [1.01, 0.99, 1.02, 0.98, 1.0, 1.015, 0.985, 1.005, 0.995, 1.0];
        var runs = new List<BuildRun>();
        for (int pair = 1; pair <= s_drift.Length; pair++)
        {
            runs.Add(new BuildRun(pair, 'A', "fib.divcon-pool", 40e6 * s_drift[pair - 1]));
            runs.Add(new BuildRun(pair, 'B', "fib.divcon-pool", 40e6 * s_drift[pair - 1] * noise[pair - 1]));
        }

        PairedRatios ratio = Assert.Single(BuildComparison.CompareBuilds(runs)).BOverA;
        Assert.True(ratio.ContainsOne, $"[{ratio.Low}, {ratio.High}]");
        Assert.InRange(ratio.Low, 0.98, 1.0);
        Assert.InRange(ratio.High, 1.0, 1.02);
    }

    [Fact]
    public void Each_case_against_its_baseline_is_taken_within_each_child_whatever_the_drift()
    {
        var baselines = new Dictionary<string, string>
        {
            ["sum.plain-recursion"] = "sum.plain-recursion",
            ["sum.divcon-pool"] = "sum.plain-recursion",
            ["sum.sequential-loop"] = "sum.plain-recursion",
        };
        var runs = new List<BuildRun>();
        for (int pair = 1; pair <= s_drift.Length; pair++)
        {
            double speed = s_drift[pair - 1];
            foreach (char build in (char[])['A', 'B'])
            {
                double plain = 20e6 * speed;
                runs.Add(new BuildRun(pair, build, "sum.plain-recursion", plain));
                runs.Add(new BuildRun(pair, build, "sum.divcon-pool", plain * (build == 'A' ? 0.5 : 0.6)));
                runs.Add(new BuildRun(pair, build, "sum.sequential-loop", plain * 0.75));
            }
        }

        var comparisons = BuildComparison.CompareToBaselines(runs, baselines);
        Assert.Equal(
            [('A', "sum.divcon-pool"), ('A', "sum.sequential-loop"), ('B', "sum.divcon-pool"), ('B', "sum.sequential-loop")],
            comparisons.Select(c => (c.Build, c.Case)));
        Assert.All(comparisons, c => Assert.Equal("sum.plain-recursion", c.Baseline));
        Assert.All(comparisons, c => Assert.Equal(s_drift.Length, c.ToBaseline.Pairs));
        Assert.Equal(0.5, comparisons[0].ToBaseline.Median, 12);
        Assert.Equal(0.75, comparisons[1].ToBaseline.Median, 12);
        Assert.Equal(0.6, comparisons[2].ToBaseline.Median, 12);
        Assert.Equal(0.6, comparisons[2].ToBaseline.High, 12);
    }

    [Fact]
    public void Incomplete_pairs_and_cases_without_two_pairs_are_left_out()
    {
        BuildRun[] runs =
        [
            new(1, 'A', "x", 10), new(1, 'B', "x", 11),
            new(2, 'A', "x", 20), // B missing in pair 2
            new(3, 'A', "x", 30), new(3, 'B', "x", 36),
            new(1, 'A', "y", 10), new(1, 'B', "y", 12), // one pair only
        ];
        CaseComparison x = Assert.Single(BuildComparison.CompareBuilds(runs));
        Assert.Equal("x", x.Case);
        Assert.Equal(2, x.BOverA.Pairs);
        Assert.Equal(1.15, x.BOverA.Median, 12);
        Assert.Empty(BuildComparison.CompareToBaselines(runs, new Dictionary<string, string> { ["x"] = "y" }));
    }

    [Fact]
    public void Bad_runs_are_refused_with_what_is_wrong()
    {
        Assert.Contains("'C'", Assert.Throws<ArgumentException>(() => BuildComparison.CompareBuilds([new(1, 'C', "x", 1)])).Message, StringComparison.Ordinal);
        Assert.Contains("positive", Assert.Throws<ArgumentException>(() => BuildComparison.CompareBuilds([new(1, 'A', "x", 0)])).Message, StringComparison.Ordinal);
        Assert.Contains("positive", Assert.Throws<ArgumentException>(() => BuildComparison.CompareBuilds([new(1, 'A', "x", double.NaN)])).Message, StringComparison.Ordinal);
        Assert.Contains("twice", Assert.Throws<ArgumentException>(() => BuildComparison.CompareToBaselines([new(1, 'A', "x", 1), new(1, 'A', "x", 2)], new Dictionary<string, string>())).Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentNullException>(() => BuildComparison.CompareBuilds(null!));
    }
}
