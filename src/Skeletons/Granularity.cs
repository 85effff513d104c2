namespace DivCon.Skeletons;

/// <summary>
/// Where a <see cref="GranularDivideAndConquer{TProblem, TResult}"/> stops splitting: the problem size (or depth)
/// at which it executes the base case instead.
/// </summary>
/// <remarks>
/// <para>Size-based granularity evens out uneven splits (every leaf ends up at most the granularity, whatever the
/// path to it); depth-based granularity produces an exact leaf count (branching^depth) but keeps any unevenness of
/// the splits. <see cref="Automatic"/> (the default) aims at a few leaves per worker, so that load imbalance among
/// leaves is absorbed without drowning the run in tiny tasks.</para>
/// <para>Values are immutable and validated by their factories.</para>
/// </remarks>
public sealed record Granularity
{
    /// <summary>The default leaves per worker of <see cref="Automatic"/>.</summary>
    public const int DefaultLeavesPerWorker = 4;

    private Granularity(GranularityKind kind, int leavesPerWorker, long size, int depth)
    {
        Kind = kind;
        LeavesPerWorker = leavesPerWorker;
        Size = size;
        TargetDepth = depth;
    }

    /// <summary>A sequential run: the granularity is the whole problem, so there is exactly one execute and no split or merge.</summary>
    public static Granularity Sequential { get; } = new(GranularityKind.Sequential, 0, 0, 0);

    /// <summary>Which rule this granularity follows.</summary>
    public GranularityKind Kind { get; }

    /// <summary>For <see cref="GranularityKind.Automatic"/>: the target number of leaves per worker; otherwise 0.</summary>
    public int LeavesPerWorker { get; }

    /// <summary>For <see cref="GranularityKind.Fixed"/>: the largest problem size that is executed without splitting; otherwise 0.</summary>
    public long Size { get; }

    /// <summary>For <see cref="GranularityKind.Depth"/>: the depth at which splitting stops; otherwise 0.</summary>
    public int TargetDepth { get; }

    /// <summary>
    /// Aims at <paramref name="leavesPerWorker"/> leaves per worker of the run's scheduler: the granularity is
    /// resolved at the start of each run from the root's size and the scheduler's maximum concurrency level.
    /// </summary>
    /// <param name="leavesPerWorker">Target leaves per worker (default 4); more evens out unbalanced splits at the cost of more tasks.</param>
    /// <returns>The granularity.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="leavesPerWorker"/> is less than 1.</exception>
    public static Granularity Automatic(int leavesPerWorker = DefaultLeavesPerWorker)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(leavesPerWorker, 1);
        return new Granularity(GranularityKind.Automatic, leavesPerWorker, 0, 0);
    }

    /// <summary>Splits while a problem's size is larger than <paramref name="size"/>.</summary>
    /// <param name="size">The largest size executed directly; at least 1.</param>
    /// <returns>The granularity.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="size"/> is less than 1.</exception>
    public static Granularity Fixed(long size)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(size, 1);
        return new Granularity(GranularityKind.Fixed, 0, size, 0);
    }

    /// <summary>Splits every problem above depth <paramref name="maxDepth"/> (the root is depth 0; 0 means no split).</summary>
    /// <param name="maxDepth">The depth of the leaves; at least 0.</param>
    /// <returns>The granularity.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="maxDepth"/> is negative.</exception>
    public static Granularity Depth(int maxDepth)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(maxDepth);
        return new Granularity(GranularityKind.Depth, 0, 0, maxDepth);
    }

    /// <inheritdoc/>
    public override string ToString() => Kind switch
    {
        GranularityKind.Automatic => $"Automatic({LeavesPerWorker} leaves/worker)",
        GranularityKind.Fixed => $"Fixed({Size})",
        GranularityKind.Depth => $"Depth({TargetDepth})",
        _ => "Sequential",
    };
}
