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
/// <para><b>Resolution.</b> At the start of each run (<see cref="OnRunStarting"/>), <see cref="EffectiveGranularity"/>
/// is computed from <see cref="Granularity"/>: a fixed size as given; the root's size for
/// <see cref="Granularity.Sequential"/>; for <see cref="Granularity.Automatic"/>,
/// <see cref="ResolveAutomaticGranularity"/> with the target leaf count = the scheduler's worker count
/// (<see cref="TaskScheduler.MaximumConcurrencyLevel"/>, or <see cref="Environment.ProcessorCount"/> for the
/// unbounded thread pool) x leaves per worker. The default resolution suits splits that divide the size by the
/// branching factor; override it otherwise (Strassen: 7 children, each a quarter of the size).</para>
/// <para><b>Warning.</b> The resolved granularity is state of the instance, so an instance runs one run at a time: a
/// second <c>RunAsync</c> while one is in progress throws <see cref="InvalidOperationException"/>. Use one instance
/// per concurrent run.</para>
/// </remarks>
public abstract class GranularDivideAndConquer<TProblem, TResult> : DivideAndConquer<TProblem, TResult>
{
    private Granularity _granularity = Granularity.Automatic();

    // 1 while a run is in progress; guards the per-run fields below.
    private int _running;

    // Written in OnRunStarting before the root task is queued (a full fence), read by the run's tasks.
    private long _effectiveGranularity;
    private bool _splitByDepth;
    private int _depthLimit;

    /// <summary>Creates the program.</summary>
    /// <param name="options">Default options; <see langword="null"/>: <see cref="DivideAndConquerOptions.Default"/>.</param>
    protected GranularDivideAndConquer(DivideAndConquerOptions? options = null)
        : base(options)
    {
    }

    /// <summary>Where splitting stops. Default: <see cref="Granularity.Automatic"/>(4). Takes effect at the next run.</summary>
    /// <exception cref="ArgumentNullException">Set to <see langword="null"/>.</exception>
    public Granularity Granularity
    {
        get => _granularity;
        set => _granularity = value ?? throw new ArgumentNullException(nameof(value), "Granularity cannot be null; use Granularity.Automatic().");
    }

    /// <summary>
    /// The size threshold of the current (or last) run: problems larger than this are split. 0 before the first run
    /// and for a depth-based granularity (which ignores sizes).
    /// </summary>
    public long EffectiveGranularity => Volatile.Read(ref _effectiveGranularity);

    /// <summary>The size of <paramref name="problem"/>, at least 0; it must shrink as problems are split.</summary>
    /// <param name="problem">A problem or subproblem.</param>
    /// <returns>Its size.</returns>
    protected abstract long GetSize(TProblem problem);

    /// <summary>
    /// Splits while the problem is larger than <see cref="EffectiveGranularity"/> (or, for a depth-based
    /// granularity, while <paramref name="depth"/> is above the target depth).
    /// </summary>
    /// <param name="problem">The (sub)problem.</param>
    /// <param name="depth">Its depth; the root is at depth 0.</param>
    /// <returns><see langword="true"/> to split.</returns>
    protected internal override bool ShouldSplit(TProblem problem, int depth) =>
        _splitByDepth ? depth < _depthLimit : GetSize(problem) > _effectiveGranularity;

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

    /// <summary>Claims the instance for this run and resolves the granularity. Overrides must call the base.</summary>
    /// <param name="problem">The root problem.</param>
    /// <param name="options">The run's options.</param>
    /// <exception cref="InvalidOperationException">Another run of this instance is in progress, or the root's size is negative.</exception>
    protected override void OnRunStarting(TProblem problem, DivideAndConquerOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        // CompareExchange: two callers racing to start a run must not both win.
        if (Interlocked.CompareExchange(ref _running, 1, 0) != 0)
        {
            throw new InvalidOperationException(
                $"{GetType().Name} is already running: a granular program keeps the resolved granularity of its current run in the instance, so it runs one run at a time. Await the running task first, or use one instance per concurrent run.");
        }

        try
        {
            base.OnRunStarting(problem, options);
            Resolve(problem, options);
        }
        catch
        {
            // Volatile: release the claim so a corrected call can run.
            Volatile.Write(ref _running, 0);
            throw;
        }
    }

    /// <summary>Releases the instance for the next run. Overrides must call the base.</summary>
    protected override void OnRunCompleted()
    {
        base.OnRunCompleted();
        // Volatile: the run's reads of the per-run fields happen before the next run's writes to them.
        Volatile.Write(ref _running, 0);
    }

    private void Resolve(TProblem problem, DivideAndConquerOptions options)
    {
        var granularity = _granularity;
        if (granularity.Kind == GranularityKind.Depth)
        {
            _splitByDepth = true;
            _depthLimit = granularity.TargetDepth;
            Volatile.Write(ref _effectiveGranularity, 0);
            return;
        }

        _splitByDepth = false;
        long effective = granularity.Kind switch
        {
            GranularityKind.Fixed => granularity.Size,
            GranularityKind.Sequential => RootSize(problem),
            _ => ResolveAutomatic(problem, options, granularity.LeavesPerWorker),
        };
        // Volatile: EffectiveGranularity may be read by other threads (a monitor) while the run goes on.
        Volatile.Write(ref _effectiveGranularity, effective);
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
