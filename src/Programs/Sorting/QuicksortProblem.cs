using DivCon.Skeletons;

namespace DivCon.Programs.Sorting;

/// <summary>A range to sort, and which array holds its elements now.</summary>
/// <param name="Range">The indexes.</param>
/// <param name="IsInOutput">
/// Whether the elements are in the output array. False for the root (its elements are still only in the source
/// array) and for the children of a parallel partition out of the output (theirs are in the scratch buffer, see
/// <see cref="IsInScratch"/>).
/// </param>
public readonly record struct QuicksortProblem(IndexRange Range, bool IsInOutput)
{
    /// <summary>
    /// Whether the elements are in the sort's scratch buffer (only when <see cref="IsInOutput"/> is false): set on the
    /// children of a parallel partition whose range was in the output.
    /// </summary>
    public bool IsInScratch { get; init; }
}
