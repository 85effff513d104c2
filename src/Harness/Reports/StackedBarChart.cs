using OxyPlot;
using OxyPlot.Axes;

namespace DivCon.Harness.Reports;
/// <summary>
/// Stacked bars: one bar per category made of one segment per layer. The phases chart uses it with
/// recursion levels as categories and split/execute/merge as layers (cumulative time per level); the
/// performance chart with configurations as categories and work/overhead/idle as layers.
/// </summary>
/// <remarks>
/// Zero segments are not drawn. The axis is linear from zero: stacking on a logarithmic axis would misstate the
/// layers' shares.
/// </remarks>
public sealed class StackedBarChart : SvgChart
{
    /// <summary>Creates the chart.</summary>
    /// <param name="title">Title.</param>
    /// <param name="xLabel">X axis title.</param>
    /// <param name="yLabel">Y axis title.</param>
    /// <param name="categories">One label per bar (at least one).</param>
    /// <param name="layers">At least one layer, bottom first; each with one finite, non-negative value per category.</param>
    /// <param name="width">Width in pixels.</param>
    /// <param name="height">Height in pixels.</param>
    /// <exception cref="ArgumentException">Empty inputs, mismatched lengths, or a negative/non-finite value.</exception>
    public StackedBarChart(
        string title, string xLabel, string yLabel, IReadOnlyList<string> categories, IReadOnlyList<StackSeries> layers, int width = 900, int height = 540)
        : base(title, width, height)
    {
        ArgumentNullException.ThrowIfNull(categories);
        ArgumentNullException.ThrowIfNull(layers);
        if (categories.Count == 0 || layers.Count == 0)
        {
            throw new ArgumentException("A stacked bar chart needs at least one category and one layer.", categories.Count == 0 ? nameof(categories) : nameof(layers));
        }

        foreach (StackSeries layer in layers)
        {
            ChartStyle.RequireValues(layer?.Values is not null && layer.Values.Count == categories.Count,
                $"Layer '{layer?.Name}' needs exactly {categories.Count} values.", nameof(layers));
            ChartStyle.RequireValues(layer!.Values.All(v => double.IsFinite(v) && v >= 0),
                $"Layer '{layer.Name}' has a negative or non-finite value.", nameof(layers));
        }

        XLabel = xLabel ?? string.Empty;
        YLabel = yLabel ?? string.Empty;
        Categories = categories;
        Layers = layers;
    }

    /// <summary>X axis title.</summary>
    public string XLabel { get; }

    /// <summary>Y axis title.</summary>
    public string YLabel { get; }

    /// <summary>Bar labels.</summary>
    public IReadOnlyList<string> Categories { get; }

    /// <summary>The layers, bottom first.</summary>
    public IReadOnlyList<StackSeries> Layers { get; }

    /// <inheritdoc/>
    public override PlotModel ToPlotModel()
    {
        PlotModel model = ChartStyle.Model(Title);
        model.Axes.Add(ChartStyle.CategoryAxis(XLabel, Categories));
        Axis values = ChartStyle.ValueAxis(AxisPosition.Left, YLabel, AxisScale.Linear, startAtZero: true);
        values.Key = ChartStyle.ValueKey;
        if (Layers.All(l => l.Values.All(v => v == 0)))
        {
            values.Maximum = 1;
        }

        model.Axes.Add(values);
        for (int l = 0; l < Layers.Count; l++)
        {
            var bars = new OxyPlot.Series.BarSeries
            {
                Title = Layers[l].Name,
                FillColor = ChartStyle.Color(l),
                StrokeColor = OxyColors.White,
                StrokeThickness = 0.5,
                IsStacked = true,
            };
            for (int c = 0; c < Categories.Count; c++)
            {
                if (Layers[l].Values[c] > 0)
                {
                    bars.Items.Add(new OxyPlot.Series.BarItem(Layers[l].Values[c], c));
                }
            }

            model.Series.Add(ChartStyle.Columns(bars));
        }

        return model;
    }
}
