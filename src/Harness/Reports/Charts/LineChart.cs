using System.Globalization;
using System.Xml.Linq;
using DivCon.Harness.Machine;

namespace DivCon.Harness.Reports.Charts;

/// <summary>
/// A line chart with markers and optional error bars: execution time against granularity (log2 x axis,
/// often log10 y), speedup against cores with one line per program, and similar.
/// </summary>
/// <remarks>
/// Each series is an SVG <c>&lt;g class="series"&gt;</c> holding a <c>&lt;polyline&gt;</c>, one
/// <c>&lt;circle class="marker"&gt;</c> per point and a <c>&lt;g class="error-bar"&gt;</c> per point with a
/// positive error. Logarithmic axes need positive values.
/// <example><code>
/// var chart = new LineChart("Speedup vs cores", "Cores", "Speedup",
///     [new LineSeries("quicksort", [new(1, 1), new(2, 1.9), new(4, 3.5)])], xScale: AxisScale.Log2);
/// SvgFile.Save(folder, "speedup.svg", chart);
/// </code></example>
/// </remarks>
public sealed class LineChart : ISvgChart
{
    /// <summary>Creates the chart.</summary>
    /// <param name="title">Title.</param>
    /// <param name="xLabel">X axis title.</param>
    /// <param name="yLabel">Y axis title.</param>
    /// <param name="series">At least one series, each with at least one point; all values finite.</param>
    /// <param name="xScale">X axis scale.</param>
    /// <param name="yScale">Y axis scale.</param>
    /// <param name="xTickFormat">Tick label formatter for X (null: numbers, "1/k" below 1 on log2).</param>
    /// <param name="descendingX">Draw X from largest (left) to smallest (right), e.g. granularity from the whole problem down.</param>
    /// <param name="width">Width in pixels.</param>
    /// <param name="height">Height in pixels.</param>
    /// <exception cref="ArgumentException">Empty title or series, a non-finite value, or a non-positive value on a log axis.</exception>
    public LineChart(
        string title, string xLabel, string yLabel, IReadOnlyList<LineSeries> series,
        AxisScale xScale = AxisScale.Linear, AxisScale yScale = AxisScale.Linear,
        Func<double, string>? xTickFormat = null, bool descendingX = false, int width = 900, int height = 540)
    {
        ChartValidation.Title(title, nameof(title));
        ChartValidation.Size(width, height);
        ArgumentNullException.ThrowIfNull(series);
        if (series.Count == 0)
        {
            throw new ArgumentException("A line chart needs at least one series.", nameof(series));
        }

        foreach (LineSeries s in series)
        {
            if (s is null || s.Points is null || s.Points.Count == 0)
            {
                throw new ArgumentException($"Series '{s?.Name}' has no points.", nameof(series));
            }

            foreach (ChartPoint p in s.Points)
            {
                if (!double.IsFinite(p.X) || !double.IsFinite(p.Y) || p.ErrorHalfWidth < 0)
                {
                    throw new ArgumentException($"Series '{s.Name}' has a bad point {p}.", nameof(series));
                }

                if ((xScale != AxisScale.Linear && p.X <= 0) || (yScale != AxisScale.Linear && p.Y <= 0))
                {
                    throw new ArgumentException($"Series '{s.Name}' has point {p}, which a logarithmic axis cannot show.", nameof(series));
                }
            }
        }

        Title = title;
        XLabel = xLabel ?? string.Empty;
        YLabel = yLabel ?? string.Empty;
        Series = series;
        XScale = xScale;
        YScale = yScale;
        XTickFormat = xTickFormat;
        DescendingX = descendingX;
        Width = width;
        Height = height;
    }

    /// <inheritdoc/>
    public string Title { get; }

    /// <summary>X axis title.</summary>
    public string XLabel { get; }

    /// <summary>Y axis title.</summary>
    public string YLabel { get; }

    /// <summary>The series.</summary>
    public IReadOnlyList<LineSeries> Series { get; }

    /// <summary>X axis scale.</summary>
    public AxisScale XScale { get; }

    /// <summary>Y axis scale.</summary>
    public AxisScale YScale { get; }

    /// <summary>X tick formatter, or null for the default.</summary>
    public Func<double, string>? XTickFormat { get; }

    /// <summary>Whether X runs from largest (left) to smallest (right).</summary>
    public bool DescendingX { get; }

    /// <summary>Width in pixels.</summary>
    public int Width { get; }

    /// <summary>Height in pixels.</summary>
    public int Height { get; }

    /// <inheritdoc/>
    public XDocument Render(RunStamp? stamp)
    {
        var canvas = new SvgCanvas(Width, Height, Title, stamp);
        PlotArea area = canvas.Area;
        ChartPoint[] all = Series.SelectMany(s => s.Points).ToArray();
        double Err(ChartPoint p) => double.IsFinite(p.ErrorHalfWidth) ? p.ErrorHalfWidth : 0;
        double yMin = all.Min(p => YScale == AxisScale.Linear ? p.Y - Err(p) : p.Y);
        double yMax = all.Max(p => p.Y + Err(p));
        (double xStart, double xEnd) = DescendingX ? (area.Right, area.Left) : (area.Left, area.Right);
        var x = new ChartAxis(XScale, all.Min(p => p.X), all.Max(p => p.X), xStart, xEnd, includeZero: false, XTickFormat);
        var y = new ChartAxis(YScale, yMin, yMax, area.Bottom, area.Top, includeZero: YScale == AxisScale.Linear && yMin >= 0);
        canvas.DrawXAxis(x, XLabel);
        canvas.DrawYAxis(y, YLabel);

        for (int i = 0; i < Series.Count; i++)
        {
            LineSeries series = Series[i];
            string color = ChartPalette.Color(i);
            var group = new XElement(SvgCanvas.Svg + "g", new XAttribute("class", "series"), new XAttribute("data-series", series.Name));
            ChartPoint[] points = series.Points.OrderBy(p => p.X).ToArray();
            group.Add(new XElement(SvgCanvas.Svg + "polyline",
                new XAttribute("class", "line"),
                new XAttribute("fill", "none"),
                new XAttribute("stroke", color),
                new XAttribute("stroke-width", "2"),
                new XAttribute("points", string.Join(" ", points.Select(p => $"{SvgCanvas.N(x.Map(p.X))},{SvgCanvas.N(y.Map(p.Y))}")))));
            foreach (ChartPoint p in points)
            {
                double px = x.Map(p.X), py = y.Map(p.Y);
                double err = Err(p);
                if (err > 0)
                {
                    double low = YScale == AxisScale.Linear ? p.Y - err : Math.Max(p.Y - err, y.Min);
                    group.Add(SvgCanvas.ErrorBar(px, y.Map(low), y.Map(p.Y + err), 4));
                }

                group.Add(new XElement(SvgCanvas.Svg + "circle",
                    new XAttribute("class", "marker"),
                    new XAttribute("cx", SvgCanvas.N(px)), new XAttribute("cy", SvgCanvas.N(py)),
                    new XAttribute("r", "3.5"), new XAttribute("fill", color),
                    new XElement(SvgCanvas.Svg + "title", string.Create(CultureInfo.InvariantCulture, $"{series.Name}: ({p.X:G6}, {p.Y:G6})"))));
            }

            canvas.Add(group);
        }

        canvas.DrawLegend(Series.Select((s, i) => (s.Name, ChartPalette.Color(i))).ToArray(), lines: true);
        return canvas.ToDocument();
    }
}
