using DivCon.Harness.Reports.Charts;
using System.Xml.Linq;
using DivCon.Harness.Performance;
using DivCon.Harness.Tests.Support;

namespace DivCon.Harness.Tests.Performance;

public class PerformanceReportTests
{
    private static TimeSpan S(double seconds) => TimeSpan.FromSeconds(seconds);

    [Fact]
    public void Phase_chart_csv_and_markdown_cover_every_level()
    {
        var profile = new PhaseProfile();
        profile.Add(DcPhase.Split, 0, S(0.001));
        profile.Add(DcPhase.Merge, 0, S(0.004));
        profile.Add(DcPhase.Execute, 1, S(0.015));
        IReadOnlyList<PhaseLevelTimes> levels = profile.Levels();

        StackedBarChart chart = PhaseReport.Chart("mergesort", levels);
        Assert.Equal(["0", "1"], chart.Categories);
        Assert.Equal([1.0, 0], chart.Layers[0].Values);   // split ms per level
        XDocument svg = XDocument.Parse(chart.Render(Samples.Stamp).ToString());
        Assert.Contains(svg.Descendants(), e => e.Name.LocalName == "text" && e.Value == "Recursion level");

        var csv = new StringWriter();
        PhaseReport.WriteCsv(csv, [("mergesort", levels)]);
        List<List<string>> rows = CsvParser.Parse(csv.ToString());
        Assert.Equal(["mergesort", "1", "0", "15", "0", "1"], rows[2]);

        var md = new StringWriter { NewLine = "\n" };
        PhaseReport.WriteMarkdown(md, [("mergesort", levels)], Samples.Stamp);
        string text = md.ToString();
        Assert.Contains("Split 5.0%, execute 75.0%, merge 20.0% of 20.0 ms.", text, StringComparison.Ordinal);
        Assert.Contains("| 1 | 0.00 | 15.00 | 0.00 | 75.0% | 1 |", text, StringComparison.Ordinal);
    }

    [Fact]
    public void Performance_chart_stacks_every_component()
    {
        PerformanceBreakdown inflated = PerformanceModel.Analyze(
            Enumerable.Range(0, 4).Select(i => new WorkerTimes(i, S(8), S(1), S(0.5))).ToArray(), S(10), S(24), S(7));
        PerformanceBreakdown faster = PerformanceModel.Analyze([new WorkerTimes(0, S(1), S(0), S(0))], S(1), S(2));

        StackedBarChart chart = PerformanceReport.Chart("Thread time", [("4 workers", inflated), ("1 worker", faster)]);
        Assert.Equal([24.0, 1], chart.Layers[0].Values);          // sequential work, capped at the work done
        Assert.Equal([8.0, 0], chart.Layers[1].Values);           // inflation; negative shows as 0
        Assert.Equal([2.0, 0], chart.Layers[4].Values);           // unaccounted

        var md = new StringWriter { NewLine = "\n" };
        PerformanceReport.WriteMarkdown(md, [("4 workers", inflated)]);
        Assert.Contains("| 4 workers | 4 | 10.0000 | 80.0% | 10.0% | 5.0% | 5.0% | 1.333 | 2.40 | 7.0000 | 70.0% |", md.ToString(), StringComparison.Ordinal);
    }
}
