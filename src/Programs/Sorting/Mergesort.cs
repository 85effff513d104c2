using DivCon.Skeletons;

namespace DivCon.Programs.Sorting;

/// <summary>
/// A non-destructive parallel mergesort: sorts a source array into a separate output array, never writing the source.
/// </summary>
/// <remarks>
/// <para><b>Algorithm.</b> Split halves the range. A leaf copies its range from the source and sorts it with
/// <see cref="Array.Sort{T}(T[], int, int)"/>, so the copy is spread over the leaves. Merge merges the two sorted
/// halves sequentially (<see cref="SortKernels.Merge"/>); <see cref="ParallelMergesort"/> overrides that with a
/// parallel merge.</para>
/// <para><b>Buffers.</b> Merging needs a second array (the scratch buffer, allocated once per instance). Instead of
/// copying back after each merge, the buffers alternate by depth: a node at depth d leaves its sorted range in the
/// output when d is even and in the scratch buffer when d is odd. A merge at depth d therefore reads its children's
/// runs from one buffer and writes to the other, and the root's result lands in the output. A leaf sorts in the
/// buffer of its own depth, which also handles leaves at different depths.</para>
/// </remarks>
public class Mergesort : GranularDivideAndConquer<IndexRange, IndexRange>
{
    private readonly int[] _source;
    private readonly int[] _output;
    private readonly int[] _scratch;

    /// <summary>Creates the sort of <paramref name="source"/> into <paramref name="output"/>.</summary>
    /// <param name="source">The elements to sort (never written).</param>
    /// <param name="output">Receives the sorted elements; same length, a different array.</param>
    /// <param name="options">Default options; <see langword="null"/>: the defaults.</param>
    /// <exception cref="ArgumentException">The lengths differ or the arrays are the same.</exception>
    public Mergesort(int[] source, int[] output, DivideAndConquerOptions? options = null)
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
        _scratch = new int[source.Length];
    }

    /// <summary>The root problem: every index.</summary>
    public IndexRange WholeRange => new(0, _source.Length);

    /// <summary>Sorts the whole array with the execute muscle on the calling thread (copy, then one introsort).</summary>
    /// <returns>The sorted range.</returns>
    public IndexRange SortSequentially() => SortLeaf(WholeRange, depth: 0);

    /// <summary>The array where a node at <paramref name="depth"/> leaves its sorted range: the output at even depths, the scratch buffer at odd ones.</summary>
    /// <param name="depth">The node's depth.</param>
    /// <returns>The buffer.</returns>
    protected int[] BufferAt(int depth) => depth % 2 == 0 ? _output : _scratch;

    /// <inheritdoc/>
    protected override long GetSize(IndexRange problem) => problem.Length;

    /// <inheritdoc/>
    protected override bool ShouldSplit(IndexRange problem, int depth) => problem.Length >= 2 && base.ShouldSplit(problem, depth);

    /// <inheritdoc/>
    protected override IReadOnlyList<IndexRange> Split(IndexRange problem, int depth) => problem.Split(2);

    /// <inheritdoc/>
    protected override IndexRange Execute(IndexRange problem, int depth) => SortLeaf(problem, depth);

    /// <inheritdoc/>
    protected override IndexRange Merge(IReadOnlyList<IndexRange> subresults, int depth)
    {
        ArgumentNullException.ThrowIfNull(subresults);
        var (left, right) = (subresults[0], subresults[1]);
        int[] from = BufferAt(depth + 1), to = BufferAt(depth);
        SortKernels.Merge(from.AsSpan(left.Start, left.Length), from.AsSpan(right.Start, right.Length), to.AsSpan(left.Start, left.Length + right.Length));
        return new IndexRange(left.Start, right.End);
    }

    private IndexRange SortLeaf(IndexRange range, int depth)
    {
        int[] buffer = BufferAt(depth);
        Array.Copy(_source, range.Start, buffer, range.Start, range.Length);
        Array.Sort(buffer, range.Start, range.Length);
        return range;
    }
}
