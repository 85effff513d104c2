using System.Globalization;
using System.Xml.Linq;
using DivCon.Harness.Machine;

namespace DivCon.Harness.Reports.Charts;

/// <summary>
/// Stacked bars: one bar per category made of one segment per layer. The phases chart uses it with
/// recursion levels as categories and split/execute/merge as layers (cumulative time per level).
/// </summary>
/// <remarks>
/// Each non-zero segment is an SVG <c>&lt;rect class="segment"&gt;</c> with <c>data-series</c> and
/// <c>data-category</c>. The axis is linear from zero: stacking on a logarithmic axis would misstate the
/// layers' shares. For phases spanning orders of magnitude, draw a <see cref="LineChart"/> per phase with
/// <see cref="AxisScale.Log10"/> as well.
/// </remarks>
public sealed class StackedBarChart : ISvgChart
{
    /// <summary>Creates the chart.</summary>
    /// <param name="title">Title.</param>
    /// <param name="xLabel">X axis title (e.g. "Recursion level").</param>
    /// <param name="yLabel">Y axis title (e.g. "Cumulative time (ms)").</param>
    /// <param name="categories">Bar labels (at least one).</param>
    /// <param name="layers">Layers bottom to top (at least one), each with one non-negative finite value per category.</param>
    /// <param name="width">Width in pixels.</param>
    /// <param name="height">Height in pixels.</param>
    /// <exception cref="ArgumentException">Empty inputs, mismatched lengths, or a bad value.</exception>
    public StackedBarChart(
        string title, string xLabel, string yLabel, IReadOnlyList<string> categories, IReadOnlyList<StackSeries> layers, int width = 900, int height = 540)
    {
        ChartValidation.Title(title, nameof(title));
        ChartValidation.Size(width, height);
        ArgumentNullException.ThrowIfNull(categories);
        ArgumentNullException.ThrowIfNull(layers);
        if (categories.Count == 0 || layers.Count == 0)
        {
            throw new ArgumentException("A stacked bar chart needs at least one category and one layer.", categories.Count == 0 ? nameof(categories) : nameof(layers));
        }

        foreach (StackSeries layer in layers)
        {
            if (layer is null || layer.Values is null || layer.Values.Count != categories.Count)
            {
                throw new ArgumentException($"Layer '{layer?.Name}' needs exactly {categories.Count} values.", nameof(layers));
            }

            if (layer.Values.Any(v => !double.IsFinite(v) || v < 0))
            {
                throw new ArgumentException($"Layer '{layer.Name}' has a negative or non-finite value.", nameof(layers));
            }
        }

        Title = title;
        XLabel = xLabel ?? string.Empty;
        YLabel = yLabel ?? string.Empty;
        Categories = categories;
        Layers = layers;
        Width = width;
        Height = height;
    }

    /// <inheritdoc/>
    public string Title { get; }

    /// <summary>X axis title.</summary>
    public string XLabel { get; }

    /// <summary>Y axis title.</summary>
    public string YLabel { get; }

    /// <summary>Bar labels.</summary>
    public IReadOnlyList<string> Categories { get; }

    /// <summary>Layers, bottom to top.</summary>
    public IReadOnlyList<StackSeries> Layers { get; }

    /// <summary>Width in pixels.</summary>
    public int Width { get; }

    /// <summary>Height in pixels.</summary>
    public int Height { get; }

    /// <inheritdoc/>
    public XDocument Render(RunStamp? stamp)
    {
        var canvas = new SvgCanvas(Width, Height, Title, stamp);
        PlotArea area = canvas.Area;
        double top = Enumerable.Range(0, Categories.Count).Max(c => Layers.Sum(l => l.Values[c]));
        var y = new ChartAxis(AxisScale.Linear, 0, top, area.Bottom, area.Top, includeZero: true);
        canvas.DrawYAxis(y, YLabel);
        canvas.DrawCategoryAxis(Categories, XLabel);

        double slot = area.Width / Categories.Count;
        var bars = new XElement(SvgCanvas.Svg + "g", new XAttribute("class", "stacks"));
        for (int c = 0; c < Categories.Count; c++)
        {
            double x = area.Left + (c * slot) + (slot * 0.15);
            double cumulative = 0;
            for (int l = 0; l < Layers.Count; l++)
            {
                double value = Layers[l].Values[c];
                if (value == 0)
                {
                    continue;
                }

                double yLow = y.Map(cumulative), yHigh = y.Map(cumulative + value);
                XElement segment = SvgCanvas.Rect(x, yHigh, slot * 0.7, yLow - yHigh, ChartPalette.Color(l), "segment");
                segment.Add(new XAttribute("data-series", Layers[l].Name), new XAttribute("data-category", Categories[c]));
                segment.Add(new XElement(SvgCanvas.Svg + "title", string.Create(CultureInfo.InvariantCulture, $"{Categories[c]}, {Layers[l].Name}: {value:G6}")));
                bars.Add(segment);
                cumulative += value;
            }
        }

        canvas.Add(bars);
        canvas.DrawLegend(Layers.Select((l, i) => (l.Name, ChartPalette.Color(i))).ToArray(), lines: false);
        return canvas.ToDocument();
    }
}
