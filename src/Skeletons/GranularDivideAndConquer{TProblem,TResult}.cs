using DivCon.Skeletons.Engines;

namespace DivCon.Skeletons;

/// <summary>
/// A divide-and-conquer program that knows the size of its problems, so the skeleton can decide where splitting
/// stops (<see cref="Granularity"/>), including automatically from the scheduler's worker count, and can run the
/// program sequentially by making the whole problem one leaf.
/// </summary>
/// <typeparam name="TProblem">A problem or subproblem.</typeparam>
/// <typeparam name="TResult">The result of a (sub)problem.</typeparam>
/// <remarks>
/// <para><b>The idea.</b> Subclasses implement <see cref="GetSize"/> (elements in a range, matrix elements, points to
/// sample: any measure that shrinks as problems are divided) plus split, execute and merge. The default
/// <see cref="ShouldSplit"/> splits while <c>GetSize(problem) &gt; EffectiveGranularity</c>; override it to add
/// program-specific limits (calling the base).</para>
/// <para><b>Resolution.</b> At the start of each run the size rule is resolved from <see cref="DivideAndConquer{TProblem, TResult}.Granularity"/>:
/// a fixed size as given; the root's size for <see cref="Granularity.Sequential"/>; for
/// <see cref="Granularity.ByLeafCount"/>, <see cref="ResolveAutomaticGranularity"/> with the target leaf count = the
/// scheduler's worker count (<see cref="TaskScheduler.MaximumConcurrencyLevel"/>, or
/// <see cref="Environment.ProcessorCount"/> for the unbounded thread pool) x leaves per worker. The default resolution
/// suits splits that divide the size by the branching factor; override it otherwise (Strassen: 7 children, each a
/// quarter of the size).</para>
/// <para><b>Automatic granularity</b> (the default) starts from the leaf-count rule with
/// <see cref="Granularity.DefaultLeavesPerWorker"/> leaves per worker, and also splits a problem of size 2 or more
/// whose execute the run predicts to take longer than <see cref="Granularity.MaximumTaskDuration"/>: the prediction
/// is the size times the smallest execute cost per unit of size measured so far in the run (so a preempted leaf
/// cannot inflate it). Until four leaves have finished (the first include JIT compilation) the run predicts from what
/// the instance's previous run measured; on an instance's first run, with nothing to predict from, it splits down to
/// the leaf-count size divided by 64, so that the first leaves it measures are short.
/// Subtrees predicted cheaper than <see cref="Granularity.MinimumTaskCost"/> run inline, as for any program.</para>
/// <para><b>Concurrent runs.</b> The resolved rule belongs to the run (the engines hand it to
/// <see cref="ShouldSplit"/> through the thread that processes a node), so one instance may run several problems at
/// once. <see cref="EffectiveGranularity"/> shows the rule of the run started last.</para>
/// </remarks>
public abstract class GranularDivideAndConquer<TProblem, TResult> : DivideAndConquer<TProblem, TResult>
{
    // The rule of the run started last: what EffectiveGranularity shows, and what ShouldSplit uses when called
    // outside a run. Written before the root task is queued (a full fence); replaced whole, never mutated.
    private RunGranularity? _lastRun;

    // What the runs of this instance learned about their leaves' cost, carried to the next run (automatic granularity).
    // Shared by the nested loops created from the same code (see Loops), else the instance's own.
    private readonly LeafCostMemory _leafCosts;

    /// <summary>
    /// Before a run can predict its leaves (no leaf measured yet, nothing learned by an earlier run), automatic
    /// granularity splits down to the leaf-count size divided by this, so that the leaves it measures first are
    /// short: otherwise a run's first leaves would be the coarse leaf-count ones (a 2^26-element sort on two workers:
    /// eight leaves of about half a second), holding their workers far longer than the maximum task duration.
    /// </summary>
    internal const long ProbeDivisor = 64;

    /// <summary>Creates the program.</summary>
    /// <param name="options">Default options; <see langword="null"/>: <see cref="DivideAndConquerOptions.Default"/>.</param>
    protected GranularDivideAndConquer(DivideAndConquerOptions? options = null)
        : base(options)
    {
        _leafCosts = new LeafCostMemory();
    }

    /// <summary>A program whose learned leaf cost is <paramref name="leafCosts"/>, shared with other instances.</summary>
    /// <param name="options">Default options; <see langword="null"/>: <see cref="DivideAndConquerOptions.Default"/>.</param>
    /// <param name="leafCosts">The memory shared by the instances made from the same code (the nested loops).</param>
    private protected GranularDivideAndConquer(DivideAndConquerOptions? options, LeafCostMemory leafCosts)
        : base(options)
    {
        _leafCosts = leafCosts;
    }

