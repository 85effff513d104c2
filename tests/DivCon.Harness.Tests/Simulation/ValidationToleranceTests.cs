using System.Globalization;
using DivCon.Harness.Simulation;

namespace DivCon.Harness.Tests.Simulation;

/// <summary>
/// The validation's figures against a tolerance: which figures are flagged (above the tolerance, or without a
/// measured value to compare with; exactly at it is within), the order and grouping of the tables, the verdict line
/// and bad tolerances.
/// </summary>
public class ValidationToleranceTests
{
    private static ValidationRow Row(string experiment, string scheme, string program, string metric, double simulated, double measured) =>
        new(experiment, scheme, program, metric, simulated, measured);

    [Theory]
    [InlineData(1.05, 1.0, false)]
    [InlineData(0.95, 1.0, false)]
    [InlineData(1.25, 1.0, true)]
    [InlineData(0.75, 1.0, true)]
    [InlineData(1.09375, 1.0, false)] // +9.4%, exact in binary
    [InlineData(2.3, 2.0, true)]
    [InlineData(1.0, 0.0, true)] // no relative error: cannot be within
    [InlineData(1.0, double.NaN, true)]
    [InlineData(double.NaN, 1.0, true)]
    public void A_figure_is_beyond_when_it_misses_by_more_than_the_tolerance_or_cannot_be_compared(double simulated, double measured, bool beyond)
    {
        var judged = ValidationTolerance.Judge([Row("e", "s", "p", "ntt", simulated, measured)], 0.1);

        Assert.Equal(beyond, Assert.Single(judged).Beyond);
    }

    [Fact]
    public void Exactly_at_the_tolerance_is_within_and_a_zero_tolerance_flags_every_difference()
    {
        Assert.False(ValidationTolerance.IsBeyond(0.1, 0.1));
        Assert.False(ValidationTolerance.IsBeyond(-0.1, 0.1));
        Assert.True(ValidationTolerance.IsBeyond(0.1000001, 0.1));
        Assert.False(ValidationTolerance.IsBeyond(0, 0));
        Assert.True(ValidationTolerance.IsBeyond(1e-12, 0));
        Assert.True(ValidationTolerance.IsBeyond(double.PositiveInfinity, 100));
    }

    [Theory]
    [InlineData(-0.01)]
    [InlineData(double.NaN)]
    [InlineData(double.PositiveInfinity)]
    public void A_bad_tolerance_is_refused_naming_it(double tolerance)
    {
        var e = Assert.Throws<ArgumentOutOfRangeException>(() => ValidationTolerance.Judge([], tolerance));
        Assert.Equal("tolerance", e.ParamName);
        Assert.Throws<ArgumentOutOfRangeException>(() => ValidationTolerance.WriteMarkdown(TextWriter.Null, [], tolerance, string.Empty));
    }

    [Fact]
    public void Judging_keeps_every_row_in_order()
    {
        ValidationRow[] rows =
        [
            Row("scalability", "", "sumsq", "time_s@1", 0.30, 0.27),
            Row("pair", "shared", "", "antt", 2.0, 2.1),
            Row("pair", "shared", "sumsq", "ntt", 2.5, 2.0),
        ];

        var judged = ValidationTolerance.Judge(rows, 0.1);

        Assert.Equal(rows, judged.Select(j => j.Row));
        Assert.Equal([true, false, true], judged.Select(j => j.Beyond));
    }

    [Fact]
    public void The_verdict_counts_the_flagged_figures_and_names_the_largest_miss()
    {
        var judged = ValidationTolerance.Judge(
            [
                Row("scalability", "", "sumsq", "speedup@2", 2.0, 1.6),
                Row("pair", "dynamic", "pi", "ntt", 1.0, 1.05),
                Row("pair", "dynamic", "sumsq", "ntt", 1.0, 0),
            ], 0.1);

        Assert.Equal("2 of 3 figures beyond ±10.0% (largest: scalability sumsq speedup@2 +25.0%).", ValidationTolerance.Verdict(judged, 0.1));
        Assert.Equal("0 of 0 figures beyond ±5.0%.", ValidationTolerance.Verdict([], 0.05));
    }

    [Fact]
    public void The_markdown_has_a_table_per_experiment_with_differences_and_flags()
    {
        var judged = ValidationTolerance.Judge(
            [
                Row("scalability", "", "sumsq", "time_s@2", 0.15, 0.2),
                Row("symmetric-sumsq", "shared", "", "antt", 2.02, 2.0),
                Row("symmetric-sumsq", "shared", "sumsq#1", "ntt", 2.6, 2.0),
                Row("cyclic-sumsq-pi", "static", "pi", "ntt", 1.0, 0),
            ], 0.1);
        var writer = new StringWriter(CultureInfo.InvariantCulture);

        ValidationTolerance.WriteMarkdown(writer, judged, 0.1, "From the traces in `t`.");

        string[] lines = writer.ToString().Split(Environment.NewLine);
        Assert.Equal("# Measured against SIMULATED", lines[0]);
        Assert.Contains("From the traces in `t`.", lines);
        Assert.Contains("3 of 4 figures beyond ±10.0% (largest: symmetric-sumsq shared sumsq#1 ntt +30.0%).", lines);
        string[] headings = [.. lines.Where(l => l.StartsWith("## ", StringComparison.Ordinal))];
        Assert.Equal(["## scalability", "## symmetric-sumsq", "## cyclic-sumsq-pi"], headings);
        string Line(string start) => Assert.Single(lines, l => l.StartsWith(start, StringComparison.Ordinal));
        Assert.Matches(@"^\| - +\| sumsq +\| time_s@2 +\| +0\.2000 \| +0\.1500 \| +-25\.0% \| BEYOND +\|$", Line("| - "));
        Assert.Matches(@"^\| shared +\| - +\| antt +\| +2\.0000 \| +2\.0200 \| +\+1\.0% \| +\|$", Line("| shared | -"));
        Assert.Matches(@"\| +\+30\.0% \| BEYOND +\|$", Line("| shared | sumsq#1"));
        Assert.Matches(@"\| +- \| BEYOND +\|$", Line("| static"));
    }

    [Fact]
    public void The_markdown_without_a_title_starts_with_the_verdict()
    {
        var writer = new StringWriter(CultureInfo.InvariantCulture);

        ValidationTolerance.WriteMarkdown(writer, ValidationTolerance.Judge([Row("e", "s", "p", "ntt", 1, 1)], 0.1), 0.1, "  ");

        string[] lines = writer.ToString().Split(Environment.NewLine);
        Assert.Equal("0 of 1 figures beyond ±10.0% (largest: e s p ntt 0.0%).", lines[2]);
    }
}
