using System.Xml.Linq;
using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using DivCon.Harness.Tests.Support;

namespace DivCon.Harness.Tests.Reports;

public class PerformanceReportTests
{
    private static TimeSpan S(double seconds) => TimeSpan.FromSeconds(seconds);

    [Fact]
    public void Phase_chart_csv_and_markdown_cover_every_level()
    {
        PhaseLevelTimes[] levels =
        [
            new(0, S(0.001), TimeSpan.Zero, S(0.004), 1, 0, 1),
            new(1, TimeSpan.Zero, S(0.015), TimeSpan.Zero, 0, 1, 0),
        ];

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
        Assert.DoesNotContain("Performance model", text, StringComparison.Ordinal);
    }

    [Fact]
    public void Performance_tables_and_charts_carry_every_component()
    {
        PerformanceBreakdown inflated = PerformanceModel.Analyze(4, S(10), S(32), S(36), S(30), S(24), S(7));
        PerformanceBreakdown one = PerformanceModel.Analyze(1, S(30), S(24), S(28), S(30), S(24), S(7));
        (string, PerformanceBreakdown)[] rows = [("qs", one), ("qs", inflated)];
        (string, PerformanceBreakdown)[] labelled = rows.Select(r => (PerformanceReport.Label(r.Item1, r.Item2), r.Item2)).ToArray();

        StackedBarChart chart = PerformanceReport.Chart("Thread time", labelled);
        Assert.Equal(["qs, P=1", "qs, P=4"], chart.Categories);
        Assert.Equal([24.0, 24], chart.Layers[0].Values);   // work as on one worker
        Assert.Equal([0.0, 8], chart.Layers[1].Values);     // inflation
        Assert.Equal([4.0, 4], chart.Layers[2].Values);     // overhead
        Assert.Equal([2.0, 4], chart.Layers[3].Values);     // idle

        GroupedBarChart bound = PerformanceReport.BoundChart("Bound", labelled);
        Assert.Equal([30.0, 10], bound.Series[0].Values);   // T_P
        Assert.Equal([30.0, 7.5], bound.Series[1].Values);  // T_1 / P
        Assert.Equal([7.0, 7], bound.Series[2].Values);     // span
        string[] texts = XDocument.Parse(bound.Render(Samples.Stamp).ToString()).Descendants().Where(e => e.Name.LocalName == "text").Select(e => e.Value).ToArray();
        Assert.All(["T_P (measured)", "T_1 / P", "T_∞ (span)", "qs, P=4", "Time (s)"], t => Assert.Contains(t, texts));

        var csv = new StringWriter();
        PerformanceReport.WriteCsv(csv, rows);
        List<List<string>> table = CsvParser.Parse(csv.ToString());
        Assert.Equal(["program", "workers", "t_p_s", "t_1_s", "t_1_over_p_s", "span_s", "bound_s", "bound_over_t_p", "speedup",
            "work_s", "work_1_s", "inflation_ratio", "overhead_s", "idle_s", "unaccounted_s", "flags"], table[0]);
        Assert.Equal(["qs", "4", "10", "30", "7.5", "7", "7.5", "0.75", "3", "32", "24", "1.3333333333333333", "4", "4", "0", ""], table[2]);

        var md = new StringWriter { NewLine = "\n" };
        PerformanceReport.WriteMarkdown(md, [("qs", inflated)]);
        Assert.Contains("| qs | 4 | 10.0000 | 7.5000 | 7.0000 | 75.0% | 3.00 | 80.0% | 10.0% | 10.0% | 0.0% | 1.333 |", md.ToString(), StringComparison.Ordinal);
    }
}
