using System.Collections.ObjectModel;
using System.Diagnostics;

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

    /// <summary>A snapshot of each CPU's counters: the slots of a CPU's workers (slot, slot + CPU count, ...) summed.</summary>
    /// <param name="cpuOfSlot">The CPU the worker of a slot is pinned to, or <see langword="null"/>.</param>
    /// <param name="cpuCount">The pool's CPU count (the slot count without standbys); null: one entry per slot.</param>
    /// <returns>One entry per CPU, in CPU order.</returns>
    public ReadOnlyCollection<WorkerStatistics> ReadWorkerStatistics(Func<int, int?> cpuOfSlot, int? cpuCount = null)
    {
        int cpus = cpuCount ?? SlotCount;
        Debug.Assert(cpus >= 1 && SlotCount % cpus == 0, "Every CPU has the same number of slots.");
        var result = new WorkerStatistics[cpus];
        for (int i = 0; i < result.Length; i++)
        {
            long executed = 0, inlined = 0, localPops = 0, globalDequeues = 0, steals = 0, failedSteals = 0, parks = 0;
            for (int slot = i; slot < SlotCount; slot += cpus)
            {
                // Volatile reads: each counter is a whole, recent value written by its worker (single writer).
                WorkerSlotCounters c = _counters[slot];
                executed += Volatile.Read(ref c.TasksExecuted);
                inlined += Volatile.Read(ref c.TasksInlined);
                localPops += Volatile.Read(ref c.LocalPops);
                globalDequeues += Volatile.Read(ref c.GlobalDequeues);
                steals += Volatile.Read(ref c.Steals);
                failedSteals += Volatile.Read(ref c.FailedSteals);
                parks += Volatile.Read(ref c.Parks);
            }

            result[i] = new WorkerStatistics(i, cpuOfSlot(i), executed, inlined, localPops, globalDequeues, steals, failedSteals, parks);
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
