namespace DivCon.Harness.Reports.Charts;

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

/// <summary>The cores each program held from <paramref name="Time"/> until the next sample.</summary>
/// <param name="Time">Time since the start of the test.</param>
/// <param name="Cores">Cores per program, in the chart's program order.</param>
public sealed record AllocationSample(TimeSpan Time, IReadOnlyList<int> Cores);
