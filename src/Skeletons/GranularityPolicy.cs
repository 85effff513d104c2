namespace DivCon.Skeletons;

/// <summary>
/// The pure arithmetic behind automatic granularity: how many workers a scheduler stands for, how many leaves to
/// aim at, and the size that yields them for a problem whose split divides the size by its branching factor.
/// </summary>
public static class GranularityPolicy
{
    /// <summary>
    /// A <see cref="TaskScheduler.MaximumConcurrencyLevel"/> above this is treated as "unbounded" (the thread pool
    /// reports <see cref="int.MaxValue"/>), and the machine's processor count is used instead.
    /// </summary>
    public const int UnboundedConcurrencyLevel = 1 << 16;

    /// <summary>The number of workers a scheduler stands for when sizing a run.</summary>
    /// <param name="maximumConcurrencyLevel">The scheduler's <see cref="TaskScheduler.MaximumConcurrencyLevel"/>.</param>
    /// <param name="processorCount">What to use for an unbounded (or nonsensical, &lt; 1) level, normally <see cref="Environment.ProcessorCount"/>.</param>
    /// <returns>At least 1.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="processorCount"/> is less than 1.</exception>
    public static int WorkerCount(int maximumConcurrencyLevel, int processorCount)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(processorCount, 1);
        return maximumConcurrencyLevel is < 1 or > UnboundedConcurrencyLevel ? processorCount : maximumConcurrencyLevel;
    }

    /// <summary>The target leaf count: workers x leaves per worker, saturated at <see cref="int.MaxValue"/>.</summary>
    /// <param name="workers">Workers, at least 1.</param>
    /// <param name="leavesPerWorker">Leaves per worker, at least 1.</param>
    /// <returns>The target leaf count.</returns>
    /// <exception cref="ArgumentOutOfRangeException">An argument is less than 1.</exception>
    public static int TargetLeaves(int workers, int leavesPerWorker)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(workers, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(leavesPerWorker, 1);
        return (int)Math.Min((long)workers * leavesPerWorker, int.MaxValue);
    }

    /// <summary>
    /// The granularity that cuts a problem of <paramref name="problemSize"/> into about
    /// <paramref name="targetLeaves"/> leaves when each split divides the size evenly among its children:
    /// ceil(size / leaves), at least 1.
    /// </summary>
    /// <param name="problemSize">The root's size, at least 0.</param>
    /// <param name="targetLeaves">The leaf count to aim at, at least 1.</param>
    /// <returns>The granularity, at least 1.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="problemSize"/> is negative or <paramref name="targetLeaves"/> less than 1.</exception>
    public static long EvenSplitGranularity(long problemSize, int targetLeaves)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(problemSize);
        ArgumentOutOfRangeException.ThrowIfLessThan(targetLeaves, 1);
        long granularity = (problemSize / targetLeaves) + (problemSize % targetLeaves == 0 ? 0 : 1);
        return Math.Max(granularity, 1);
    }
}
