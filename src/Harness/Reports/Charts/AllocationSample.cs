namespace DivCon.Harness.Reports.Charts;

/// <summary>The cores each program held from <paramref name="Time"/> until the next sample.</summary>
/// <param name="Time">When this allocation took effect, from the start of the test.</param>
/// <param name="Cores">Cores per program, in the chart's program order.</param>
public sealed record AllocationSample(TimeSpan Time, IReadOnlyList<int> Cores);
