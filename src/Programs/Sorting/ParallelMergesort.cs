using DivCon.Skeletons;

namespace DivCon.Programs.Sorting;

/// <summary>
/// <see cref="Mergesort"/> whose merges are themselves parallel for speed: nested parallelism through the skeleton's
/// asynchronous merge. A large merge runs <see cref="ParallelMerge"/> as a nested skeleton run on the same scheduler
/// and hands the engine its task; no thread waits for it.
/// </summary>
/// <remarks>
/// <para><b>Why.</b> In a plain mergesort the last merges run on one or two tasks, however many workers there are: the
/// top merge alone touches every element sequentially. Splitting each merge by the median of the longer run (see
/// <see cref="ParallelMerge"/>) lets every worker help. (<see cref="Mergesort"/> itself splits only merges longer than
/// <see cref="Mergesort.MaximumSweepLength"/>, to bound the length of a task, not for speed.)</para>
/// <para><b>Granularity of the nested merges.</b> A merge of n elements is split down to pieces of
/// max(<see cref="MinimumMergeLeafSize"/>, n / (4 x workers)), and never longer than
/// <see cref="Mergesort.MaximumSweepLength"/> (which wins over the minimum if smaller); merges no larger than that are
/// done sequentially in the merge task itself.</para>
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

    private readonly int _minimumMergeLeafSize = DefaultMinimumMergeLeafSize;

    // Per run (an instance runs one run at a time): written in OnRunStarting before the root task is queued.
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

    /// <summary>Nested merges are never split below this many elements (unless it exceeds <see cref="Mergesort.MaximumSweepLength"/>). At least 2.</summary>
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
        ArgumentNullException.ThrowIfNull(options);
        base.OnRunStarting(problem, options);
        _workers = GranularityPolicy.WorkerCount(options.Scheduler.MaximumConcurrencyLevel, Environment.ProcessorCount);
    }

    /// <inheritdoc/>
    internal override int MergeLeafSize(int total)
    {
        long even = GranularityPolicy.EvenSplitGranularity(total, GranularityPolicy.TargetLeaves(_workers, Granularity.DefaultLeavesPerWorker));
        return (int)Math.Min(MaximumSweepLength, Math.Max(_minimumMergeLeafSize, even));
    }
}
