using System.Diagnostics;
using DivCon.Skeletons;

namespace DivCon.Programs.Sorting;

/// <summary>
/// The merge of two sorted runs as a divide-and-conquer program: the classic parallel merge. Its result is the
/// range of the destination it filled.
/// </summary>
/// <remarks>
/// <para><b>Algorithm.</b> Take the median m of the longer run and find, by binary search, where m would go in the
/// shorter run (before the first element not less than m). Everything before those two positions is at most m and
/// everything after is at least m, so the two pairs of pieces are merged independently into adjacent parts of the
/// destination: a split into two problems, each at most three quarters of the size. Leaves merge sequentially;
/// merge joins the two adjacent destination ranges.</para>
/// <para>The program keeps no state, so one instance (<see cref="Shared"/>) serves any number of concurrent runs, for
/// example the nested merges of <see cref="ParallelMergesort"/>.</para>
/// </remarks>
/// <example>
/// <code>
/// var problem = new MergeProblem(source, new IndexRange(0, mid), new IndexRange(mid, n), destination, 0, leafSize: 65536);
/// await ParallelMerge.Shared.RunAsync(problem, DivideAndConquerOptions.Default with { Scheduler = scheduler });
/// </code>
/// </example>
public sealed class ParallelMerge : DivideAndConquer<MergeProblem, IndexRange>
{
    /// <summary>Creates a parallel merge.</summary>
    /// <param name="options">Default options; <see langword="null"/>: the defaults.</param>
    public ParallelMerge(DivideAndConquerOptions? options = null)
        : base(options)
    {
    }

    /// <summary>An instance with default options, safe to run concurrently.</summary>
    public static ParallelMerge Shared { get; } = new();

    /// <summary>Divides a merge at the median of its longer run (see the remarks).</summary>
    /// <param name="problem">A merge with more than two elements.</param>
    /// <returns>The two smaller merges, in destination order.</returns>
    public static (MergeProblem First, MergeProblem Second) Divide(MergeProblem problem)
    {
        bool leftLonger = problem.Left.Length >= problem.Right.Length;
        var longer = leftLonger ? problem.Left : problem.Right;
        var shorter = leftLonger ? problem.Right : problem.Left;
        int longerCut = longer.Start + (longer.Length / 2);
        int median = problem.Source[longerCut];

        // Longer[..cut) <= median <= longer[cut..) and shorter[..lower bound) < median <= shorter[lower bound..):
        // every element of the first pieces is at most every element of the second ones. (Equal integers are
        // indistinguishable, so which run an equal element comes from does not matter.)
        int shorterCut = shorter.Start + LowerBound(problem.Source.AsSpan(shorter.Start, shorter.Length), median);
        var leftCut = leftLonger ? longerCut : shorterCut;
        var rightCut = leftLonger ? shorterCut : longerCut;
        var first = problem with
        {
            Left = new IndexRange(problem.Left.Start, leftCut),
            Right = new IndexRange(problem.Right.Start, rightCut),
        };
        var second = problem with
        {
            Left = new IndexRange(leftCut, problem.Left.End),
            Right = new IndexRange(rightCut, problem.Right.End),
            DestinationStart = problem.DestinationStart + first.Length,
        };
        return (first, second);
    }

    /// <summary>Merges sequentially (a leaf).</summary>
    /// <param name="problem">The merge.</param>
    /// <returns>The range of the destination it filled.</returns>
    public static IndexRange MergeSequentially(MergeProblem problem)
    {
        SortKernels.Merge(
            problem.Source.AsSpan(problem.Left.Start, problem.Left.Length),
            problem.Source.AsSpan(problem.Right.Start, problem.Right.Length),
            problem.Destination.AsSpan(problem.DestinationStart, problem.Length));
        return new IndexRange(problem.DestinationStart, problem.DestinationStart + problem.Length);
    }

    /// <inheritdoc/>
    protected override bool ShouldSplit(MergeProblem problem, int depth) => problem.Length > Math.Max(problem.LeafSize, 2);

    /// <inheritdoc/>
    protected override IReadOnlyList<MergeProblem> Split(MergeProblem problem, int depth)
    {
        var (first, second) = Divide(problem);
        Debug.Assert(first.Length < problem.Length && second.Length < problem.Length, "Both halves of a merge are smaller than it.");
        return [first, second];
    }

    /// <summary>Receives the length of every sequential merge (leaf): for tests.</summary>
    internal Action<long>? PieceObserver { get; init; }

    /// <inheritdoc/>
    protected override IndexRange Execute(MergeProblem problem, int depth)
    {
        PieceObserver?.Invoke(problem.Length);
        return MergeSequentially(problem);
    }

    /// <inheritdoc/>
    protected override IndexRange Merge(IReadOnlyList<IndexRange> subresults, int depth)
    {
        ArgumentNullException.ThrowIfNull(subresults);
        Debug.Assert(subresults[0].End == subresults[1].Start, "The halves of a merge fill adjacent destination ranges.");
        return new IndexRange(subresults[0].Start, subresults[1].End);
    }

    // The first index whose element is not less than value.
    private static int LowerBound(ReadOnlySpan<int> sorted, int value)
    {
        int low = 0, high = sorted.Length;
        while (low < high)
        {
            int mid = (int)((uint)(low + high) >> 1);
            if (sorted[mid] < value)
            {
                low = mid + 1;
            }
            else
            {
                high = mid;
            }
        }

        return low;
    }
}
