using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using DivCon.Harness.Terminal;
using DivCon.Harness.Tests.Support;
using Spectre.Console;

namespace DivCon.Harness.Tests.Measurement;

public class MetricFlagTests
{
    // Three programs on 2 cores, each "faster" beside the others than alone: STP 3.75 > 2 cores, every NTT < 1.
    private static readonly WorkloadMetrics Impossible = MultiprogramMetrics.Compute(
    [
        new ProgramMeasurements("A", [2.0, 2.0, 2.0], [1.5, 1.6, 1.7]),
        new ProgramMeasurements("B", [1.0, 1.0, 1.0], [0.8, 0.8, 0.8]),
        new ProgramMeasurements("C", [1.0, 1.0, 1.0], [0.8, 0.8, 0.8]),
    ]);

    private static readonly WorkloadMetrics Plausible = MultiprogramMetrics.Compute(
    [
        new ProgramMeasurements("A", [1.0, 1.0, 1.0], [2.0, 2.1, 1.9]),
        new ProgramMeasurements("B", [1.0, 1.0, 1.0], [1.5, 1.5, 1.5]),
    ]);

    [Fact]
    public void An_stp_above_the_cores_and_ntts_below_one_are_flagged()
    {
        IReadOnlyList<MetricFlag> flags = MetricFlag.Of(Impossible, cores: 2);

        Assert.Equal(MetricFlag.StpAboveCores, flags[0].Code);
        Assert.Contains("2 cores", flags[0].Detail, StringComparison.Ordinal);
        Assert.Equal(3, flags.Count(f => f.Code == MetricFlag.NttBelowOne));
        Assert.DoesNotContain(MetricFlag.Of(Impossible, cores: 4), f => f.Code == MetricFlag.StpAboveCores);
    }

    [Fact]
    public void Plausible_metrics_from_enough_runs_have_no_flags_and_too_few_runs_are_flagged()
    {
        Assert.Empty(MetricFlag.Of(Plausible, cores: 2));
        WorkloadMetrics single = MultiprogramMetrics.Compute([new ProgramMeasurements("A", [1.0, 1.0, 1.0], [2.0])]);
        MetricFlag flag = Assert.Single(MetricFlag.Of(single, cores: 2));
        Assert.Equal(MetricFlag.FewRuns, flag.Code);
        Assert.Equal(MetricFlag.FewRuns, Assert.Single(MetricFlag.OfRepetitions(2, [])).Code);
    }

    [Fact]
    public void Flags_appear_in_the_console_table_the_markdown_and_the_json()
    {
        var schemes = new[] { new SchemeMetrics("dynamic", Impossible) { Flags = MetricFlag.Of(Impossible, 2) }, new SchemeMetrics("shared", Plausible) };
        var output = new StringWriter();
        IAnsiConsole console = AnsiConsole.Create(new AnsiConsoleSettings
        {
            Ansi = AnsiSupport.No, ColorSystem = ColorSystemSupport.NoColors, Interactive = InteractionSupport.No, Out = new AnsiConsoleOutput(output),
        });
        console.Profile.Width = 400; // one flag per line, unwrapped
        SummaryTable.Render(console, schemes);
        var markdown = new StringWriter();
        MultiprogramMarkdown.Write(markdown, "t", schemes, Samples.Stamp);
        string json = JsonReport.Serialize(Samples.Stamp, schemes);

        Assert.Contains(MetricFlag.StpAboveCores, output.ToString(), StringComparison.Ordinal);
        Assert.Contains("exceeds the 2 cores", output.ToString(), StringComparison.Ordinal);
        Assert.Contains("| Flags", markdown.ToString(), StringComparison.Ordinal);
        Assert.Contains("exceeds the 2 cores", markdown.ToString(), StringComparison.Ordinal);
        using var document = System.Text.Json.JsonDocument.Parse(json);
        Assert.Equal(MetricFlag.StpAboveCores, document.RootElement.GetProperty("data")[0].GetProperty("flags")[0].GetProperty("code").GetString());
        Assert.Equal(0, document.RootElement.GetProperty("data")[1].GetProperty("flags").GetArrayLength());
    }
}
