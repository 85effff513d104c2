using System.Globalization;
using OxyPlot;
using OxyPlot.Axes;
using OxyPlot.Series;

namespace DivCon.Harness.Reports;
/// <summary>
/// A line chart with markers and optional error bars: execution time against granularity (log2 x axis,
/// often log10 y), speedup against cores with one line per program, and similar.
/// </summary>
/// <remarks>
/// Each series is an OxyPlot line with circle markers, named in the legend; points with a positive half-width
/// get an error bar in the series' colour. Logarithmic axes need positive values.
/// <example><code>
/// var chart = new LineChart("Speedup vs cores", "Cores", "Speedup",
///     [new LineSeries("quicksort", [new(1, 1), new(2, 1.9), new(4, 3.5)])], xScale: AxisScale.Log2);
/// SvgFile.Save(folder, "speedup.svg", chart);
/// </code></example>
/// </remarks>
public sealed class LineChart : SvgChart
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
        : base(title, width, height)
    {
        ArgumentNullException.ThrowIfNull(series);
        ChartStyle.RequireValues(series.Count > 0, "A line chart needs at least one series.", nameof(series));
        foreach (LineSeries s in series)
        {
            ChartStyle.RequireValues(s?.Points is { Count: > 0 }, $"Series '{s?.Name}' has no points.", nameof(series));
            foreach (ChartPoint p in s!.Points)
            {
                ChartStyle.RequireValues(double.IsFinite(p.X) && double.IsFinite(p.Y) && p.ErrorHalfWidth >= 0,
                    $"Series '{s.Name}' has a bad point {p}.", nameof(series));
                ChartStyle.RequireValues((xScale == AxisScale.Linear || p.X > 0) && (yScale == AxisScale.Linear || p.Y > 0),
                    $"Series '{s.Name}' has point {p}, which a logarithmic axis cannot show.", nameof(series));
            }
        }

        XLabel = xLabel ?? string.Empty;
        YLabel = yLabel ?? string.Empty;
        Series = series;
        XScale = xScale;
        YScale = yScale;
        XTickFormat = xTickFormat;
        DescendingX = descendingX;
    }

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

    /// <inheritdoc/>
    public override PlotModel ToPlotModel()
    {
        PlotModel model = ChartStyle.Model(Title);
        Axis x = ChartStyle.ValueAxis(AxisPosition.Bottom, XLabel, XScale);
        x.LabelFormatter = XTickFormat ?? (XScale == AxisScale.Log2 ? FractionLabel : null);
        if (DescendingX)
        {
            x.StartPosition = 1;
            x.EndPosition = 0;
        }

        bool nonNegative = Series.All(s => s.Points.All(p => p.Y >= 0));
        model.Axes.Add(x);
        model.Axes.Add(ChartStyle.ValueAxis(AxisPosition.Left, YLabel, YScale, startAtZero: YScale == AxisScale.Linear && nonNegative));
        for (int i = 0; i < Series.Count; i++)
        {
            OxyColor color = ChartStyle.Color(i);
            ChartPoint[] points = Series[i].Points.OrderBy(p => p.X).ToArray();
            var line = new OxyPlot.Series.LineSeries
            {
                Title = Series[i].Name,
                Color = color,
                StrokeThickness = 2,
                MarkerType = MarkerType.Circle,
                MarkerSize = 3.5,
                MarkerFill = color,
            };
            line.Points.AddRange(points.Select(p => new DataPoint(p.X, p.Y)));
            model.Series.Add(line);

            ChartPoint[] withError = points.Where(p => p.ErrorHalfWidth > 0).ToArray();
            if (withError.Length > 0)
            {
                var errors = new ScatterErrorSeries
                {
                    RenderInLegend = false,
                    MarkerType = MarkerType.None,
                    ErrorBarColor = color,
                    ErrorBarStopWidth = 4,
                    ErrorBarStrokeThickness = 1.2,
                };
                // A logarithmic axis cannot show a bar reaching zero: stop it just above.
                errors.Points.AddRange(withError.Select(p => new ScatterErrorPoint(p.X, p.Y, 0,
                    YScale == AxisScale.Linear ? p.ErrorHalfWidth : Math.Min(p.ErrorHalfWidth, p.Y * 0.99))));
                model.Series.Add(errors);
            }
        }

        return model;
    }

    /// <summary>Labels powers of two below 1 as fractions ("1/64"), others as numbers.</summary>
    private static string FractionLabel(double value) => value < 1
        ? string.Create(CultureInfo.InvariantCulture, $"1/{Math.Round(1 / value):0}")
        : value.ToString("G4", CultureInfo.InvariantCulture);
}
