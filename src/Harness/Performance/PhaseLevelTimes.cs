namespace DivCon.Harness.Performance;

/// <summary>Cumulative time (summed over all tasks) of each phase at one recursion level.</summary>
/// <param name="Level">Recursion depth, 0 at the root.</param>
/// <param name="Split">Σ split time at this level.</param>
/// <param name="Execute">Σ execute time at this level.</param>
/// <param name="Merge">Σ merge time at this level.</param>
/// <param name="Count">Number of phase invocations observed at this level.</param>
public sealed record PhaseLevelTimes(int Level, TimeSpan Split, TimeSpan Execute, TimeSpan Merge, long Count);
