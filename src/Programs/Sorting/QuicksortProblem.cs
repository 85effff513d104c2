using DivCon.Skeletons;

namespace DivCon.Programs.Sorting;

/// <summary>A range to sort, and whether its elements are already in the output array (every range but the root).</summary>
/// <param name="Range">The indexes.</param>
/// <param name="IsInOutput">False only for the root: its elements are still only in the source array.</param>
public readonly record struct QuicksortProblem(IndexRange Range, bool IsInOutput);
