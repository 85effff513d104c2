namespace DivCon.Skeletons;

/// <summary>
/// How a divide-and-conquer run executes: on which scheduler, with which engine and granularity, observed by whom
/// and how deep it may recurse. Immutable; derive variants with <c>with</c>:
/// <c>DivideAndConquerOptions.Default with { Scheduler = myScheduler }</c>.
/// </summary>
/// <remarks>
/// Every property validates its value when set (also inside a <c>with</c> expression), so an options object
/// that exists is always valid.
/// </remarks>
public sealed record DivideAndConquerOptions
{
    // null: no scheduler named, each run uses TaskScheduler.Current of the thread that starts it.
    private readonly TaskScheduler? _scheduler;
    private readonly Granularity? _granularity;
    private readonly ExecutionEngine _engine = ExecutionEngine.Continuation;
    private readonly int? _maxDepth;
    private readonly int _recursionLimit = DefaultRecursionLimit;

    /// <summary>The default <see cref="RecursionLimit"/>: 10,000 levels, far beyond any balanced tree.</summary>
    public const int DefaultRecursionLimit = 10_000;

    /// <summary>
    /// The defaults: the caller's scheduler (<see cref="TaskScheduler.Current"/> when the run starts, which is
    /// <see cref="TaskScheduler.Default"/> outside any task), the continuation engine, the program's own granularity,
    /// no observer, no depth limit, a recursion limit of <see cref="DefaultRecursionLimit"/>.
    /// </summary>
    public static DivideAndConquerOptions Default { get; } = new();

    /// <summary>
    /// The scheduler that runs every task of the run (splits, executes and merges). When none is named (the
    /// default, <see cref="InheritsScheduler"/>), a run uses the scheduler of the code that starts it:
    /// <see cref="TaskScheduler.Current"/>, read once when the run starts. Outside any task that is
    /// <see cref="TaskScheduler.Default"/> (the .NET thread pool); inside a split or merge of a run, or in a task of a
    /// <c>WorkStealingTaskScheduler</c> or of a multiprogram program, it is that scheduler, so nested runs stay on their
    /// caller's workers. Naming <see cref="TaskScheduler.Default"/> explicitly sends a run to the thread pool from
    /// anywhere. Reading the property while none is named returns <see cref="TaskScheduler.Current"/> of the reading
    /// thread.
    /// </summary>
    /// <remarks>
    /// After an <c>await ... .ConfigureAwait(false)</c> a split or merge no longer runs as a task of its run's
    /// scheduler (<see cref="TaskScheduler.Current"/> is then usually <see cref="TaskScheduler.Default"/>): name the
    /// scheduler there, or await without <c>ConfigureAwait(false)</c>.
    /// </remarks>
    /// <exception cref="ArgumentNullException">The value is <see langword="null"/>.</exception>
    public TaskScheduler Scheduler
    {
        get => _scheduler ?? TaskScheduler.Current;
        init => _scheduler = value ?? throw new ArgumentNullException(nameof(value), "A run needs a TaskScheduler; use TaskScheduler.Default for the thread pool, or leave it unset for the caller's scheduler (TaskScheduler.Current).");
    }

    /// <summary>
    /// Whether no scheduler is named (the default), so that each run uses <see cref="TaskScheduler.Current"/> of the
    /// thread that starts it. <see langword="false"/> once <see cref="Scheduler"/> is set, even to
    /// <see cref="TaskScheduler.Default"/>.
    /// </summary>
    public bool InheritsScheduler => _scheduler is null;

    /// <summary>
    /// The granularity of runs with these options, overriding the program's own
    /// (<see cref="DivideAndConquer{TProblem, TResult}.Granularity"/>) for those runs only;
    /// <see langword="null"/> (the default): the program's. Values of <see cref="Skeletons.Granularity"/> are
    /// validated by its factories.
    /// </summary>
    public Granularity? Granularity
    {
        get => _granularity;
        init => _granularity = value;
    }

    /// <summary>The execution engine. Default: <see cref="ExecutionEngine.Continuation"/>.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not a defined <see cref="ExecutionEngine"/>.</exception>
    public ExecutionEngine Engine
    {
        get => _engine;
        init => _engine = Enum.IsDefined(value)
            ? value
            : throw new ArgumentOutOfRangeException(nameof(value), value, "Not a defined ExecutionEngine.");
    }

    /// <summary>
    /// Receives the duration of every split, execute and merge; <see langword="null"/> (the default) turns
    /// observation off at no cost.
    /// </summary>
    public IDivideAndConquerObserver? Observer { get; init; }

    /// <summary>
    /// A hard depth limit: a node at depth <c>&gt;= MaxDepth</c> is never split (its problem is executed), whatever
    /// should-split says. <c>0</c> runs the whole problem as one execute. <see langword="null"/> (the default): no limit.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is negative.</exception>
    public int? MaxDepth
    {
        get => _maxDepth;
        init => _maxDepth = value is < 0
            ? throw new ArgumentOutOfRangeException(nameof(value), value, "MaxDepth must be >= 0 (or null for no limit).")
            : value;
    }

    /// <summary>
    /// A safety net against runaway recursion: a node at depth <c>&gt;= RecursionLimit</c> whose should-split still
    /// says yes ends the run with an <see cref="InvalidOperationException"/> (unlike <see cref="MaxDepth"/>, which
    /// quietly executes such nodes). Default: <see cref="DefaultRecursionLimit"/>.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is less than 1.</exception>
    public int RecursionLimit
    {
        get => _recursionLimit;
        init => _recursionLimit = value < 1
            ? throw new ArgumentOutOfRangeException(nameof(value), value, "RecursionLimit must be at least 1.")
            : value;
    }
}
