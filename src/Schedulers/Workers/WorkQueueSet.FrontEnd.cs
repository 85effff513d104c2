using System.Collections.ObjectModel;

namespace DivCon.Schedulers.Workers;

/// <summary>
/// The <see cref="TaskScheduler"/> front-end logic shared by every scheduler built on a set
/// (<see cref="WorkerPoolTaskScheduler"/>, <see cref="Multiprogram.ProgramTaskScheduler"/>): where a queued task
/// goes, who may run a task inline, and the statistics snapshot.
/// </summary>
internal sealed partial class WorkQueueSet
{
    /// <summary>
    /// The front-end's <c>QueueTask</c>: onto the calling worker's own deque when that worker serves this set now,
    /// otherwise onto the global queue.
    /// </summary>
    /// <param name="task">The task.</param>
    /// <returns><see langword="false"/> when the set is closed and the caller is not one of its serving workers.</returns>
    public bool TryQueue(Task task)
    {
        if (Worker.Current is { } worker && ReferenceEquals(worker.Queues, this))
        {
            PushLocal(worker.Index, task);
            return true;
        }

        return TryEnqueueExternal(task);
    }

    /// <summary>
    /// The front-end's <c>TryExecuteTaskInline</c>: runs the task (and counts it as inlined) only on a worker serving
    /// this set now.
    /// </summary>
    /// <param name="task">The task.</param>
    /// <returns>Whether the task ran here; <see langword="false"/> on any other thread.</returns>
    public bool TryExecuteInline(Task task)
    {
        if (Worker.Current is not { } worker || !ReferenceEquals(worker.Queues, this))
        {
            return false;
        }

        // A previously queued task stays in its queue; when a worker later takes it, the execution returns false.
        CountInlined(worker.Index);
        return _execute(task);
    }

    /// <summary>A snapshot of each slot's counters.</summary>
    /// <param name="cpuOfSlot">The CPU the worker of a slot is pinned to, or <see langword="null"/>.</param>
    /// <returns>One entry per slot, in slot order.</returns>
    public ReadOnlyCollection<WorkerStatistics> ReadWorkerStatistics(Func<int, int?> cpuOfSlot)
    {
        var result = new WorkerStatistics[SlotCount];
        for (int i = 0; i < result.Length; i++)
        {
            // Volatile reads: each counter is a whole, recent value written by its worker (single writer).
            WorkerSlotCounters c = _counters[i];
            result[i] = new WorkerStatistics(
                i,
                cpuOfSlot(i),
                Volatile.Read(ref c.TasksExecuted),
                Volatile.Read(ref c.TasksInlined),
                Volatile.Read(ref c.LocalPops),
                Volatile.Read(ref c.GlobalDequeues),
                Volatile.Read(ref c.Steals),
                Volatile.Read(ref c.FailedSteals),
                Volatile.Read(ref c.Parks));
        }

        return new ReadOnlyCollection<WorkerStatistics>(result);
    }

    /// <summary>The slots' counters summed, plus <see cref="AvailableTasks"/>.</summary>
    /// <param name="workers">A snapshot from <see cref="ReadWorkerStatistics"/>.</param>
    /// <returns>The sums.</returns>
    public SchedulerStatistics SumStatistics(IReadOnlyList<WorkerStatistics> workers) => new(
        workers.Count,
        workers.Sum(w => w.TasksExecuted),
        workers.Sum(w => w.TasksInlined),
        workers.Sum(w => w.LocalPops),
        workers.Sum(w => w.GlobalDequeues),
        workers.Sum(w => w.Steals),
        workers.Sum(w => w.FailedSteals),
        workers.Sum(w => w.Parks),
        AvailableTasks);
}
