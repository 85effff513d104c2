namespace DivCon.Skeletons;

/// <summary>What a <see cref="PhaseAggregator"/> counted for one phase at one depth.</summary>
/// <param name="Phase">The phase.</param>
/// <param name="Depth">The recursion depth (the root is at depth 0).</param>
/// <param name="Count">How many times the phase ran at this depth.</param>
/// <param name="TotalTime">The summed duration.</param>
public sealed record PhaseLevelStatistics(DivideAndConquerPhase Phase, int Depth, long Count, TimeSpan TotalTime);
