namespace DivCon.Skeletons.Tests.Infrastructure;

/// <summary>
/// A scheduler that runs its tasks on the thread pool until <see cref="StopAccepting"/>; from then on every
/// <c>QueueTask</c> throws <see cref="Refusal"/> (the TPL wraps it in <see cref="TaskSchedulerException"/>), as a
/// disposed scheduler does. It never runs a task inline, so a continuation meant for it cannot slip onto another
/// thread.
/// </summary>
public sealed class RefusingTaskScheduler : TaskScheduler
{
    private int _refusing;
    private int _refused;

    /// <summary>The exception every refused <c>QueueTask</c> throws.</summary>
    public InvalidOperationException Refusal { get; } = new("The test scheduler accepts no more tasks.");

    /// <summary>Tasks refused so far.</summary>
    public int RefusedCount => Volatile.Read(ref _refused);

    /// <summary>From now on every task is refused.</summary>
    public void StopAccepting() => Volatile.Write(ref _refusing, 1);

    protected override void QueueTask(Task task)
    {
        if (Volatile.Read(ref _refusing) != 0)
        {
            Interlocked.Increment(ref _refused);
            throw Refusal;
        }

        ThreadPool.UnsafeQueueUserWorkItem(static state => state.Scheduler.TryExecuteTask(state.Task), (Scheduler: this, Task: task), preferLocal: false);
    }

    protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued) => false;

    protected override IEnumerable<Task> GetScheduledTasks() => [];
}
