namespace DivCon.Harness.Reports.Charts;

/// <summary>A named line of a <see cref="LineChart"/> (e.g. one program's speedups).</summary>
/// <param name="Name">Legend text.</param>
/// <param name="Points">The points, drawn in order of X.</param>
public sealed record LineSeries(string Name, IReadOnlyList<ChartPoint> Points);
