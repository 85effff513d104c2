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
/// <para><b>Parallel partition.</b> A range longer than <see cref="MaximumSweepLength"/> is not partitioned by one
/// task (at the thesis size the root's partition alone took hundreds of milliseconds, holding its worker, which delays
/// the multiprogram scheduler's moves of that CPU). Its asynchronous split cuts it into blocks of at most that many
/// elements and runs, block by block in parallel on the run's scheduler (<see cref="TaskScheduler.Current"/>): a count
/// of each block's elements below the pivot, then (after prefix sums over the blocks, a few integers) a scatter of
/// each block into the other buffer, its small elements to the first part and the others to the second, each part in
/// block order. The other buffer is the output for a range still in the source or in the scratch buffer, and the
/// scratch buffer (one array of the source's length, allocated at the first run that needs it) for a range in the
/// output, so the buffers alternate and nothing is copied back: a child records where its elements are
/// (<see cref="QuicksortProblem.IsInOutput"/>, <see cref="QuicksortProblem.IsInScratch"/>), and a leaf whose range is
/// not in the output copies it there before sorting, as the root's leaf copies from the source. When nothing is below
/// the pivot, the count is redone with the bound pivot + 1 and the copies of the pivot are set aside as in the
/// sequential split (written to the output). The count is vectorised and the scatter branch-free, so a parallel
/// level costs about what a sequential partition did. Ranges no longer than the limit are split as before.</para>
/// <para><b>Warning.</b> Quicksort is the one unbalanced program: part sizes depend on the pivots, so size-based
/// granularity leaves some leaves smaller than others.</para>
/// </remarks>
public sealed class Quicksort : GranularDivideAndConquer<QuicksortProblem, IndexRange>
{
    private readonly int[] _source;
    private readonly int[] _output;
    private readonly int _maximumSweepLength = ParallelSweep.DefaultMaximumLength;

    // Allocated (before the root task is queued) by the first run whose root is longer than the sweep limit.
    private int[]? _scratch;

    // Per run (an instance runs one sort at a time: every run writes the same output): set in OnRunStarting.
    private ExecutionEngine _engine;

    /// <summary>Creates the sort of <paramref name="source"/> into <paramref name="output"/>.</summary>
    /// <param name="source">The elements to sort (never written).</param>
    /// <param name="output">Receives the sorted elements; same length, a different array.</param>
    /// <param name="options">Default options; <see langword="null"/>: the defaults.</param>
    /// <exception cref="ArgumentException">The lengths differ or the arrays are the same.</exception>
    public Quicksort(int[] source, int[] output, DivideAndConquerOptions? options = null)
        : base(options)
    {
        SortArguments.ThrowIfNotSeparateOutput(source, output);
        _source = source;
        _output = output;
        MaxSplitDepth = 2 * (int.Log2(Math.Max(source.Length, 1)) + 1);
    }

    /// <summary>Ranges at this depth are sorted by their leaf whatever their size (the guard against degenerate pivots).</summary>
    public int MaxSplitDepth { get; }

