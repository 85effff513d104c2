namespace DivCon.Skeletons;

/// <summary>
/// How a run cuts its work: which nodes become tasks of their own, which run inline inside another node's task,
/// and, for a <see cref="GranularDivideAndConquer{TProblem, TResult}"/> (a program that reports sizes), where
/// splitting stops.
/// </summary>
/// <remarks>
/// <para><b><see cref="Automatic()"/></b> (the default) needs nothing from the program. The run learns, from its own
/// measured node times, what a subtree costs (per depth, and per unit of size when the program reports one), then:</para>
/// <list type="number">
/// <item><description><b>Lower bound on task cost.</b> A node whose should-split says yes but whose subtree is
/// predicted to cost less than <see cref="MinimumTaskCost"/> runs that whole subtree depth-first on the current
/// thread (serial elision): the same should-split, split, execute and merge, in the same order, with no tasks. Until
/// a depth has been measured its nodes are tasks.</description></item>
/// <item><description><b>Upper bound on task duration.</b> A granular program's base should-split also says yes to a
/// problem whose execute is predicted to take longer than <see cref="MaximumTaskDuration"/> (from the smallest cost
/// per unit of size measured so far, once four leaves have been measured), as long as the size is at least 2. The leaf-count rule
/// (<see cref="DefaultLeavesPerWorker"/> leaves per worker) still applies as well, so a program is never cut coarser
/// than before.</description></item>
/// </list>
/// <para>Should-split always has the last word on the shape of the tree: a node it declines is executed (the user
/// cannot split it), and a node it accepts is split, as a task or inline. Time only decides who runs a subtree,
/// plus the upper bound above for programs that let the skeleton choose their leaf size.</para>
/// <para><see cref="EveryNodeATask"/> is the automatic rule without the lower bound. The other rules are explicit: <see cref="ByLeafCount"/> (the rule of earlier versions), <see cref="Fixed"/>,
/// <see cref="Depth"/> and <see cref="Sequential"/>. Under them every node is a task, except below the target
/// depth of <see cref="Depth"/> (a plain program's node at that depth runs its subtree inline) and under
/// <see cref="Sequential"/> (the root runs everything inline). Sizes apply only to granular programs: a plain
/// program under <see cref="Fixed"/> or <see cref="ByLeafCount"/> has every node a task.</para>
/// <para>Values are immutable and validated by their factories.</para>
/// </remarks>
public sealed record Granularity
{
    /// <summary>The default leaves per worker of <see cref="ByLeafCount"/> (and the floor of <see cref="Automatic()"/>).</summary>
    public const int DefaultLeavesPerWorker = 4;

    /// <summary>The default lower bound on the cost of a task: 100 microseconds.</summary>
    public static readonly TimeSpan DefaultMinimumTaskCost = TimeSpan.FromMicroseconds(100);

    /// <summary>The default upper bound on the duration of a leaf: 1 millisecond.</summary>
    public static readonly TimeSpan DefaultMaximumTaskDuration = TimeSpan.FromMilliseconds(1);

    private Granularity(GranularityKind kind, int leavesPerWorker, long size, int depth, TimeSpan minimumTaskCost, TimeSpan maximumTaskDuration)
    {
        Kind = kind;
        LeavesPerWorker = leavesPerWorker;
        Size = size;
        TargetDepth = depth;
        MinimumTaskCost = minimumTaskCost;
        MaximumTaskDuration = maximumTaskDuration;
    }

    /// <summary>A sequential run: the granularity is the whole problem, so there is exactly one execute and no split or merge (a plain program runs its whole tree inline in one task).</summary>
    public static Granularity Sequential { get; } = new(GranularityKind.Sequential, 0, 0, 0, TimeSpan.Zero, TimeSpan.Zero);

    /// <summary>
    /// <see cref="Automatic(TimeSpan, TimeSpan)"/> without the lower bound: nothing runs inline, every node of the tree
    /// is a task of its own (the behaviour of earlier versions for a plain program); a granular program keeps the
    /// automatic size rule and its upper bound.
    /// </summary>
    public static Granularity EveryNodeATask { get; } =
        new(GranularityKind.Automatic, DefaultLeavesPerWorker, 0, 0, TimeSpan.Zero, DefaultMaximumTaskDuration);

    private static Granularity DefaultAutomatic { get; } =
        new(GranularityKind.Automatic, DefaultLeavesPerWorker, 0, 0, DefaultMinimumTaskCost, DefaultMaximumTaskDuration);

    /// <summary>Which rule this granularity follows.</summary>
    public GranularityKind Kind { get; }

    /// <summary>For <see cref="GranularityKind.LeafCount"/>: the target number of leaves per worker; for <see cref="GranularityKind.Automatic"/> the leaf-count floor; otherwise 0.</summary>
    public int LeavesPerWorker { get; }

    /// <summary>For <see cref="GranularityKind.Fixed"/>: the largest problem size that is executed without splitting; otherwise 0.</summary>
    public long Size { get; }

    /// <summary>For <see cref="GranularityKind.Depth"/>: the depth at which splitting stops; otherwise 0.</summary>
    public int TargetDepth { get; }

    /// <summary>For <see cref="GranularityKind.Automatic"/>: subtrees predicted cheaper than this run inline; otherwise zero.</summary>
    public TimeSpan MinimumTaskCost { get; }

    /// <summary>For <see cref="GranularityKind.Automatic"/>: leaves predicted longer than this are split where the program allows; otherwise zero.</summary>
    public TimeSpan MaximumTaskDuration { get; }

