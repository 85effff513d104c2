using System.Xml.Linq;
using DivCon.Harness.Oracle;
using DivCon.Harness.Reports;
using DivCon.Harness.Reports.Charts;
using DivCon.Harness.Tests.Support;

namespace DivCon.Harness.Tests.Reports;

public class MultiprogramChartsTests
{
    private static XElement[] Elements(GroupedBarChart chart, string cssClass) =>
        XDocument.Parse(chart.Render(Samples.Stamp).ToString()).Descendants().Where(e => (string?)e.Attribute("class") == cssClass).ToArray();

    [Fact]
    public void Per_program_charts_have_programs_times_schemes_bars()
    {
        GroupedBarChart ntt = MultiprogramCharts.Ntt("2-program", Samples.TwoSchemes());

        Assert.Equal(["quicksort", "mergesort"], ntt.Categories);
        Assert.Equal(["shared", "static | partition"], ntt.Series.Select(s => s.Name));
        Assert.Equal(4, Elements(ntt, "bar").Length);
        Assert.Equal(1.0, ntt.ReferenceLine);
        Assert.Equal(4, Elements(MultiprogramCharts.Np("2-program", Samples.TwoSchemes()), "bar").Length);
    }

    [Fact]
    public void Per_scheme_charts_colour_each_scheme_and_mark_the_oracle()
    {
        var oracle = new OracleResult(2, [new PartitionShare("quicksort", 1, 0.7), new PartitionShare("mergesort", 1, 0.7)], 1.4);
        GroupedBarChart stp = MultiprogramCharts.Stp("2-program", Samples.TwoSchemes(), oracle);

        XElement[] bars = Elements(stp, "bar");
        Assert.Equal(2, bars.Length);
        Assert.NotEqual((string?)bars[0].Attribute("fill"), (string?)bars[1].Attribute("fill"));
        Assert.Equal(2, Elements(stp, "legend-item").Length);
        Assert.Equal(1.4, stp.ReferenceLine);
        Assert.Single(Elements(stp, "reference-line"));
        Assert.Equal(2, Elements(MultiprogramCharts.Antt("w", Samples.TwoSchemes()), "bar").Length);
        Assert.Equal(2, Elements(MultiprogramCharts.Mntt("w", Samples.TwoSchemes()), "bar").Length);
        Assert.Throws<ArgumentException>(() => MultiprogramCharts.Antt("w", []));
    }
}
