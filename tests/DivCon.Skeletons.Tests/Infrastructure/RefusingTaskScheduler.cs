namespace DivCon.Skeletons.Tests.Infrastructure;

/// <summary>
/// A scheduler that runs its tasks on the thread pool until <see cref="StopAccepting"/>; from then on every
/// <c>QueueTask</c> throws <see cref="Refusal"/> (the TPL wraps it in <see cref="TaskSchedulerException"/>), as a
/// disposed scheduler does. It never runs a task inline, so a continuation meant for it cannot slip onto another
/// thread. It counts the tasks it accepted and has not finished, so a test can tell when nothing of a run is queued
/// or running on it.
/// </summary>
/// <param name="maximumConcurrencyLevel">What it reports as its concurrency (default: unbounded, read as the CPU count).</param>
public sealed class RefusingTaskScheduler(int maximumConcurrencyLevel = int.MaxValue) : TaskScheduler
{
    private int _refusing;
    private int _refused;

    // Accepted tasks not yet finished: incremented before a task is handed to the thread pool, decremented after it ran.
    private int _active;

    /// <summary>The exception every refused <c>QueueTask</c> throws.</summary>
    public InvalidOperationException Refusal { get; } = new("The test scheduler accepts no more tasks.");

    /// <summary>Tasks refused so far.</summary>
    public int RefusedCount => Volatile.Read(ref _refused);

    /// <summary>True when every task this scheduler accepted has finished running (none queued, none running).</summary>
    public bool IsIdle => Volatile.Read(ref _active) == 0;

    /// <inheritdoc/>
    public override int MaximumConcurrencyLevel => maximumConcurrencyLevel;

    /// <summary>From now on every task is refused.</summary>
    public void StopAccepting() => Volatile.Write(ref _refusing, 1);

    protected override void QueueTask(Task task)
    {
        if (Volatile.Read(ref _refusing) != 0)
        {
            Interlocked.Increment(ref _refused);
            throw Refusal;
        }

        Interlocked.Increment(ref _active);
        ThreadPool.UnsafeQueueUserWorkItem(static state => state.Scheduler.Run(state.Task), (Scheduler: this, Task: task), preferLocal: false);
    }

    private void Run(Task task)
    {
        try
        {
            TryExecuteTask(task);
        }
        finally
        {
            Interlocked.Decrement(ref _active);
        }
    }

    protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued) => false;

    protected override IEnumerable<Task> GetScheduledTasks() => [];
}
