using DivCon.Skeletons;

namespace DivCon.Programs.Sorting;

/// <summary>
/// <see cref="Mergesort"/> whose merges are themselves parallel: nested parallelism through the skeleton's
/// asynchronous merge. A large merge runs <see cref="ParallelMerge"/> as a nested skeleton run on the same scheduler
/// and hands the engine its task; no thread waits for it.
/// </summary>
/// <remarks>
/// <para><b>Why.</b> In a plain mergesort the last merges run on one or two tasks, however many workers there are: the
/// top merge alone touches every element sequentially. Splitting each merge by the median of the longer run (see
/// <see cref="ParallelMerge"/>) lets every worker help.</para>
/// <para><b>Granularity of the nested merges.</b> A merge of n elements is split down to pieces of
/// max(<see cref="MinimumMergeLeafSize"/>, n / (4 x workers)); merges no larger than that are done sequentially in the
/// merge task itself.</para>
/// <para><b>Under the fork-join engine</b> the outer merge blocks its thread anyway, and a blocked thread waiting for a
/// nested non-blocking run could starve a fixed-size scheduler (the nested tasks queue behind it). So there the merge
/// is a fork-join recursion of the same division: fork the first half as a task on the run's scheduler, merge the
/// second half, then wait for the first (which the scheduler may run inline, as the fork-join engine relies on).</para>
/// <para>Phase observation: the outer merge's duration is the wall time of its nested merge; the nested runs are not
/// observed themselves.</para>
/// </remarks>
public sealed class ParallelMergesort : Mergesort
{
    /// <summary>The default of <see cref="MinimumMergeLeafSize"/>.</summary>
    public const int DefaultMinimumMergeLeafSize = 1 << 15;

    private static readonly Action<object?> s_forkedMerge = static state =>
    {
        var (problem, scheduler) = ((MergeProblem, TaskScheduler))state!;
        ForkJoinMerge(problem, scheduler);
    };

    private readonly int _minimumMergeLeafSize = DefaultMinimumMergeLeafSize;

    // Per run (an instance runs one run at a time): written in OnRunStarting before the root task is queued.
    private TaskScheduler _scheduler = TaskScheduler.Default;
    private ExecutionEngine _engine;
    private int _workers = 1;

    /// <summary>Creates the sort of <paramref name="source"/> into <paramref name="output"/>.</summary>
    /// <param name="source">The elements to sort (never written).</param>
    /// <param name="output">Receives the sorted elements; same length, a different array.</param>
    /// <param name="options">Default options; <see langword="null"/>: the defaults.</param>
    /// <exception cref="ArgumentException">The lengths differ or the arrays are the same.</exception>
    public ParallelMergesort(int[] source, int[] output, DivideAndConquerOptions? options = null)
        : base(source, output, options)
    {
    }

    /// <summary>Nested merges are never split below this many elements. At least 2.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is less than 2.</exception>
    public int MinimumMergeLeafSize
    {
        get => _minimumMergeLeafSize;
        init
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 2);
            _minimumMergeLeafSize = value;
        }
    }

    /// <inheritdoc/>
    protected override void OnRunStarting(IndexRange problem, DivideAndConquerOptions options)
    {
        base.OnRunStarting(problem, options);
        _scheduler = options.Scheduler;
        _engine = options.Engine;
        _workers = GranularityPolicy.WorkerCount(options.Scheduler.MaximumConcurrencyLevel, Environment.ProcessorCount);
    }

    /// <inheritdoc/>
    protected override ValueTask<IndexRange> MergeAsync(IndexRange problem, IReadOnlyList<IndexRange> subresults, int depth, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(subresults);
        var (left, right) = (subresults[0], subresults[1]);
        int total = left.Length + right.Length;
        int leafSize = (int)Math.Max(_minimumMergeLeafSize, GranularityPolicy.EvenSplitGranularity(total, GranularityPolicy.TargetLeaves(_workers, Granularity.DefaultLeavesPerWorker)));
        if (total <= leafSize)
        {
            return new ValueTask<IndexRange>(Merge(subresults, depth));
        }

        var mergeProblem = new MergeProblem(BufferAt(depth + 1), left, right, BufferAt(depth), left.Start, leafSize);
        if (_engine == ExecutionEngine.ForkJoin)
        {
            ForkJoinMerge(mergeProblem, _scheduler);
            return new ValueTask<IndexRange>(new IndexRange(left.Start, right.End));
        }

        // The nested run's result is the destination range it filled, which is this node's merged range.
        var options = DivideAndConquerOptions.Default with { Scheduler = _scheduler };
        return new ValueTask<IndexRange>(ParallelMerge.Shared.RunAsync(mergeProblem, options, cancellationToken));
    }

    private static void ForkJoinMerge(MergeProblem problem, TaskScheduler scheduler)
    {
        if (problem.Length <= problem.LeafSize)
        {
            ParallelMerge.MergeSequentially(problem);
            return;
        }

        var (first, second) = ParallelMerge.Divide(problem);
        var forked = Task.Factory.StartNew(s_forkedMerge, (first, scheduler), CancellationToken.None, TaskCreationOptions.DenyChildAttach, scheduler);
        ForkJoinMerge(second, scheduler);
        // Blocks like the fork-join engine does; the wait lets the scheduler run the forked half inline if no worker took it.
        forked.GetAwaiter().GetResult();
    }
}
