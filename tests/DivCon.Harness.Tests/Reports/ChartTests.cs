using System.Text.Json;
using System.Xml.Linq;
using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using DivCon.Harness.Tests.Support;
using DivCon.Harness.Workload;
using OxyPlot;
using OxyPlot.Axes;

namespace DivCon.Harness.Tests.Reports;

/// <summary>The charts as files: valid SVG, stamped, with the titles, series and ticks a reader needs.</summary>
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

    /// <summary>Saves the chart as a file in a stamped results folder and parses the file back.</summary>
    private XDocument SaveAndLoad(ISvgChart chart)
    {
        ResultsFolder folder = ResultsFolder.Create(_root, "charts", Samples.Stamp);
        string path = SvgFile.Save(folder, "chart.svg", chart);
        XDocument svg = XDocument.Load(path);
        Assert.Equal(Svg + "svg", svg.Root!.Name);
        Assert.Equal("900", (string?)svg.Root.Attribute("width"));
        Assert.Equal(chart.Title, svg.Root.Element(Svg + "title")!.Value);
        Assert.DoesNotContain(Texts(svg), t => t.Contains("exception", StringComparison.OrdinalIgnoreCase));
        return svg;
    }

    private static string[] Texts(XDocument svg) => svg.Descendants(Svg + "text").Select(t => t.Value).ToArray();

    /// <summary>Fill colours of the drawn rectangles, as OxyPlot writes them into the style attribute.</summary>
    private static int RectanglesFilled(XDocument svg, string rgb) =>
        svg.Descendants(Svg + "rect").Count(r => ((string?)r.Attribute("style") ?? "").Contains($"fill:rgb({rgb})", StringComparison.Ordinal));

    [Fact]
    public void Line_chart_names_its_series_and_axes_and_labels_log2_ticks_as_fractions()
    {
        var chart = new LineChart("Time vs granularity", "Granularity (fraction of problem)", "Time (s)",
        [
            new LineSeries("quicksort", [new(1, 8), new(0.5, 4.1, 0.2), new(1.0 / 64, 0.5, 0.05)]),
            new LineSeries("mergesort", [new(1, 9), new(0.5, 5), new(1.0 / 64, 0.7)]),
            new LineSeries("pi", [new(1, 7), new(1.0 / 64, 0.3, 0.01)]),
        ], xScale: AxisScale.Log2, yScale: AxisScale.Log10, descendingX: true);

        XDocument svg = SaveAndLoad(chart);
        string[] texts = Texts(svg);
        Assert.Contains("Time vs granularity", texts);
        Assert.Contains("Granularity (fraction of problem)", texts);
        Assert.Contains("Time (s)", texts);
        Assert.Equal(1, texts.Count(t => t == "quicksort"));      // one legend entry each; error bars have none
        Assert.Contains("mergesort", texts);
        Assert.Contains("pi", texts);
        Assert.True(Array.IndexOf(texts, "1/64") >= 0 && Array.IndexOf(texts, "1/2") >= 0, string.Join("|", texts));

        PlotModel model = chart.ToPlotModel();
        Assert.Equal(3, model.Series.OfType<OxyPlot.Series.LineSeries>().Count());
        Assert.Equal(2, model.Series.OfType<OxyPlot.Series.ScatterErrorSeries>().Count()); // mergesort has no error
        Assert.Equal([1.0 / 64, 0.5, 1], model.Series.OfType<OxyPlot.Series.LineSeries>().First().Points.Select(p => p.X));
        LogarithmicAxis x = Assert.IsType<LogarithmicAxis>(model.Axes.Single(a => a.Position == AxisPosition.Bottom));
        Assert.Equal(2, x.Base);
        Assert.True(x.StartPosition > x.EndPosition); // descending: the whole problem on the left
    }

    [Fact]
    public void Every_chart_carries_the_stamp_in_desc_metadata_and_footer()
    {
        var chart = new LineChart("t", "x", "y", [new LineSeries("s", [new(1, 1), new(2, 2)])]);
        XDocument svg = XDocument.Parse(chart.Render(Samples.Stamp).ToString());

        Assert.Contains("Commit: abc1234", svg.Root!.Element(Svg + "desc")!.Value, StringComparison.Ordinal);
        using JsonDocument metadata = JsonDocument.Parse(svg.Root.Element(Svg + "metadata")!.Value);
        Assert.Equal("Test CPU @ 3.0GHz", metadata.RootElement.GetProperty("cpuModel").GetString());
        XElement[] footer = svg.Descendants(Svg + "text").Where(t => (string?)t.Attribute("class") == "stamp").ToArray();
        Assert.Equal(2, footer.Length);
        Assert.StartsWith("DivCon abc1234", footer[0].Value, StringComparison.Ordinal);
        Assert.Equal("$ dotnet run --project src/Harness -- cyclic --scheme 'a b'", footer[1].Value);

        XDocument unstamped = XDocument.Parse(chart.Render(null).ToString());
        Assert.Null(unstamped.Root!.Element(Svg + "desc"));
        Assert.Null(unstamped.Root.Element(Svg + "metadata"));
        Assert.DoesNotContain(unstamped.Descendants(Svg + "text"), t => t.Value.Contains("abc1234", StringComparison.Ordinal));
    }

    [Fact]
    public void Grouped_bar_chart_draws_a_bar_per_value_with_heights_in_proportion()
    {
        var chart = new GroupedBarChart("NTT per program", "NTT", ["quicksort", "mergesort", "strassen"],
        [
            new BarSeries("shared", [2.0, 1.5, 3.0], [0.2, double.NaN, 0.4]),
            new BarSeries("static", [1.8, 1.6, 2.5], [0.1, 0.1, 0.1]),
            new BarSeries("dynamic", [1.7, double.NaN, 2.4]),
        ], xLabel: "Program", referenceLine: 1);

        XDocument svg = SaveAndLoad(chart);
        string[] texts = Texts(svg);
        Assert.Contains("NTT", texts);
        Assert.Contains("Program", texts);
        Assert.All(["quicksort", "mergesort", "strassen", "shared", "static", "dynamic"], name => Assert.Contains(name, texts));
        // Bars plus one legend swatch per series, in the series' colour; dynamic misses mergesort.
        Assert.Equal(3 + 1, RectanglesFilled(svg, "0,114,178"));
        Assert.Equal(3 + 1, RectanglesFilled(svg, "230,159,0"));
        Assert.Equal(2 + 1, RectanglesFilled(svg, "0,158,115"));

        // Taller value, taller bar: shared's bars (3.0, 2.0, 1.5) above its legend swatch.
        double[] heights = svg.Descendants(Svg + "rect")
            .Where(r => ((string?)r.Attribute("style") ?? "").Contains("fill:rgb(0,114,178)", StringComparison.Ordinal))
            .Select(r => double.Parse((string)r.Attribute("height")!, System.Globalization.CultureInfo.InvariantCulture))
            .OrderDescending().ToArray();
        Assert.Equal(2.0 / 3.0, heights[1] / heights[0], 2);
        Assert.Equal(1.5 / 3.0, heights[2] / heights[0], 2);

        PlotModel model = chart.ToPlotModel();
        var shared = (OxyPlot.Series.ErrorBarSeries)model.Series[0];
        Assert.Equal([0.2, 0, 0.4], shared.Items.Cast<OxyPlot.Series.ErrorBarItem>().Select(i => i.Error));
        Assert.Single(model.Annotations);
    }

    [Fact]
    public void Per_scheme_bars_take_the_category_colours_and_name_them_in_the_legend()
    {
        var chart = new GroupedBarChart("STP", "STP", ["shared", "static"], [new BarSeries("STP", [1.2, 1.5], [0.1, 0.1])], colorByCategory: true);
        XDocument svg = SaveAndLoad(chart);
        Assert.Equal(1, RectanglesFilled(svg, "0,114,178"));   // shared's bar (its legend swatch is a line)
        Assert.Equal(1, RectanglesFilled(svg, "230,159,0"));   // static's bar
        Assert.Equal(2, Texts(svg).Count(t => t == "shared")); // axis label and legend entry
    }

    [Fact]
    public void Move_latency_chart_draws_percentiles_per_scheme_on_a_log_axis_from_a_floor_below_the_smallest()
    {
        GroupedBarChart chart = MultiprogramCharts.MoveLatency("demo",
        [
            new MoveLatencySummary("static", 40, 40, 0.05, 0.4, 2.5, 30),
            new MoveLatencySummary("dynamic", 12, 10, 0.08, 0.9, 0, 12),  // p99 below the clock's resolution: no bar
            new MoveLatencySummary("hill-climbing", 3, 0, double.NaN, double.NaN, double.NaN, double.NaN), // nothing arrived
        ]);

        XDocument svg = SaveAndLoad(chart);
        string[] texts = Texts(svg);
        Assert.All(["static", "dynamic", "hill-climbing", "p50", "p95", "p99", "max", "Latency (ms)"], t => Assert.Contains(t, texts));
        Assert.Equal(2 + 1, RectanglesFilled(svg, "0,114,178"));  // p50: static, dynamic, and its legend swatch
        Assert.Equal(1 + 1, RectanglesFilled(svg, "0,158,115"));  // p99: static only
        // Bars stand on the floor (0.01 ms), so heights go with log(value / floor): max of static (30) against p50 of dynamic (0.08).
        double Tallest(string rgb) => svg.Descendants(Svg + "rect")
            .Where(r => ((string?)r.Attribute("style") ?? "").Contains($"fill:rgb({rgb})", StringComparison.Ordinal))
            .Max(r => double.Parse((string)r.Attribute("height")!, System.Globalization.CultureInfo.InvariantCulture));
        Assert.Equal(Math.Log10(30 / 0.01) / Math.Log10(0.08 / 0.01), Tallest("213,94,0") / Tallest("0,114,178"), 1);

        PlotModel model = chart.ToPlotModel();
        LogarithmicAxis y = Assert.IsType<LogarithmicAxis>(model.Axes.Single(a => a.Position == AxisPosition.Left));
        Assert.Equal(10, y.Base);
        Assert.Equal(0.01, y.Minimum, 12); // the power of ten below the smallest value, 0.05
        var series = model.Series.OfType<OxyPlot.Series.ErrorBarSeries>().ToArray();
        Assert.Equal(["p50", "p95", "p99", "max"], series.Select(s => s.Title));
        Assert.All(series, s => Assert.Equal(0.01, s.BaseValue, 12));
        Assert.Equal([30.0, 12], series[3].Items.Cast<OxyPlot.Series.ErrorBarItem>().Select(i => i.Value));
        Assert.Throws<ArgumentException>(() => MultiprogramCharts.MoveLatency("demo", []));
    }

    [Fact]
    public void A_bar_chart_on_a_log_axis_refuses_zero_and_shows_an_empty_chart_when_nothing_is_left()
    {
        Assert.Throws<ArgumentException>(() => new GroupedBarChart("t", "y", ["a"], [new BarSeries("s", [0.0])], yScale: AxisScale.Log10));
        var empty = new GroupedBarChart("t", "y", ["a"], [new BarSeries("s", [double.NaN])], yScale: AxisScale.Log10);
        XDocument svg = SaveAndLoad(empty);
        Assert.Equal(0, RectanglesFilled(svg, "0,114,178") - 1); // only the legend swatch
    }

    [Fact]
    public void Stacked_bar_chart_draws_a_segment_per_non_zero_value()
    {
        var chart = new StackedBarChart("Phases of mergesort", "Recursion level", "Cumulative time (ms)", ["0", "1", "2", "3"],
        [
            new StackSeries("split", [1, 2, 4, 0]),
            new StackSeries("execute", [0, 0, 0, 100]),
            new StackSeries("merge", [40, 30, 20, 0]),
        ]);

        XDocument svg = SaveAndLoad(chart);
        string[] texts = Texts(svg);
        Assert.All(["Recursion level", "Cumulative time (ms)", "split", "execute", "merge"], t => Assert.Contains(t, texts));
        Assert.Equal(3 + 1, RectanglesFilled(svg, "0,114,178"));  // split: three segments and a swatch
        Assert.Equal(1 + 1, RectanglesFilled(svg, "230,159,0"));  // execute
        Assert.Equal(3 + 1, RectanglesFilled(svg, "0,158,115"));  // merge
    }

    [Fact]
    public void Allocation_chart_draws_one_band_per_program_as_steps()
    {
        var chart = new AllocationChart("Cores per program (dynamic)", ["qs", "ms", "st"], 8,
        [
            new AllocationSample(TimeSpan.Zero, [3, 3, 2]),
            new AllocationSample(TimeSpan.FromSeconds(1.5), [4, 2, 2]),
            new AllocationSample(TimeSpan.FromSeconds(4), [0, 6, 2]),
        ], TimeSpan.FromSeconds(6));

        XDocument svg = SaveAndLoad(chart);
        string[] texts = Texts(svg);
        Assert.All(["Time (s)", "Cores", "qs", "ms", "st"], t => Assert.Contains(t, texts));

        PlotModel model = chart.ToPlotModel();
        var bands = model.Series.OfType<OxyPlot.Series.AreaSeries>().ToArray();
        Assert.Equal(3, bands.Length);
        // The middle band (ms) sits on qs: from 3 to 6 cores, then 4 to 6, then 0 to 6, two points per sample.
        Assert.Equal([6.0, 6, 6, 6, 6, 6], bands[1].Points.Select(p => p.Y));
        Assert.Equal([3.0, 3, 4, 4, 0, 0], bands[1].Points2.Select(p => p.Y));
        Assert.Equal([0.0, 1.5, 1.5, 4, 4, 6], bands[1].Points.Select(p => p.X));
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
    public void A_model_oxyplot_cannot_draw_fails_instead_of_saving_its_error_as_a_chart()
    {
        var model = new PlotModel { Title = "broken" };
        model.Axes.Add(new CategoryAxis { Position = AxisPosition.Bottom });
        model.Axes.Add(new LinearAxis { Position = AxisPosition.Left });
        model.Series.Add(new OxyPlot.Series.BarSeries { Items = { new OxyPlot.Series.BarItem(1, 0) } }); // bars need their category axis as Y axis
        Assert.Throws<InvalidOperationException>(() => SvgFile.Render(model, 900, 540, Samples.Stamp));
    }
}
