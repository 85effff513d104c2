namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// The owner of the queue set that workers call home while no program is registered. It never accepts a task:
/// programs are the only way in.
/// </summary>
internal sealed class IdleTaskScheduler : TaskScheduler
{
    /// <inheritdoc />
    protected override IEnumerable<Task> GetScheduledTasks() => [];

    /// <inheritdoc />
    protected override void QueueTask(Task task) =>
        throw new InvalidOperationException("The idle queue set of a multiprogram scheduler accepts no tasks.");

    /// <inheritdoc />
    protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued) => false;
}
