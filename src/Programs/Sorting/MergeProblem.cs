using DivCon.Skeletons;

namespace DivCon.Programs.Sorting;

/// <summary>
/// Merge the sorted runs <see cref="Source"/>[<see cref="Left"/>] and <see cref="Source"/>[<see cref="Right"/>] into
/// <see cref="Destination"/> starting at <see cref="DestinationStart"/>; runs of at most <see cref="LeafSize"/> elements
/// in all are merged sequentially.
/// </summary>
/// <param name="Source">Holds both runs (not written).</param>
/// <param name="Left">One sorted run.</param>
/// <param name="Right">The other sorted run (its elements go after equal ones of <see cref="Left"/>).</param>
/// <param name="Destination">Receives the merged run; must not overlap the runs.</param>
/// <param name="DestinationStart">Where the merged run starts in <see cref="Destination"/>.</param>
/// <param name="LeafSize">The size at or below which a merge is not split; at least 2.</param>
public readonly record struct MergeProblem(int[] Source, IndexRange Left, IndexRange Right, int[] Destination, int DestinationStart, int LeafSize)
{
    /// <summary>The number of elements to merge.</summary>
    public int Length => Left.Length + Right.Length;
}
