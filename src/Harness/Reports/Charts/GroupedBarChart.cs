using System.Globalization;
using System.Xml.Linq;
using DivCon.Harness.Machine;

namespace DivCon.Harness.Reports.Charts;

/// <summary>
/// Bars grouped by category, one bar per series in each group, with error bars: NTT or NP per program
/// (categories) per scheme (series), or ANTT/STP per scheme (one category per scheme, one series).
/// </summary>
/// <remarks>
/// Each bar is an SVG <c>&lt;rect class="bar"&gt;</c> carrying <c>data-series</c> and <c>data-category</c>;
/// each error bar a <c>&lt;g class="error-bar"&gt;</c>. The y axis starts at zero. An optional horizontal
/// reference line marks a meaningful level (NTT = 1: no slowdown).
/// </remarks>
public sealed class GroupedBarChart : ISvgChart
{
    /// <summary>Creates the chart.</summary>
    /// <param name="title">Title.</param>
    /// <param name="yLabel">Y axis title.</param>
    /// <param name="categories">Group labels along the x axis (at least one).</param>
    /// <param name="series">At least one series; each with one value (and half-width, if any) per category.</param>
    /// <param name="xLabel">X axis title, or null.</param>
    /// <param name="referenceLine">A y value to mark with a dashed line, or null.</param>
    /// <param name="colorByCategory">Colour bars by category instead of series, with categories in the legend
    /// (for a single series of one value per scheme, so schemes keep the colours they have in the per-program charts).</param>
    /// <param name="width">Width in pixels.</param>
    /// <param name="height">Height in pixels.</param>
    /// <exception cref="ArgumentException">Empty inputs, mismatched lengths, or a negative/infinite value.</exception>
    public GroupedBarChart(
        string title, string yLabel, IReadOnlyList<string> categories, IReadOnlyList<BarSeries> series,
        string? xLabel = null, double? referenceLine = null, bool colorByCategory = false, int width = 900, int height = 540)
    {
        ChartValidation.Title(title, nameof(title));
        ChartValidation.Size(width, height);
        ArgumentNullException.ThrowIfNull(categories);
        ArgumentNullException.ThrowIfNull(series);
        if (categories.Count == 0 || series.Count == 0)
        {
            throw new ArgumentException("A bar chart needs at least one category and one series.", categories.Count == 0 ? nameof(categories) : nameof(series));
        }

        foreach (BarSeries s in series)
        {
            if (s is null || s.Values is null || s.Values.Count != categories.Count || (s.HalfWidths is not null && s.HalfWidths.Count != categories.Count))
            {
                throw new ArgumentException($"Series '{s?.Name}' needs exactly {categories.Count} values (and half-widths, if given).", nameof(series));
            }

            if (s.Values.Any(v => v < 0 || double.IsInfinity(v)) || (s.HalfWidths?.Any(h => h < 0 || double.IsInfinity(h)) ?? false))
            {
                throw new ArgumentException($"Series '{s.Name}' has a negative or infinite value.", nameof(series));
            }
        }

        if (referenceLine is { } reference && (!double.IsFinite(reference) || reference < 0))
        {
            throw new ArgumentException($"Reference line {reference} must be finite and non-negative.", nameof(referenceLine));
        }

        Title = title;
        YLabel = yLabel ?? string.Empty;
        XLabel = xLabel;
        Categories = categories;
        Series = series;
        ReferenceLine = referenceLine;
        ColorByCategory = colorByCategory;
        Width = width;
        Height = height;
    }

    /// <inheritdoc/>
    public string Title { get; }

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

    /// <summary>Width in pixels.</summary>
    public int Width { get; }

    /// <summary>Height in pixels.</summary>
    public int Height { get; }

    /// <inheritdoc/>
    public XDocument Render(RunStamp? stamp)
    {
        var canvas = new SvgCanvas(Width, Height, Title, stamp);
        PlotArea area = canvas.Area;
        double top = 0;
        foreach (BarSeries s in Series)
        {
            for (int c = 0; c < Categories.Count; c++)
            {
                double v = s.Values[c];
                double h = s.HalfWidths is null || double.IsNaN(s.HalfWidths[c]) ? 0 : s.HalfWidths[c];
                if (!double.IsNaN(v))
                {
                    top = Math.Max(top, v + h);
                }
            }
        }

        top = Math.Max(top, ReferenceLine ?? 0);
        var y = new ChartAxis(AxisScale.Linear, 0, top, area.Bottom, area.Top, includeZero: true);
        canvas.DrawYAxis(y, YLabel);
        canvas.DrawCategoryAxis(Categories, XLabel);

        double slot = area.Width / Categories.Count;
        double barWidth = slot * 0.8 / Series.Count;
        var bars = new XElement(SvgCanvas.Svg + "g", new XAttribute("class", "bars"));
        for (int c = 0; c < Categories.Count; c++)
        {
            for (int s = 0; s < Series.Count; s++)
            {
                double value = Series[s].Values[c];
                if (double.IsNaN(value))
                {
                    continue;
                }

                double x = area.Left + (c * slot) + (slot * 0.1) + (s * barWidth);
                double yTop = y.Map(value);
                XElement bar = SvgCanvas.Rect(x, yTop, barWidth - 1, area.Bottom - yTop, ChartPalette.Color(ColorByCategory ? c : s), "bar");
                bar.Add(new XAttribute("data-series", Series[s].Name), new XAttribute("data-category", Categories[c]));
                bar.Add(new XElement(SvgCanvas.Svg + "title", string.Create(CultureInfo.InvariantCulture, $"{Series[s].Name}, {Categories[c]}: {value:G6}")));
                bars.Add(bar);

                double halfWidth = Series[s].HalfWidths?[c] ?? 0;
                if (halfWidth > 0)
                {
                    bars.Add(SvgCanvas.ErrorBar(x + (barWidth / 2), y.Map(Math.Max(0, value - halfWidth)), y.Map(value + halfWidth), Math.Min(5, barWidth / 3)));
                }
            }
        }

        canvas.Add(bars);
        if (ReferenceLine is { } reference)
        {
            XElement line = SvgCanvas.Line(area.Left, y.Map(reference), area.Right, y.Map(reference), "#444444", 1, "reference-line");
            line.Add(new XAttribute("stroke-dasharray", "6 4"));
            canvas.Add(line);
        }

        canvas.DrawLegend(ColorByCategory
            ? Categories.Select((c, i) => (c, ChartPalette.Color(i))).ToArray()
            : Series.Select((s, i) => (s.Name, ChartPalette.Color(i))).ToArray(), lines: false);
        return canvas.ToDocument();
    }
}
