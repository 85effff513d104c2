namespace DivCon.Harness.Reports.Charts;

/// <summary>One bar per category for a <see cref="GroupedBarChart"/> (e.g. one scheme's NTT per program).</summary>
/// <param name="Name">Legend text.</param>
/// <param name="Values">One value per category (non-negative; NaN for a missing bar).</param>
/// <param name="HalfWidths">Error-bar half-heights per category (NaN or 0 for none), or null for no error bars.</param>
public sealed record BarSeries(string Name, IReadOnlyList<double> Values, IReadOnlyList<double>? HalfWidths = null);
