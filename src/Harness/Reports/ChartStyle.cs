using OxyPlot;
using OxyPlot.Axes;
using OxyPlot.Legends;

namespace DivCon.Harness.Reports;

/// <summary>The look every harness chart shares: fonts, palette, legend on the right, light grid lines.</summary>
internal static class ChartStyle
{
    /// <summary>
    /// The font family written into the SVG. Text is measured with the PDF standard-font metrics built into
    /// OxyPlot (Helvetica for this family), so no installed font is needed to lay a chart out.
    /// </summary>
    public const string Font = "Arial";

    // Okabe-Ito, readable by colour-blind readers; a scheme keeps its colour across a folder's charts.
    private static readonly OxyColor[] s_colors =
    [
        OxyColor.Parse("#0072B2"), OxyColor.Parse("#E69F00"), OxyColor.Parse("#009E73"), OxyColor.Parse("#D55E00"),
        OxyColor.Parse("#CC79A7"), OxyColor.Parse("#56B4E9"), OxyColor.Parse("#F0E442"), OxyColor.Parse("#000000"),
    ];

    public static OxyColor Color(int index) => s_colors[index % s_colors.Length];

    public static PlotModel Model(string title)
    {
        var model = new PlotModel
        {
            Title = title,
            TitleFontSize = 17,
            DefaultFont = Font,
            DefaultFontSize = 12,
            Background = OxyColors.White,
            PlotAreaBorderThickness = new OxyThickness(1, 0, 0, 1),
            // Extra room on the right: text is laid out with Helvetica's metrics, and a viewer drawing a wider
            // fallback font must not clip the legend.
            Padding = new OxyThickness(8, 8, 48, 8),
        };
        model.Legends.Add(new Legend
        {
            LegendPlacement = LegendPlacement.Outside,
            LegendPosition = LegendPosition.RightTop,
            LegendOrientation = LegendOrientation.Vertical,
            LegendFontSize = 12,
        });
        return model;
    }

    /// <summary>Key of the category axis of a bar chart.</summary>
    public const string CategoryKey = "categories";

    /// <summary>Key of the value axis of a bar chart.</summary>
    public const string ValueKey = "values";

    /// <summary>
    /// Points a bar series at the chart's axes. OxyPlot's bar series take the category axis as their Y axis; with
    /// the category axis at the bottom and the value axis on the left the plot is transposed: vertical columns.
    /// </summary>
    public static T Columns<T>(T series)
        where T : OxyPlot.Series.XYAxisSeries
    {
        series.XAxisKey = ValueKey;
        series.YAxisKey = CategoryKey;
        return series;
    }

    public static Axis ValueAxis(AxisPosition position, string title, AxisScale scale, bool startAtZero = false)
    {
        Axis axis = scale switch
        {
            AxisScale.Log2 => new LogarithmicAxis { Base = 2 },
            AxisScale.Log10 => new LogarithmicAxis { Base = 10 },
            _ => new LinearAxis(),
        };
        axis.Position = position;
        axis.Title = title;
        axis.TitleFontSize = 13;
        axis.AxisTitleDistance = 10;
        axis.MajorGridlineStyle = LineStyle.Solid;
        axis.MajorGridlineColor = OxyColor.FromRgb(0xE5, 0xE5, 0xE5);
        if (startAtZero)
        {
            axis.Minimum = 0;
            axis.MinimumPadding = 0;
            axis.MaximumPadding = 0.08;
        }

        return axis;
    }

    public static CategoryAxis CategoryAxis(string? title, IEnumerable<string> categories)
    {
        string[] labels = categories.ToArray();
        var axis = new CategoryAxis
        {
            Position = AxisPosition.Bottom,
            Key = CategoryKey,
            Title = title,
            TitleFontSize = 13,
            AxisTitleDistance = 10,
            GapWidth = 0.25,
            // Slant the labels only when the longest would not fit its slot (about 7 px per character at 12 px).
            Angle = labels.Max(c => c.Length) * 7.0 * labels.Length > 600 ? -30 : 0,
        };
        axis.Labels.AddRange(labels);
        return axis;
    }

    public static void RequireValues(bool ok, string message, string parameterName)
    {
        if (!ok)
        {
            throw new ArgumentException(message, parameterName);
        }
    }
}

/// <summary>How an axis maps values to positions.</summary>
public enum AxisScale
{
    /// <summary>Linear.</summary>
    Linear,

    /// <summary>Logarithmic, base 2 (core counts, granularity fractions).</summary>
    Log2,

    /// <summary>Logarithmic, base 10 (times spanning decades).</summary>
    Log10,
}

/// <summary>One point of a line series.</summary>
/// <param name="X">X value.</param>
/// <param name="Y">Y value.</param>
/// <param name="ErrorHalfWidth">Half-width of the error bar around <paramref name="Y"/> (0: none).</param>
public readonly record struct ChartPoint(double X, double Y, double ErrorHalfWidth = 0);

/// <summary>A named line of points.</summary>
/// <param name="Name">Legend text.</param>
/// <param name="Points">The points (drawn in ascending X).</param>
public sealed record LineSeries(string Name, IReadOnlyList<ChartPoint> Points);

/// <summary>A named set of bars, one value per category.</summary>
/// <param name="Name">Legend text.</param>
/// <param name="Values">One value per category; NaN leaves the slot empty.</param>
/// <param name="HalfWidths">Error-bar half-widths per category (NaN or 0: none), or null.</param>
public sealed record BarSeries(string Name, IReadOnlyList<double> Values, IReadOnlyList<double>? HalfWidths = null);

/// <summary>A named layer of a stacked bar chart, one value per category.</summary>
/// <param name="Name">Legend text.</param>
/// <param name="Values">One non-negative value per category.</param>
public sealed record StackSeries(string Name, IReadOnlyList<double> Values);
