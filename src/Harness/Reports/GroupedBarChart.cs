using OxyPlot;
using OxyPlot.Annotations;
using OxyPlot.Axes;
using OxyPlot.Series;

namespace DivCon.Harness.Reports;
/// <summary>
/// Bars grouped by category, one bar per series in each group, with error bars: NTT or NP per program
/// (categories) per scheme (series), or ANTT/STP per scheme (one category per scheme, one series).
/// </summary>
/// <remarks>
/// The value axis starts at zero, or, on a logarithmic value axis (values spanning decades, such as latency
/// percentiles), at the power of ten just below the smallest value, where the bars stand. An optional dashed horizontal reference line marks a meaningful level
/// (NTT = 1: no slowdown; the oracle's STP).
/// </remarks>
public sealed class GroupedBarChart : SvgChart
{
    /// <summary>Creates the chart.</summary>
    /// <param name="title">Title.</param>
    /// <param name="yLabel">Y axis title.</param>
    /// <param name="categories">Group labels along the x axis (at least one).</param>
    /// <param name="series">At least one series; each with one value (and half-width, if any) per category.</param>
    /// <param name="xLabel">X axis title, or null.</param>
    /// <param name="referenceLine">A y value to mark with a dashed line, or null.</param>
    /// <param name="colorByCategory">Colour bars by category instead of series, with categories in the legend
    /// (for a single series of one value per scheme, so schemes keep the colours they have in the per-program charts;
    /// only the first series is drawn).</param>
    /// <param name="width">Width in pixels.</param>
    /// <param name="height">Height in pixels.</param>
    /// <param name="yScale">Value axis scale; a logarithmic one needs every value positive (or NaN: no bar).</param>
    /// <exception cref="ArgumentException">Empty inputs, mismatched lengths, a negative/infinite value, or a zero value
    /// on a logarithmic axis.</exception>
    public GroupedBarChart(
        string title, string yLabel, IReadOnlyList<string> categories, IReadOnlyList<BarSeries> series,
        string? xLabel = null, double? referenceLine = null, bool colorByCategory = false, int width = 900, int height = 540,
        AxisScale yScale = AxisScale.Linear)
        : base(title, width, height)
    {
        ArgumentNullException.ThrowIfNull(categories);
        ArgumentNullException.ThrowIfNull(series);
        if (categories.Count == 0 || series.Count == 0)
        {
            throw new ArgumentException("A bar chart needs at least one category and one series.", categories.Count == 0 ? nameof(categories) : nameof(series));
        }

        foreach (BarSeries s in series)
        {
            ChartStyle.RequireValues(s?.Values is not null && s.Values.Count == categories.Count && (s.HalfWidths is null || s.HalfWidths.Count == categories.Count),
                $"Series '{s?.Name}' needs exactly {categories.Count} values (and half-widths, if given).", nameof(series));
            ChartStyle.RequireValues(!s!.Values.Any(v => v < 0 || double.IsInfinity(v)) && !(s.HalfWidths?.Any(h => h < 0 || double.IsInfinity(h)) ?? false),
                $"Series '{s.Name}' has a negative or infinite value.", nameof(series));
            ChartStyle.RequireValues(yScale == AxisScale.Linear || s.Values.All(v => double.IsNaN(v) || v > 0),
                $"Series '{s.Name}' has a zero value, which a logarithmic axis cannot show.", nameof(series));
        }

        if (referenceLine is { } reference && (!double.IsFinite(reference) || reference < 0))
        {
            throw new ArgumentException($"Reference line {reference} must be finite and non-negative.", nameof(referenceLine));
        }

        YLabel = yLabel ?? string.Empty;
        XLabel = xLabel;
        Categories = categories;
        Series = series;
        ReferenceLine = referenceLine;
        ColorByCategory = colorByCategory;
        YScale = yScale;
    }

    /// <summary>Y axis title.</summary>
    public string YLabel { get; }

    /// <summary>X axis title, or null.</summary>
    public string? XLabel { get; }

    /// <summary>Group labels.</summary>
    public IReadOnlyList<string> Categories { get; }

    /// <summary>The series.</summary>
    public IReadOnlyList<BarSeries> Series { get; }

    /// <summary>The dashed reference level, or null.</summary>
    public double? ReferenceLine { get; }

    /// <summary>Whether bars are coloured by category (legend: categories) rather than by series.</summary>
    public bool ColorByCategory { get; }

