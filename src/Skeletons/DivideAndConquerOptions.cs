namespace DivCon.Skeletons;

/// <summary>
/// How a divide-and-conquer run executes: on which scheduler, with which engine, observed by whom and how deep
/// it may recurse. Immutable; derive variants with <c>with</c>:
/// <c>DivideAndConquerOptions.Default with { Scheduler = myScheduler }</c>.
/// </summary>
/// <remarks>
/// Every property validates its value when set (also inside a <c>with</c> expression), so an options object
/// that exists is always valid.
/// </remarks>
public sealed record DivideAndConquerOptions
{
    private readonly TaskScheduler _scheduler = TaskScheduler.Default;
    private readonly ExecutionEngine _engine = ExecutionEngine.Continuation;
    private readonly int? _maxDepth;
    private readonly int _recursionLimit = DefaultRecursionLimit;

    /// <summary>The default <see cref="RecursionLimit"/>: 10,000 levels, far beyond any balanced tree.</summary>
    public const int DefaultRecursionLimit = 10_000;

    /// <summary>The defaults: <see cref="TaskScheduler.Default"/>, the continuation engine, no observer, no depth limit, a recursion limit of <see cref="DefaultRecursionLimit"/>.</summary>
    public static DivideAndConquerOptions Default { get; } = new();

    /// <summary>
    /// The scheduler that runs every task of the run (splits, executes and merges). Default:
    /// <see cref="TaskScheduler.Default"/> (the .NET thread pool).
    /// </summary>
    /// <exception cref="ArgumentNullException">The value is <see langword="null"/>.</exception>
    public TaskScheduler Scheduler
    {
        get => _scheduler;
        init => _scheduler = value ?? throw new ArgumentNullException(nameof(value), "A run needs a TaskScheduler; use TaskScheduler.Default for the thread pool.");
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
