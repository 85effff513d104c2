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
/// <para><b>Long merges.</b> A merge of more than <see cref="MaximumSweepLength"/> elements is not done by one task
/// (the root's merge of the thesis size took hundreds of milliseconds, holding its worker, which delays the
/// multiprogram scheduler's moves of that CPU): its asynchronous merge runs <see cref="ParallelMerge"/> on the run's
/// scheduler (<see cref="TaskScheduler.Current"/>), split down to pieces of at most that many elements, and hands the
/// engine its task (under the fork-join engine, a fork-join recursion of the same division). Merges no longer than
/// that stay sequential, as in the thesis's mergesort; <see cref="ParallelMergesort"/> goes further and merges in
/// parallel for speed. The output is the same either way (a merge of sorted integers is unique).</para>
/// </remarks>
public class Mergesort : GranularDivideAndConquer<IndexRange, IndexRange>
{
    private readonly int[] _source;
    private readonly int[] _output;
    private readonly int[] _scratch;
    private readonly int _maximumSweepLength = ParallelSweep.DefaultMaximumLength;

    private static readonly Action<object?> s_forkedMerge = static state =>
    {
        var (sort, problem, scheduler) = ((Mergesort, MergeProblem, TaskScheduler))state!;
        sort.ForkJoinMerge(problem, scheduler);
    };

    // Per run (an instance runs one sort at a time: every run writes the same buffers): set in OnRunStarting.
    private ExecutionEngine _engine;

    /// <summary>Creates the sort of <paramref name="source"/> into <paramref name="output"/>.</summary>
    /// <param name="source">The elements to sort (never written).</param>
    /// <param name="output">Receives the sorted elements; same length, a different array.</param>
    /// <param name="options">Default options; <see langword="null"/>: the defaults.</param>
    /// <exception cref="ArgumentException">The lengths differ or the arrays are the same.</exception>
    public Mergesort(int[] source, int[] output, DivideAndConquerOptions? options = null)
        : base(options)
    {
        SortArguments.ThrowIfNotSeparateOutput(source, output);
        _source = source;
        _output = output;
        _scratch = new int[source.Length];
    }

    /// <summary>
    /// Merges of more than this many elements are done in parallel, in pieces of at most this many (see the remarks);
    /// default 2^19. At least 2.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is less than 2.</exception>
    public int MaximumSweepLength
    {
        get => _maximumSweepLength;
        init
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 2);
            _maximumSweepLength = value;
        }
    }

    /// <summary>Receives the number of elements of every sequential piece of work (a merge or a piece of one, a leaf): for tests.</summary>
    internal Action<long>? PieceObserver { get; set; }

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
        PieceObserver?.Invoke(left.Length + right.Length);
        SortKernels.Merge(from.AsSpan(left.Start, left.Length), from.AsSpan(right.Start, right.Length), to.AsSpan(left.Start, left.Length + right.Length));
        return new IndexRange(left.Start, right.End);
    }

    /// <inheritdoc/>
    protected override void OnRunStarting(IndexRange problem, DivideAndConquerOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        base.OnRunStarting(problem, options);
        _engine = options.Engine;
    }

    /// <inheritdoc/>
    protected override ValueTask<IndexRange> MergeAsync(IndexRange problem, IReadOnlyList<IndexRange> subresults, int depth, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(subresults);
        var (left, right) = (subresults[0], subresults[1]);
        int total = left.Length + right.Length;
        int leafSize = MergeLeafSize(total);
        if (total <= leafSize)
        {
            return new ValueTask<IndexRange>(Merge(subresults, depth));
        }

        var mergeProblem = new MergeProblem(BufferAt(depth + 1), left, right, BufferAt(depth), left.Start, leafSize);
        var scheduler = TaskScheduler.Current;
        if (_engine == ExecutionEngine.ForkJoin)
        {
            ForkJoinMerge(mergeProblem, scheduler);
            return new ValueTask<IndexRange>(new IndexRange(left.Start, right.End));
        }

        // The nested run's result is the destination range it filled, which is this node's merged range.
        var options = DivideAndConquerOptions.Default with { Scheduler = scheduler };
        var merge = PieceObserver is { } observer ? new ParallelMerge { PieceObserver = observer } : ParallelMerge.Shared;
        // CompletingOn: the engine's wait for the nested run then never passes through the .NET thread pool.
        return new ValueTask<IndexRange>(merge.RunAsync(mergeProblem, options, cancellationToken).CompletingOn(scheduler));
    }

    /// <summary>The most elements a merge of <paramref name="total"/> elements merges in one piece (at least 2).</summary>
    /// <param name="total">The elements of the merge.</param>
    /// <returns>Merges no longer than this are sequential; longer ones are split into pieces no longer than it.</returns>
    internal virtual int MergeLeafSize(int total) => _maximumSweepLength;

    private void ForkJoinMerge(MergeProblem problem, TaskScheduler scheduler)
    {
        if (problem.Length <= problem.LeafSize)
        {
            PieceObserver?.Invoke(problem.Length);
            ParallelMerge.MergeSequentially(problem);
            return;
        }

        var (first, second) = ParallelMerge.Divide(problem);
        var forked = Task.Factory.StartNew(s_forkedMerge, (this, first, scheduler), CancellationToken.None, TaskCreationOptions.DenyChildAttach, scheduler);
        ForkJoinMerge(second, scheduler);
        // Blocks like the fork-join engine does; the wait lets the scheduler run the forked half inline if no worker took it.
        forked.GetAwaiter().GetResult();
    }

    private IndexRange SortLeaf(IndexRange range, int depth)
    {
        PieceObserver?.Invoke(range.Length);
        int[] buffer = BufferAt(depth);
        Array.Copy(_source, range.Start, buffer, range.Start, range.Length);
        Array.Sort(buffer, range.Start, range.Length);
        return range;
    }
}