    /// <summary>Value axis scale.</summary>
    public AxisScale YScale { get; }

    /// <inheritdoc/>
    public override PlotModel ToPlotModel()
    {
        PlotModel model = ChartStyle.Model(Title);
        model.Axes.Add(ChartStyle.CategoryAxis(XLabel, Categories));
        Axis values = ChartStyle.ValueAxis(AxisPosition.Left, YLabel, YScale, startAtZero: YScale == AxisScale.Linear);
        values.Key = ChartStyle.ValueKey;
        double floor = 0; // where the bars stand: zero, or on a logarithmic axis the power of its base below the smallest value
        if (YScale != AxisScale.Linear)
        {
            double logBase = YScale == AxisScale.Log2 ? 2 : 10;
            double smallest = Series.SelectMany(s => s.Values).Where(v => v > 0).DefaultIfEmpty(1).Min();
            floor = Math.Pow(logBase, Math.Ceiling(Math.Log(smallest, logBase)) - 1); // strictly below, so every bar shows
            values.Minimum = floor;
        }

        double top = Series.SelectMany(s => s.Values.Select((v, c) => double.IsNaN(v) ? 0 : v + HalfWidth(s, c))).DefaultIfEmpty(0).Max();
        if (ReferenceLine is { } reference && reference >= top)
        {
            values.Maximum = Math.Max(reference, top) * 1.08;
        }

        if (top == 0 && (ReferenceLine ?? 0) == 0)
        {
            // All bars zero or missing: an axis from 0 to 1 (two decades above the floor) rather than a degenerate one.
            values.Maximum = YScale == AxisScale.Linear ? 1 : floor * 100;
        }

        model.Axes.Add(values);
        if (ColorByCategory)
        {
            // One series, each bar in its category's colour; the legend names the categories through
            // point-less lines drawn only as legend swatches.
            ErrorBarSeries bars = Bars(Series[0].Name, ChartStyle.Color(0), floor);
            bars.RenderInLegend = false;
            for (int c = 0; c < Categories.Count; c++)
            {
                Add(bars, Series[0], c, ChartStyle.Color(c));
                model.Series.Add(new OxyPlot.Series.LineSeries { Title = Categories[c], Color = ChartStyle.Color(c), StrokeThickness = 8 });
            }

            model.Series.Add(ChartStyle.Columns(bars));
        }
        else
        {
            for (int i = 0; i < Series.Count; i++)
            {
                ErrorBarSeries bars = Bars(Series[i].Name, ChartStyle.Color(i), floor);
                for (int c = 0; c < Categories.Count; c++)
                {
                    Add(bars, Series[i], c, OxyColors.Automatic);
                }

                model.Series.Add(ChartStyle.Columns(bars));
            }
        }

        if (ReferenceLine is { } level)
        {
            model.Annotations.Add(new LineAnnotation
            {
                Type = LineAnnotationType.Horizontal,
                Y = level,
                Color = OxyColor.FromRgb(0x44, 0x44, 0x44),
                LineStyle = LineStyle.Dash,
                StrokeThickness = 1,
            });
        }

        return model;
    }

    private static double HalfWidth(BarSeries series, int category) =>
        series.HalfWidths is { } h && double.IsFinite(h[category]) ? h[category] : 0;

    private static ErrorBarSeries Bars(string name, OxyColor color, double floor) => new()
    {
        Title = name,
        BaseValue = floor,
        BaseLine = floor,
        FillColor = color,
        StrokeColor = OxyColors.White,
        StrokeThickness = 0.5,
        ErrorStrokeThickness = 1.2,
        ErrorWidth = 0.3,
    };

    // A NaN value leaves its slot empty (the scheme has no metric for that program).
    private static void Add(ErrorBarSeries bars, BarSeries series, int category, OxyColor color)
    {
        double value = series.Values[category];
        if (!double.IsNaN(value))
        {
            // A logarithmic axis cannot show an error bar reaching its floor (its bars' foot, above zero): the bar, drawn
            // both ways, is shortened to stop there. On a linear axis it is drawn as measured.
            double halfWidth = HalfWidth(series, category);
            bars.Items.Add(new ErrorBarItem(value, bars.BaseValue > 0 ? Math.Min(halfWidth, value - bars.BaseValue) : halfWidth, category) { Color = color });
        }
    }
}
