using System.Text.Json;
using System.Xml.Linq;
using DivCon.Harness.Reports;
using DivCon.Harness.Reports.Charts;
using DivCon.Harness.Tests.Support;

namespace DivCon.Harness.Tests.Reports;

public sealed class ChartTests : IDisposable
{
    private static readonly XNamespace Svg = "http://www.w3.org/2000/svg";
    private readonly string _root = Path.Combine(Path.GetTempPath(), "divcon-chart-tests-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    private static XDocument Reparse(ISvgChart chart) => XDocument.Parse(chart.Render(Samples.Stamp).ToString());

    private static IEnumerable<XElement> WithClass(XDocument document, string name, string cssClass) =>
        document.Descendants(Svg + name).Where(e => (string?)e.Attribute("class") == cssClass);

    [Fact]
    public void Line_chart_has_one_group_per_series_markers_and_error_bars()
    {
        var chart = new LineChart("Time vs granularity", "Granularity (fraction of problem)", "Time (s)",
        [
            new LineSeries("quicksort", [new(1, 8), new(0.5, 4.1, 0.2), new(1.0 / 64, 0.5, 0.05)]),
            new LineSeries("mergesort", [new(1, 9), new(0.5, 5), new(1.0 / 64, 0.7)]),
            new LineSeries("pi", [new(1, 7), new(1.0 / 64, 0.3, 0.01)]),
        ], xScale: AxisScale.Log2, yScale: AxisScale.Log10);

        XDocument svg = Reparse(chart);
        Assert.Equal(Svg + "svg", svg.Root!.Name);
        Assert.Equal("Time vs granularity", svg.Root.Element(Svg + "title")!.Value);
        XElement[] series = WithClass(svg, "g", "series").ToArray();
        Assert.Equal(3, series.Length);
        Assert.Equal(["quicksort", "mergesort", "pi"], series.Select(s => (string)s.Attribute("data-series")!));
        Assert.Equal(8, WithClass(svg, "circle", "marker").Count());
        Assert.Equal(3, WithClass(svg, "g", "error-bar").Count());
        Assert.Equal(3, WithClass(svg, "g", "legend-item").Count());
        Assert.Equal(3, series[0].Element(Svg + "polyline")!.Attribute("points")!.Value.Split(' ').Length);
        // Log2 ticks from 1/64 to 1, labelled as fractions.
        string[] ticks = WithClass(svg, "g", "x-axis").Single().Elements(Svg + "text").Where(t => (string?)t.Attribute("class") == "tick-label").Select(t => t.Value).ToArray();
        Assert.Equal(["1/64", "1/32", "1/16", "1/8", "1/4", "1/2", "1"], ticks);
    }

    [Fact]
    public void Every_chart_carries_the_stamp_in_desc_metadata_and_footer()
    {
        var chart = new LineChart("t", "x", "y", [new LineSeries("s", [new(1, 1), new(2, 2)])]);
        XDocument svg = Reparse(chart);

        Assert.Contains("Commit: abc1234", svg.Root!.Element(Svg + "desc")!.Value, StringComparison.Ordinal);
        using JsonDocument metadata = JsonDocument.Parse(svg.Root.Element(Svg + "metadata")!.Value);
        Assert.Equal("Test CPU @ 3.0GHz", metadata.RootElement.GetProperty("cpuModel").GetString());
        Assert.Equal(2, WithClass(svg, "text", "stamp").Count());
        Assert.Contains(WithClass(svg, "text", "stamp"), t => t.Value.Contains("cyclic --scheme", StringComparison.Ordinal));

        XDocument unstamped = XDocument.Parse(chart.Render(null).ToString());
        Assert.Null(unstamped.Root!.Element(Svg + "desc"));
        Assert.Empty(WithClass(unstamped, "text", "stamp"));
    }

    [Fact]
    public void Grouped_bar_chart_has_a_bar_per_category_and_series_with_error_bars()
    {
        var chart = new GroupedBarChart("NTT per program", "NTT", ["quicksort", "mergesort", "strassen"],
        [
            new BarSeries("shared", [2.0, 1.5, 3.0], [0.2, double.NaN, 0.4]),
            new BarSeries("static", [1.8, 1.6, 2.5], [0.1, 0.1, 0.1]),
            new BarSeries("dynamic", [1.7, double.NaN, 2.4]),
        ], xLabel: "Program", referenceLine: 1);

        XDocument svg = Reparse(chart);
        XElement[] bars = WithClass(svg, "rect", "bar").ToArray();
        Assert.Equal(8, bars.Length); // 9 minus the missing one
        Assert.Equal(5, WithClass(svg, "g", "error-bar").Count());
        Assert.Single(WithClass(svg, "line", "reference-line"));
        Assert.Equal(3, WithClass(svg, "g", "legend-item").Count());
        // Taller value, taller bar.
        double Height(string series, string category) => double.Parse(
            bars.Single(b => (string?)b.Attribute("data-series") == series && (string?)b.Attribute("data-category") == category).Attribute("height")!.Value,
            System.Globalization.CultureInfo.InvariantCulture);
        Assert.True(Height("shared", "strassen") > Height("shared", "quicksort"));
        Assert.Equal(2.0 / 3.0, Height("shared", "quicksort") / Height("shared", "strassen"), 2);
    }

    [Fact]
    public void Stacked_bar_chart_has_a_segment_per_non_zero_value()
    {
        var chart = new StackedBarChart("Phases of mergesort", "Recursion level", "Cumulative time (ms)", ["0", "1", "2", "3"],
        [
            new StackSeries("split", [1, 2, 4, 0]),
            new StackSeries("execute", [0, 0, 0, 100]),
            new StackSeries("merge", [40, 30, 20, 0]),
        ]);

        XDocument svg = Reparse(chart);
        Assert.Equal(7, WithClass(svg, "rect", "segment").Count());
        Assert.Equal(3, WithClass(svg, "g", "legend-item").Count());
    }

    [Fact]
    public void Allocation_chart_has_one_area_per_program()
    {
        var chart = new AllocationChart("Cores per program (dynamic)", ["qs", "ms", "st"], 8,
        [
            new AllocationSample(TimeSpan.Zero, [3, 3, 2]),
            new AllocationSample(TimeSpan.FromSeconds(1.5), [4, 2, 2]),
            new AllocationSample(TimeSpan.FromSeconds(4), [0, 6, 2]),
        ], TimeSpan.FromSeconds(6));

        XDocument svg = Reparse(chart);
        XElement[] areas = WithClass(svg, "path", "area").ToArray();
        Assert.Equal(3, areas.Length);
        Assert.All(areas, a => Assert.EndsWith("Z", a.Attribute("d")!.Value, StringComparison.Ordinal));
        // Three samples give a step outline of 2 points per sample on each side.
        Assert.Equal(12, areas[0].Attribute("d")!.Value.Split(' ').Count(t => t.Contains(',', StringComparison.Ordinal)));
    }

    [Fact]
    public void Charts_reject_bad_input()
    {
        Assert.Throws<ArgumentException>(() => new LineChart("", "x", "y", [new LineSeries("s", [new(1, 1)])]));
        Assert.Throws<ArgumentException>(() => new LineChart("t", "x", "y", []));
        Assert.Throws<ArgumentException>(() => new LineChart("t", "x", "y", [new LineSeries("s", [])]));
        Assert.Throws<ArgumentException>(() => new LineChart("t", "x", "y", [new LineSeries("s", [new(0, 1)])], xScale: AxisScale.Log2));
        Assert.Throws<ArgumentException>(() => new LineChart("t", "x", "y", [new LineSeries("s", [new(1, double.NaN)])]));
        Assert.Throws<ArgumentException>(() => new GroupedBarChart("t", "y", ["a", "b"], [new BarSeries("s", [1.0])]));
        Assert.Throws<ArgumentException>(() => new GroupedBarChart("t", "y", ["a"], [new BarSeries("s", [-1.0])]));
        Assert.Throws<ArgumentException>(() => new GroupedBarChart("t", "y", [], [new BarSeries("s", [])]));
        Assert.Throws<ArgumentException>(() => new StackedBarChart("t", "x", "y", ["a"], [new StackSeries("s", [double.NaN])]));
        Assert.Throws<ArgumentException>(() => new AllocationChart("t", ["a"], 2, [new AllocationSample(TimeSpan.Zero, [3])], TimeSpan.FromSeconds(1)));
        Assert.Throws<ArgumentException>(() => new AllocationChart("t", ["a"], 2,
            [new AllocationSample(TimeSpan.FromSeconds(2), [1]), new AllocationSample(TimeSpan.FromSeconds(1), [1])], TimeSpan.FromSeconds(3)));
        Assert.Throws<ArgumentException>(() => new AllocationChart("t", ["a"], 2, [new AllocationSample(TimeSpan.FromSeconds(2), [1])], TimeSpan.FromSeconds(1)));
        Assert.Throws<ArgumentOutOfRangeException>(() => new LineChart("t", "x", "y", [new LineSeries("s", [new(1, 1)])], width: 10));
    }

    [Fact]
    public void Saved_files_are_well_formed_svg()
    {
        ResultsFolder folder = ResultsFolder.Create(_root, "charts", Samples.Stamp);
        string path = SvgFile.Save(folder, "ntt.svg", new GroupedBarChart("NTT", "NTT", ["a"], [new BarSeries("s", [1.5], [0.1])]));

        XDocument svg = XDocument.Load(path);
        Assert.Equal(Svg + "svg", svg.Root!.Name);
        Assert.Single(WithClass(svg, "rect", "bar"));
    }
}