    /// <summary>
    /// Ranges longer than this are partitioned in parallel, in blocks of at most this many elements (see the remarks);
    /// default 2^19. At least 1.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is less than 1.</exception>
    public int MaximumSweepLength
    {
        get => _maximumSweepLength;
        init
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 1);
            _maximumSweepLength = value;
        }
    }

    /// <summary>Receives the number of elements of every sequential piece of work (a block, a split, a leaf): for tests.</summary>
    internal Action<long>? PieceObserver { get; set; }

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
    protected override void OnRunStarting(QuicksortProblem problem, DivideAndConquerOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        base.OnRunStarting(problem, options);
        _engine = options.Engine;
        if (problem.Range.Length > _maximumSweepLength)
        {
            _scratch ??= new int[_source.Length];
        }
    }

    /// <inheritdoc/>
    protected override ValueTask<IReadOnlyList<QuicksortProblem>> SplitAsync(QuicksortProblem problem, int depth, CancellationToken cancellationToken) =>
        problem.Range.Length > _maximumSweepLength && _scratch is not null
            ? new ValueTask<IReadOnlyList<QuicksortProblem>>(SplitInParallelAsync(problem, TaskScheduler.Current, _engine, cancellationToken))
            : new ValueTask<IReadOnlyList<QuicksortProblem>>(Split(problem, depth));

    /// <inheritdoc/>
    protected override IReadOnlyList<QuicksortProblem> Split(QuicksortProblem problem, int depth)
    {
        var range = problem.Range;
        var output = _output.AsSpan(range.Start, range.Length);
        int pivot;
        int lessCount;
        PieceObserver?.Invoke(range.Length);
        if (problem.IsInOutput)
        {
            pivot = SortKernels.MedianOfFirst(output);
            lessCount = SortKernels.PartitionInPlace(output, pivot);
        }
        else
        {
            var source = BufferOf(problem).AsSpan(range.Start, range.Length);
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
        PieceObserver?.Invoke(range.Length);
        if (!problem.IsInOutput)
        {
            Array.Copy(BufferOf(problem), range.Start, _output, range.Start, range.Length);
        }

        Array.Sort(_output, range.Start, range.Length);
        return range;
    }

    // The array that holds a problem's elements now.
    private int[] BufferOf(QuicksortProblem problem) =>
        problem.IsInOutput ? _output
        : problem.IsInScratch ? _scratch ?? throw new InvalidOperationException("A range is in the scratch buffer, which was never allocated.")
        : _source;

    // The parallel partition of the remarks. Invariant between the sweeps: counts[b] is the number of elements of
    // block b below the bound, and the blocks tile the range in order; the scatter therefore writes every slot of the
    // range in the other buffer exactly once, and blocks never write the same slot. Each sweep completes (every block
    // done) before the next starts, which orders the counts' writes before their reads and the scatter's writes before
    // the children read them (task completion publishes the writes).
    private async Task<IReadOnlyList<QuicksortProblem>> SplitInParallelAsync(QuicksortProblem problem, TaskScheduler scheduler, ExecutionEngine engine, CancellationToken cancellationToken)
    {
        var range = problem.Range;
        int[] from = BufferOf(problem);
        int[] to = problem.IsInOutput ? _scratch! : _output;
        int pivot = SortKernels.MedianOfFirst(from.AsSpan(range.Start, range.Length));
        int blocks = ParallelSweep.BlockCount(range.Length, _maximumSweepLength);
        int blockLength = (range.Length + blocks - 1) / blocks;
        var counts = new int[blocks];
        var observer = PieceObserver;
        IndexRange Block(int block) =>
            new(Math.Min(range.Start + (block * blockLength), range.End), Math.Min(range.Start + ((block + 1) * blockLength), range.End));

        async Task<int> CountBelowAsync(int bound)
        {
            await ParallelSweep.RunAsync(
                blocks,
                block =>
                {
                    var span = Block(block);
                    observer?.Invoke(span.Length);
                    counts[block] = SortKernels.CountLess(from.AsSpan(span.Start, span.Length), bound);
                },
                scheduler,
                engine,
                cancellationToken).ResumeOn(scheduler);
            int total = 0;
            foreach (int count in counts)
            {
                total += count;
            }

            return total;
        }

        int bound = pivot;
        int lessCount = await CountBelowAsync(bound).ResumeOn(scheduler);
        bool setAside = lessCount == 0;
        if (setAside)
        {
            // The pivot is the minimum: its copies go first and are set aside (in their final place), so the child shrinks.
            if (pivot == int.MaxValue)
            {
                lessCount = range.Length;
            }
            else
            {
                bound = pivot + 1;
                lessCount = await CountBelowAsync(bound).ResumeOn(scheduler);
            }
        }

        int[] holder = from;
        if (!(setAside && lessCount == range.Length))
        {
            // Prefix sums: block b's small elements start after those of blocks < b, its others after the first part
            // and the others of blocks < b.
            var lessStarts = new int[blocks];
            var otherStarts = new int[blocks];
            int less = range.Start, other = range.Start + lessCount;
            for (int block = 0; block < blocks; block++)
            {
                lessStarts[block] = less;
                otherStarts[block] = other;
                less += counts[block];
                other += Block(block).Length - counts[block];
            }

            await ParallelSweep.RunAsync(
                blocks,
                block =>
                {
                    var span = Block(block);
                    observer?.Invoke(span.Length);
                    SortKernels.Scatter(from.AsSpan(span.Start, span.Length), to, bound, lessStarts[block], otherStarts[block]);
                },
                scheduler,
                engine,
                cancellationToken).ResumeOn(scheduler);
            holder = to;
        }

        if (setAside && holder != _output)
        {
            // The set-aside copies all equal the pivot: writing the value puts them in their final place.
            var equal = new IndexRange(range.Start, range.Start + lessCount);
            int fillBlocks = ParallelSweep.BlockCount(equal.Length, _maximumSweepLength);
            int fillLength = (equal.Length + fillBlocks - 1) / fillBlocks;
            await ParallelSweep.RunAsync(
                fillBlocks,
                block =>
                {
                    int start = Math.Min(equal.Start + (block * fillLength), equal.End);
                    int length = Math.Min(fillLength, equal.End - start);
                    observer?.Invoke(length);
                    _output.AsSpan(start, length).Fill(pivot);
                },
                scheduler,
                engine,
                cancellationToken).ResumeOn(scheduler);
        }

        var firstPart = new IndexRange(range.Start, range.Start + lessCount);
        var secondPart = new IndexRange(firstPart.End, range.End);
        return
        [
            setAside ? new QuicksortProblem(new IndexRange(range.Start, range.Start), IsInOutput: true) : Located(firstPart, holder),
            Located(secondPart, holder),
        ];
    }

    private QuicksortProblem Located(IndexRange range, int[] holder) =>
        new(range, IsInOutput: holder == _output) { IsInScratch = holder == _scratch };
}
