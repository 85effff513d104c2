using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers;

/// <summary>
/// A work-stealing task scheduler with a fixed number of unpinned worker threads (the thesis's "free" scheduler):
/// the operating system decides where the workers run.
/// </summary>
/// <remarks>
/// See <see cref="WorkerPoolTaskScheduler"/> for where tasks go, how workers find work, inlining and disposal.
/// Steal victims are tried in a flat order (random start), since nothing is known of where workers run.
/// <example>
/// <code>
/// using var scheduler = new WorkStealingTaskScheduler(4);
/// var factory = new TaskFactory(scheduler);
/// int answer = await factory.StartNew(() => 6 * 7);
/// </code>
/// </example>
/// </remarks>
public sealed class WorkStealingTaskScheduler : WorkerPoolTaskScheduler
{
    /// <summary>Creates a scheduler with one worker per logical CPU (<see cref="Environment.ProcessorCount"/>).</summary>
    public WorkStealingTaskScheduler()
        : this(Environment.ProcessorCount)
    {
    }

    /// <summary>Creates a scheduler with <paramref name="workerCount"/> workers and starts them.</summary>
    /// <param name="workerCount">The number of worker threads; at least 1.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="workerCount"/> is below 1.</exception>
    public WorkStealingTaskScheduler(int workerCount)
        : base(VictimOrder.Flat(ValidateCount(workerCount)), cpuIds: null, startHook: null)
    {
    }

    /// <inheritdoc />
    public override bool IsPinned => false;

    private static int ValidateCount(int workerCount)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(workerCount, 1);
        return workerCount;
    }
}
