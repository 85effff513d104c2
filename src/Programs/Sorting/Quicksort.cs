using DivCon.Skeletons;

namespace DivCon.Programs.Sorting;

/// <summary>
/// A non-destructive parallel quicksort: sorts a source array into a separate output array, never writing the source.
/// </summary>
/// <remarks>
/// <para><b>Algorithm.</b> Split picks the median of the first <see cref="SortKernels.PivotSampleSize"/> elements as the
/// pivot and partitions the range into elements less than it and the rest; the two parts are the children. The
/// first split (the root) partitions while copying from the source into the output, so the copy costs no extra pass;
/// every later split partitions in place in the output. Leaves sort with <see cref="Array.Sort{T}(T[], int, int)"/>
/// (a root leaf copies first). Merge has nothing to do: the result is the sorted range.</para>
/// <para><b>Termination on any input.</b> The pivot is an element of the range, so the second part is never empty;
/// when the first part is empty (the pivot is the minimum), the second part is partitioned again into elements equal
/// to the pivot, which are then in place, and the greater ones, which form the second child. Every child is therefore
/// strictly smaller than its parent, and all-equal or few-distinct inputs end quickly. Inputs that defeat the
/// first-elements sample (sorted, reversed) would split unevenly for a long time, so splitting also stops at depth
/// <see cref="MaxSplitDepth"/> = 2 (floor(log2 n) + 1), as introsort does; the leaves' introsort is O(n log n) on any input.</para>
/// <para><b>Warning.</b> Quicksort is the one unbalanced program: part sizes depend on the pivots, so size-based
/// granularity leaves some leaves smaller than others.</para>
/// </remarks>
public sealed class Quicksort : GranularDivideAndConquer<QuicksortProblem, IndexRange>
{
    private readonly int[] _source;
    private readonly int[] _output;

    /// <summary>Creates the sort of <paramref name="source"/> into <paramref name="output"/>.</summary>
    /// <param name="source">The elements to sort (never written).</param>
    /// <param name="output">Receives the sorted elements; same length, a different array.</param>
    /// <param name="options">Default options; <see langword="null"/>: the defaults.</param>
    /// <exception cref="ArgumentException">The lengths differ or the arrays are the same.</exception>
    public Quicksort(int[] source, int[] output, DivideAndConquerOptions? options = null)
        : base(options)
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentNullException.ThrowIfNull(output);
        if (output.Length != source.Length || ReferenceEquals(source, output))
        {
            throw new ArgumentException("The output must be a different array of the source's length.", nameof(output));
        }

        _source = source;
        _output = output;
        MaxSplitDepth = 2 * (int.Log2(Math.Max(source.Length, 1)) + 1);
    }

    /// <summary>Ranges at this depth are sorted by their leaf whatever their size (the guard against degenerate pivots).</summary>
    public int MaxSplitDepth { get; }

    /// <summary>The root problem: the whole source.</summary>
    public QuicksortProblem WholeProblem => new(new IndexRange(0, _source.Length), IsInOutput: false);

    /// <summary>Sorts the whole array with the execute muscle on the calling thread (copy, then one introsort).</summary>
    /// <returns>The sorted range.</returns>
    public IndexRange SortSequentially() => SortLeaf(WholeProblem);

    /// <inheritdoc/>
    protected override long GetSize(QuicksortProblem problem) => problem.Range.Length;

    /// <inheritdoc/>
    protected override bool ShouldSplit(QuicksortProblem problem, int depth) =>
        problem.Range.Length >= 2 && depth < MaxSplitDepth && base.ShouldSplit(problem, depth);

    /// <inheritdoc/>
    protected override IReadOnlyList<QuicksortProblem> Split(QuicksortProblem problem, int depth)
    {
        var range = problem.Range;
        var output = _output.AsSpan(range.Start, range.Length);
        int pivot;
        int lessCount;
        if (problem.IsInOutput)
        {
            pivot = SortKernels.MedianOfFirst(output);
            lessCount = SortKernels.PartitionInPlace(output, pivot);
        }
        else
        {
            var source = _source.AsSpan(range.Start, range.Length);
            pivot = SortKernels.MedianOfFirst(source);
            lessCount = SortKernels.PartitionCopy(source, output, pivot);
        }

        int greaterStart = range.Start + lessCount;
        if (lessCount == 0)
        {
            // The pivot is the minimum: set its copies aside (they are in their final place) so the child shrinks.
            greaterStart += SortKernels.PartitionEqual(output, pivot);
        }

        return
        [
            new QuicksortProblem(new IndexRange(range.Start, range.Start + lessCount), IsInOutput: true),
            new QuicksortProblem(new IndexRange(greaterStart, range.End), IsInOutput: true),
        ];
    }

    /// <inheritdoc/>
    protected override IndexRange Execute(QuicksortProblem problem, int depth) => SortLeaf(problem);

    /// <inheritdoc/>
    protected override IndexRange Merge(IReadOnlyList<IndexRange> subresults, int depth)
    {
        ArgumentNullException.ThrowIfNull(subresults);
        // The children cover [Start, less end) and [greater start, End); whatever lies between is pivot copies.
        return new IndexRange(subresults[0].Start, subresults[^1].End);
    }

    private IndexRange SortLeaf(QuicksortProblem problem)
    {
        var range = problem.Range;
        if (!problem.IsInOutput)
        {
            Array.Copy(_source, range.Start, _output, range.Start, range.Length);
        }

        Array.Sort(_output, range.Start, range.Length);
        return range;
    }
}
