using System.Xml.Linq;
using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using DivCon.Harness.Tests.Support;
using OxyPlot;
using OxyPlot.Annotations;
using OxyPlot.Series;

namespace DivCon.Harness.Tests.Reports;

public class MultiprogramChartsTests
{
    private static readonly XNamespace Svg = "http://www.w3.org/2000/svg";

    private static ErrorBarItem[] Bars(GroupedBarChart chart) =>
        chart.ToPlotModel().Series.OfType<ErrorBarSeries>().SelectMany(s => s.Items).Cast<ErrorBarItem>().ToArray();

    private static string[] Texts(GroupedBarChart chart) =>
        XDocument.Parse(chart.Render(Samples.Stamp).ToString()).Descendants(Svg + "text").Select(t => t.Value).ToArray();

    [Fact]
    public void Per_program_charts_have_programs_times_schemes_bars()
    {
        GroupedBarChart ntt = MultiprogramCharts.Ntt("2-program", Samples.TwoSchemes());

        Assert.Equal(["quicksort", "mergesort"], ntt.Categories);
        Assert.Equal(["shared", "static | partition"], ntt.Series.Select(s => s.Name));
        Assert.Equal(4, Bars(ntt).Length);
        Assert.Equal(1.0, ntt.ReferenceLine);
        Assert.All(["quicksort", "mergesort", "shared", "static | partition"], t => Assert.Contains(t, Texts(ntt)));
        Assert.Equal(4, Bars(MultiprogramCharts.Np("2-program", Samples.TwoSchemes())).Length);
    }

    [Fact]
    public void Per_scheme_charts_colour_each_scheme_and_mark_the_oracle()
    {
        var oracle = new OracleResult(2, [new PartitionShare("quicksort", 1, 0.7), new PartitionShare("mergesort", 1, 0.7)], 1.4);
        GroupedBarChart stp = MultiprogramCharts.Stp("2-program", Samples.TwoSchemes(), oracle);

        ErrorBarItem[] bars = Bars(stp);
        Assert.Equal(2, bars.Length);
        Assert.NotEqual(bars[0].Color, bars[1].Color);
        Assert.Equal(1.4, stp.ReferenceLine);
        LineAnnotation line = Assert.IsType<LineAnnotation>(Assert.Single(stp.ToPlotModel().Annotations));
        Assert.Equal(1.4, line.Y);
        Assert.Equal(2, Texts(stp).Count(t => t == "shared")); // axis label and legend entry
        Assert.Equal(2, Bars(MultiprogramCharts.Antt("w", Samples.TwoSchemes())).Length);
        Assert.Equal(2, Bars(MultiprogramCharts.Mntt("w", Samples.TwoSchemes())).Length);
        Assert.Throws<ArgumentException>(() => MultiprogramCharts.Antt("w", []));
    }
}