    /// <summary>
    /// Granularity by measured time, with the default bounds (<see cref="DefaultMinimumTaskCost"/>,
    /// <see cref="DefaultMaximumTaskDuration"/>). The default of every program.
    /// </summary>
    /// <returns>The granularity.</returns>
    public static Granularity Automatic() => DefaultAutomatic;

    /// <summary>Granularity by measured time with the given bounds (see the remarks of <see cref="Granularity"/>).</summary>
    /// <param name="minimumTaskCost">Subtrees predicted cheaper than this run inline; zero turns inlining off. At least zero.</param>
    /// <param name="maximumTaskDuration">Leaves of granular programs predicted longer than this are split; at least <paramref name="minimumTaskCost"/> and more than zero.</param>
    /// <returns>The granularity.</returns>
    /// <exception cref="ArgumentOutOfRangeException">A bound is negative, or the upper bound is zero or below the lower one.</exception>
    public static Granularity Automatic(TimeSpan minimumTaskCost, TimeSpan maximumTaskDuration) =>
        Automatic(minimumTaskCost, maximumTaskDuration, DefaultLeavesPerWorker);

    /// <summary>
    /// Granularity by measured time with the given bounds and leaf-count floor: a granular program is never split
    /// coarser than <paramref name="leavesPerWorker"/> leaves per worker (4 in the other overloads). A larger floor sizes
    /// the tree for more cores than the run has, as when a task tree is recorded on one worker for a 64-core simulation.
    /// </summary>
    /// <param name="minimumTaskCost">Subtrees predicted cheaper than this run inline; zero turns inlining off. At least zero.</param>
    /// <param name="maximumTaskDuration">Leaves of granular programs predicted longer than this are split; at least <paramref name="minimumTaskCost"/> and more than zero.</param>
    /// <param name="leavesPerWorker">The floor's leaves per worker, at least 1.</param>
    /// <returns>The granularity.</returns>
    /// <exception cref="ArgumentOutOfRangeException">A bound is negative, the upper bound is zero or below the lower one, or <paramref name="leavesPerWorker"/> is less than 1.</exception>
    public static Granularity Automatic(TimeSpan minimumTaskCost, TimeSpan maximumTaskDuration, int leavesPerWorker)
    {
        if (minimumTaskCost < TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(minimumTaskCost), minimumTaskCost, "The minimum task cost must be at least zero.");
        }

        if (maximumTaskDuration <= TimeSpan.Zero || maximumTaskDuration < minimumTaskCost)
        {
            throw new ArgumentOutOfRangeException(nameof(maximumTaskDuration), maximumTaskDuration, $"The maximum task duration must be positive and at least the minimum task cost ({minimumTaskCost}).");
        }

        ArgumentOutOfRangeException.ThrowIfLessThan(leavesPerWorker, 1);
        return new Granularity(GranularityKind.Automatic, leavesPerWorker, 0, 0, minimumTaskCost, maximumTaskDuration);
    }

    /// <summary>The same as <see cref="ByLeafCount"/>; kept so that code written for earlier versions compiles.</summary>
    /// <param name="leavesPerWorker">Target leaves per worker.</param>
    /// <returns>The leaf-count granularity.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="leavesPerWorker"/> is less than 1.</exception>
    public static Granularity Automatic(int leavesPerWorker) => ByLeafCount(leavesPerWorker);

    /// <summary>
    /// Aims at <paramref name="leavesPerWorker"/> leaves per worker of the run's scheduler: the granularity is
    /// resolved at the start of each run from the root's size and the scheduler's maximum concurrency level. Every
    /// node is a task. (The default rule of earlier versions.)
    /// </summary>
    /// <param name="leavesPerWorker">Target leaves per worker (default 4); more evens out unbalanced splits at the cost of more tasks.</param>
    /// <returns>The granularity.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="leavesPerWorker"/> is less than 1.</exception>
    public static Granularity ByLeafCount(int leavesPerWorker = DefaultLeavesPerWorker)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(leavesPerWorker, 1);
        return new Granularity(GranularityKind.LeafCount, leavesPerWorker, 0, 0, TimeSpan.Zero, TimeSpan.Zero);
    }

    /// <summary>Splits while a problem's size is larger than <paramref name="size"/>; every node is a task.</summary>
    /// <param name="size">The largest size executed directly; at least 1.</param>
    /// <returns>The granularity.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="size"/> is less than 1.</exception>
    public static Granularity Fixed(long size)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(size, 1);
        return new Granularity(GranularityKind.Fixed, 0, size, 0, TimeSpan.Zero, TimeSpan.Zero);
    }

    /// <summary>
    /// Splits every problem above depth <paramref name="maxDepth"/> (the root is depth 0; 0 means no split). For a
    /// plain program: nodes above that depth are tasks, and a node at it runs its subtree inline.
    /// </summary>
    /// <param name="maxDepth">The depth of the leaves; at least 0.</param>
    /// <returns>The granularity.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="maxDepth"/> is negative.</exception>
    public static Granularity Depth(int maxDepth)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(maxDepth);
        return new Granularity(GranularityKind.Depth, 0, 0, maxDepth, TimeSpan.Zero, TimeSpan.Zero);
    }

    /// <inheritdoc/>
    public override string ToString() => Kind switch
    {
        GranularityKind.Automatic => string.Create(System.Globalization.CultureInfo.InvariantCulture, $"Automatic(inline < {MinimumTaskCost.TotalMicroseconds:0.#} us, leaves <= {MaximumTaskDuration.TotalMicroseconds:0.#} us)"),
        GranularityKind.LeafCount => $"ByLeafCount({LeavesPerWorker} leaves/worker)",
        GranularityKind.Fixed => $"Fixed({Size})",
        GranularityKind.Depth => $"Depth({TargetDepth})",
        _ => "Sequential",
    };
}