    /// <summary>
    /// Whether a run predicts subtrees from the remembered leaf cost until it has measured its own (see
    /// <see cref="CostEstimator(LeafCostMemory, bool)"/>); the nested loops do.
    /// </summary>
    private protected virtual bool PredictsSubtreesFromLeafCost => false;

    /// <summary>
    /// The size threshold of the run started last: problems larger than this are split (under
    /// <see cref="Granularity.Automatic()"/>, also longer ones). 0 before the first run and for a depth-based
    /// granularity (which ignores sizes).
    /// </summary>
    public long EffectiveGranularity => Volatile.Read(ref _lastRun)?.SizeThreshold ?? 0;

    /// <summary>The size of <paramref name="problem"/>, at least 0; it must shrink as problems are split.</summary>
    /// <param name="problem">A problem or subproblem.</param>
    /// <returns>Its size.</returns>
    protected abstract long GetSize(TProblem problem);

    /// <summary>
    /// Splits while the problem is larger than the run's size threshold (or, for a depth-based granularity, while
    /// <paramref name="depth"/> is above the target depth); under <see cref="Granularity.Automatic()"/> also while its
    /// execute is predicted to take longer than the maximum task duration (see the remarks).
    /// </summary>
    /// <param name="problem">The (sub)problem.</param>
    /// <param name="depth">Its depth; the root is at depth 0.</param>
    /// <returns><see langword="true"/> to split.</returns>
    protected override bool ShouldSplit(TProblem problem, int depth)
    {
        var run = RunGranularity.Current ?? Volatile.Read(ref _lastRun);
        if (run is null)
        {
            return GetSize(problem) > 0;
        }

        if (run.SplitByDepth)
        {
            return depth < run.DepthLimit;
        }

        long size = GetSize(problem);
        if (size > run.SizeThreshold)
        {
            return true;
        }

        if (run.MaximumTicks > 0 && size >= 2 && run.Costs is { } costs)
        {
            if (costs.IsLeafCostUnknown)
            {
                // Probe: nothing to predict from yet, so make the first leaves small (see ProbeDivisor).
                return size > run.SizeThreshold / ProbeDivisor;
            }

            long predicted = costs.PredictLeaf(size);
            return predicted != CostEstimator.Unknown && predicted > run.MaximumTicks;
        }

        return false;
    }

    /// <summary>
    /// The granularity that yields about <paramref name="targetLeaves"/> leaves for a root of
    /// <paramref name="problemSize"/>. Default: <see cref="GranularityPolicy.EvenSplitGranularity"/>, right when
    /// every split divides the size evenly among its children.
    /// </summary>
    /// <param name="problemSize">The root's size.</param>
    /// <param name="targetLeaves">The leaf count to aim at (workers x leaves per worker).</param>
    /// <returns>The granularity, at least 1.</returns>
    protected virtual long ResolveAutomaticGranularity(long problemSize, int targetLeaves) =>
        GranularityPolicy.EvenSplitGranularity(problemSize, targetLeaves);

    /// <inheritdoc/>
    internal sealed override long SizeOf(TProblem problem) => GetSize(problem);

    /// <inheritdoc/>
    internal sealed override RunGranularity CreateRunGranularity(TProblem problem, DivideAndConquerOptions options, Granularity granularity)
    {
        var run = granularity.Kind switch
        {
            GranularityKind.Depth => new RunGranularity { SplitByDepth = true, DepthLimit = granularity.TargetDepth },
            GranularityKind.Fixed => new RunGranularity { SizeThreshold = granularity.Size },
            GranularityKind.Sequential => new RunGranularity { SizeThreshold = RootSize(problem) },
            GranularityKind.LeafCount => new RunGranularity { SizeThreshold = ResolveAutomatic(problem, options, granularity.LeavesPerWorker) },
            _ => RunGranularity.ByTime(granularity, ResolveAutomatic(problem, options, granularity.LeavesPerWorker), _leafCosts, PredictsSubtreesFromLeafCost),
        };
        // Volatile: EffectiveGranularity may be read by other threads (a monitor) while runs go on.
        Volatile.Write(ref _lastRun, run);
        return run;
    }

    private long ResolveAutomatic(TProblem problem, DivideAndConquerOptions options, int leavesPerWorker)
    {
        int workers = GranularityPolicy.WorkerCount(options.Scheduler.MaximumConcurrencyLevel, Environment.ProcessorCount);
        long granularity = ResolveAutomaticGranularity(RootSize(problem), GranularityPolicy.TargetLeaves(workers, leavesPerWorker));
        return granularity >= 1
            ? granularity
            : throw new InvalidOperationException($"ResolveAutomaticGranularity returned {granularity}; a granularity must be at least 1.");
    }

    private long RootSize(TProblem problem)
    {
        long size = GetSize(problem);
        return size >= 0 ? size : throw new InvalidOperationException($"GetSize returned {size} for the root problem; sizes must be >= 0.");
    }
}
