using DivCon.Skeletons;

namespace DivCon.Programs.Recursion;

/// <summary>
/// The n-th Fibonacci number by brute-force recursion, fib(n) = fib(n - 1) + fib(n - 2): the classic
/// fine-grained task benchmark (BOTS's fib). Almost no work per node, so it measures the skeleton's and the
/// scheduler's overhead per task.
/// </summary>
/// <remarks>
/// The problem is n itself and so is its size. Split makes n - 1 and n - 2, a leaf recurses sequentially, merge
/// adds. The granularity is the sequential cut-off: <c>Granularity.Fixed(c)</c> splits every n above c, so
/// <c>Fixed(1)</c> makes one task per call (the finest grain); the automatic granularity picks the largest cut-off
/// that still yields at least the target number of leaves (the tree is unbalanced, so sizes do not halve).
/// </remarks>
public sealed class Fibonacci : GranularDivideAndConquer<int, long>
{
    /// <summary>The largest n whose Fibonacci number fits in a <see cref="long"/>.</summary>
    public const int MaxN = 92;

    /// <summary>Creates the program.</summary>
    /// <param name="options">Default options; <see langword="null"/>: the defaults.</param>
    public Fibonacci(DivideAndConquerOptions? options = null)
        : base(options)
    {
    }

    /// <summary>fib(n) by the same brute-force recursion the leaves use (the execute muscle).</summary>
    /// <param name="n">0 or more.</param>
    /// <returns>fib(n).</returns>
    public static long Recurse(int n) => n < 2 ? n : Recurse(n - 1) + Recurse(n - 2);

    /// <summary>fib(n) by iteration: the trusted reference.</summary>
    /// <param name="n">0 to <see cref="MaxN"/>.</param>
    /// <returns>fib(n).</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="n"/> is out of range.</exception>
    public static long Iterate(int n)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(n);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(n, MaxN);
        long previous = 0, current = 1;
        for (int i = 0; i < n; i++)
        {
            (previous, current) = (current, previous + current);
        }

        return previous;
    }

    /// <summary>The number of leaves of the task tree of fib(<paramref name="n"/>) with cut-off <paramref name="cutoff"/>.</summary>
    /// <param name="n">The root.</param>
    /// <param name="cutoff">Nodes with n at most this (or below 2) are leaves.</param>
    /// <returns>The leaf count (saturates at <see cref="long.MaxValue"/>).</returns>
    public static long LeafCount(int n, int cutoff)
    {
        // leaves(m) = 1 for m <= max(cutoff, 1), else leaves(m - 1) + leaves(m - 2): a Fibonacci-like recurrence.
        int threshold = Math.Max(cutoff, 1);
        if (n <= threshold)
        {
            return 1;
        }

        long below = 1, at = 1; // leaves(threshold - 1), leaves(threshold) both 1
        for (int m = threshold + 1; m <= n; m++)
        {
            long next = at > long.MaxValue - below ? long.MaxValue : at + below;
            (below, at) = (at, next);
        }

        return at;
    }

    /// <inheritdoc/>
    protected override long GetSize(int problem) => problem;

    /// <summary>The largest cut-off whose tree has at least <paramref name="targetLeaves"/> leaves (1 when even full splitting has fewer).</summary>
    /// <param name="problemSize">n.</param>
    /// <param name="targetLeaves">The leaf count to aim at.</param>
    /// <returns>The cut-off.</returns>
    protected override long ResolveAutomaticGranularity(long problemSize, int targetLeaves)
    {
        int n = (int)Math.Min(problemSize, MaxN);
        for (int cutoff = n; cutoff > 1; cutoff--)
        {
            if (LeafCount(n, cutoff) >= targetLeaves)
            {
                return cutoff;
            }
        }

        return 1;
    }

    /// <inheritdoc/>
    protected override bool ShouldSplit(int problem, int depth) => problem >= 2 && base.ShouldSplit(problem, depth);

    /// <inheritdoc/>
    protected override IReadOnlyList<int> Split(int problem, int depth) => [problem - 1, problem - 2];

    /// <inheritdoc/>
    protected override long Execute(int problem, int depth) => Recurse(problem);

    /// <inheritdoc/>
    protected override long Merge(IReadOnlyList<long> subresults, int depth)
    {
        ArgumentNullException.ThrowIfNull(subresults);
        return subresults[0] + subresults[1];
    }
}
