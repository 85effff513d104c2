namespace DivCon.Harness.Reports.Charts;

/// <summary>One layer of a <see cref="StackedBarChart"/> (e.g. the split phase), one value per category.</summary>
/// <param name="Name">Legend text.</param>
/// <param name="Values">One non-negative value per category.</param>
public sealed record StackSeries(string Name, IReadOnlyList<double> Values);
