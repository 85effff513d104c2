using System.Collections.Concurrent;
using System.Diagnostics;
using DivCon.Schedulers.Collections;

namespace DivCon.Schedulers.Workers;

/// <summary>
/// The queues of one task-scheduler front-end: a global FIFO queue for tasks queued from outside the workers, one
/// work-stealing deque per worker slot, the slots' counters, the victim order of each slot, and the sleeper count
/// that the wake-up protocol reads. Workers serve one set at a time (<see cref="Worker.Queues"/>) and use slot
/// <see cref="Worker.Index"/>; work stealing never crosses sets.
/// </summary>
/// <remarks>
/// This is the seam for a multiprogram scheduler: several sets (one per program) served by one
/// <see cref="WorkerPool"/>, a worker moving between them with <see cref="DrainLocalToGlobal"/> then
/// <see cref="Worker.MoveTo"/>. See README-wakeups.md for the sleep protocol.
/// </remarks>
internal sealed partial class WorkQueueSet
{
    private readonly ConcurrentQueue<Task> _global = new();
    private readonly WorkStealingDeque<Task>[] _deques;
    private readonly WorkerSlotCounters[] _counters;
    private readonly int[][][] _victims;
    private readonly Func<Task, bool> _execute;

    // Workers of this set that announced they are going to sleep and were not woken yet. Read on every push.
    private CacheLinePaddedInt64 _sleepers;

    // External producers between "checked not closed" and "enqueued": shutdown waits for them to leave.
    // Padded: producers write it on every external enqueue, workers read _closed on every task.
    private CacheLinePaddedInt64 _externalInFlight;
    private int _closed;

    // Tasks accepted by TryEnqueueExternal (the only shared counter, on the external path only).
    private CacheLinePaddedInt64 _externalAccepted;
    private int _drainedNotified;

    private WorkerPool? _pool;

    // Whether pushes that find no sleeper of this set may wake a sleeper of another set to lend itself here.
    private bool _wakeLenders;

    // The busy-period stamp (lending by oldest run; TrackBusyPeriods): the clock, set once before the set is published
    // (null: no stamps, the external path pays nothing), and when the set last went from nothing queued or running to
    // a task. Written with a release store by external producers (several may race on one transition: any of their
    // readings is right to within the race), read with an acquire load by idle workers choosing where to lend.
    private TimeProvider? _busyClock;
    private long _busySince;

    /// <summary>Creates the queues for <paramref name="victims"/>.Length slots.</summary>
    /// <param name="owner">The scheduler whose tasks these are.</param>
    /// <param name="execute">Runs one task on the calling thread (the owner's <c>TryExecuteTask</c>).</param>
    /// <param name="victims">For each slot, its steal levels (see <see cref="VictimOrder"/>).</param>
    /// <param name="pool">The pool whose workers serve this set, when it exists already (otherwise
    /// <see cref="AttachPool"/> connects it once it does).</param>
    /// <param name="drained">Called once when the set is closed and drained (see <see cref="Drained"/>).</param>
    /// <param name="initialDequeCapacity">Initial capacity of each deque.</param>
    public WorkQueueSet(
        TaskScheduler owner, Func<Task, bool> execute, int[][][] victims, WorkerPool? pool = null, Action? drained = null, int initialDequeCapacity = 256)
    {
        ArgumentNullException.ThrowIfNull(owner);
        ArgumentNullException.ThrowIfNull(execute);
        ArgumentNullException.ThrowIfNull(victims);
        Owner = owner;
        _execute = execute;
        _victims = victims;
        _deques = new WorkStealingDeque<Task>[victims.Length];
        _counters = new WorkerSlotCounters[victims.Length];
        for (int i = 0; i < victims.Length; i++)
        {
            _deques[i] = new WorkStealingDeque<Task>(initialDequeCapacity);
            _counters[i] = new WorkerSlotCounters();
        }

        Drained = drained;
        if (pool is not null)
        {
            AttachPool(pool);
        }
    }

    /// <summary>The scheduler these queues belong to.</summary>
    public TaskScheduler Owner { get; }

    /// <summary>The number of worker slots.</summary>
    public int SlotCount => _deques.Length;

    /// <summary>Whether <see cref="Close"/> was called.</summary>
    public bool IsClosed => Volatile.Read(ref _closed) != 0; // Acquire: pairs with Close's interlocked store.

    /// <summary>Announced sleepers not yet woken (diagnostics and tests); can briefly read below zero (RetractSleeper).</summary>
    public long Sleepers => Volatile.Read(ref _sleepers.Value); // Volatile: updated by interlocked ops elsewhere.

    /// <summary>
    /// Tasks queued and not yet taken: the global queue's count plus, for the deques, pushes minus removals summed
    /// from single-writer counters. Exact whenever the set is quiet (in particular exactly 0 once all work has
    /// started), within the operations in flight otherwise. Never negative. Costs one pass over the slots and no
    /// shared counter on the hot path.
    /// </summary>
    public long AvailableTasks
    {
        get
        {
            // Volatile reads of single-writer counters: each value is whole and recent; the sum is not one instant.
            long inDeques = 0;
            foreach (WorkerSlotCounters counters in _counters)
            {
                inDeques += Volatile.Read(ref counters.Pushed) - Volatile.Read(ref counters.DequeTaken);
            }

            return Math.Max(0, inDeques) + _global.Count;
        }
    }

    /// <summary>
    /// Connects the pool whose workers serve this set (it receives the wake-ups). Called once, by the constructor or,
    /// where the pool is built after the set (a pool's own idle or single set), by the pool's creator.
    /// </summary>
    /// <param name="pool">The pool.</param>
    public void AttachPool(WorkerPool pool)
    {
        ArgumentNullException.ThrowIfNull(pool);
        Debug.Assert(_pool is null, "A queue set is attached to one pool.");
        Debug.Assert(pool.WorkerCount == SlotCount, "One slot per pool worker.");
        _pool = pool;
        _wakeLenders = pool.Director is not null;
    }

    /// <summary>
    /// Queues a task from a thread that is not a worker of this set. Returns <see langword="false"/> (and queues
    /// nothing) once the set is closed.
    /// </summary>
    /// <param name="task">The task.</param>
    /// <returns>Whether the task was accepted.</returns>
    public bool TryEnqueueExternal(Task task)
    {
        // Full fence: announce ourselves before reading the closed flag, so that a closer that then sees no one in
        // flight knows every accepted task is already in the queue (Dekker pairing with Close + IsQuiescent).
        Interlocked.Increment(ref _externalInFlight.Value);
        try
        {
            // Ordered after the increment above by its full fence.
            if (Volatile.Read(ref _closed) != 0)
            {
                return false;
            }

            // Before the enqueue, so the count does not include this task: nothing outstanding = the set was idle.
            if (_busyClock is not null)
            {
                StampIfIdle(_busyClock);
            }

            _global.Enqueue(task);
            // Interlocked: external producers are concurrent; counted before the in-flight decrement below.
            Interlocked.Increment(ref _externalAccepted.Value);
        }
        finally
        {
            // Full fence, two reasons: leaving only after the enqueue, so "no one in flight" implies the queue shows
            // the task; and the task is published before we read the sleeper count below (pairs with a sleeper's
            // announce-then-recheck).
            Interlocked.Decrement(ref _externalInFlight.Value);

            // Ordered after the decrement by its fence: a closer that saw us in flight did not declare the set
            // drained, so we look again (Dekker pair with Close, whose fence precedes its read of the in-flight count).
            if (Volatile.Read(ref _closed) != 0)
            {
                NotifyIfDrained();
            }
        }

        WakeIfSleepers();
        return true;
    }

    /// <summary>Worker only: pushes a task onto the calling worker's own deque.</summary>
    /// <param name="slot">The calling worker's slot.</param>
    /// <param name="task">The task.</param>
    public void PushLocal(int slot, Task task)
    {
        WorkerSlotCounters counters = _counters[slot];
        // Counted before it is visible, so a thief that takes it at once never drives AvailableTasks below zero.
        WorkerSlotCounters.Bump(ref counters.Pushed);
        _deques[slot].LocalPush(task);
        // No fence here (the hot path): the store-load ordering between our push and our read of the sleeper
        // count is supplied by the sleeper, whose process-wide barrier (AnnounceSleeper) serialises this CPU too.
        // The volatile store of bottom and the volatile read below are not reordered by the compiler.
#if !NETCOREAPP
        // netstandard2.0 / .NET Framework / Mono have no process-wide barrier: there the sleeper's barrier is a plain
        // full fence, so the producer pays its own half of the Dekker pair here.
        Interlocked.MemoryBarrier();
#endif
        WakeIfSleepers();
    }

    /// <summary>
    /// Worker only: finds the next task for <paramref name="slot"/>: its own deque (LIFO), then the global queue
    /// (FIFO), then steals (FIFO) from victims nearest first.
    /// </summary>
    /// <param name="slot">The calling worker's slot.</param>
    /// <param name="random">The worker's random state (xorshift), used to pick where each steal level starts.</param>
    /// <returns>A task, or <see langword="null"/> when every queue looked empty.</returns>
    public Task? TryTake(int slot, ref uint random)
    {
        WorkerSlotCounters counters = _counters[slot];
        Task? task = _deques[slot].LocalPop();
        if (task is not null)
        {
            WorkerSlotCounters.Bump(ref counters.LocalPops);
            WorkerSlotCounters.Bump(ref counters.DequeTaken);
            return task;
        }

        if (!_global.IsEmpty && _global.TryDequeue(out task))
        {
            WorkerSlotCounters.Bump(ref counters.GlobalDequeues);
            return task;
        }

        return TrySteal(slot, counters, ref random);
    }

    /// <summary>Worker only: runs a task taken by <see cref="TryTake"/> and counts it.</summary>
    /// <param name="slot">The calling worker's slot.</param>
    /// <param name="task">The task.</param>
    public void Execute(int slot, Task task)
    {
        WorkerSlotCounters counters = _counters[slot];
        WorkerSlotCounters.Bump(ref counters.TasksExecuted);
        _execute(task);
        WorkerSlotCounters.Bump(ref counters.TasksFinished);
        // Volatile read, no fence on this hot path: a closer pairs its Close with a process-wide barrier before it
        // reads the counters (CheckDrained), so either it sees our TasksFinished or we see the closed flag.
#if !NETCOREAPP
        // No process-wide barrier on netstandard2.0 (the closer's is a plain full fence): pay our half here.
        Interlocked.MemoryBarrier();
#endif
        if (Volatile.Read(ref _closed) != 0)
        {
            // Full fence (draining only): our TasksFinished store is visible before we read the in-flight count and
            // the counters, pairing with an external producer's decrement-then-check in TryEnqueueExternal.
            Interlocked.MemoryBarrier();
            NotifyIfDrained();
        }
    }

    /// <summary>
    /// Called once, on whichever thread first sees the set closed and drained (<see cref="IsDrained"/>): a worker
    /// that finished the last task, or the closer in <see cref="CheckDrained"/>. Given to the constructor.
    /// </summary>
    public Action? Drained { get; }

    /// <summary>
    /// Tasks accepted and not yet finished: external enqueues plus local pushes minus tasks whose execution returned.
    /// Exactly 0 only when every accepted task has finished (the finished counts are read first, and a task's
    /// push happens before its finish, so the difference never undercounts). Costs one pass over the slots.
    /// </summary>
    public long OutstandingTasks
    {
        get
        {
            // Acquire reads, finished first: every finish we count has its push (or external enqueue) counted below.
            long finished = 0;
            foreach (WorkerSlotCounters counters in _counters)
            {
                finished += Volatile.Read(ref counters.TasksFinished);
            }

            long accepted = Volatile.Read(ref _externalAccepted.Value);
            foreach (WorkerSlotCounters counters in _counters)
            {
                accepted += Volatile.Read(ref counters.Pushed);
            }

            return accepted - finished;
        }
    }

    /// <summary>
    /// Starts stamping busy periods (<see cref="BusySince"/>) on <paramref name="clock"/>. Called once, before the set
    /// is published to any producer or worker (the field is then read without a fence: publication orders it).
    /// </summary>
    /// <param name="clock">The clock of the stamps.</param>
    public void TrackBusyPeriods(TimeProvider clock)
    {
        ArgumentNullException.ThrowIfNull(clock);
        _busyClock = clock;
        _busySince = clock.GetTimestamp();
    }

    /// <summary>
    /// When the set's current busy period began (<see cref="TrackBusyPeriods"/>' clock): the last time a task was
    /// queued from outside while nothing was queued or running. Only an external enqueue can start a busy period (a
    /// local push comes from a task of the set, which is running), so that is the only place that stamps: the push
    /// and pop paths are unchanged. Approximate: a producer racing with the last task's finish may read it as still
    /// outstanding and keep the older stamp, and concurrent producers on an idle set each stamp; either way the
    /// stamp is earlier than or within the race of the true transition. A director that sees a task queued by the
    /// stamping producer also sees its stamp (release store before the queue's publishing enqueue, acquire here).
    /// </summary>
    public long BusySince => Volatile.Read(ref _busySince);

    /// <summary>Whether the set is closed, no producer is in flight, and every accepted task has finished.</summary>
    public bool IsDrained =>
        // Acquire reads in this order: closed, in-flight, then the counters (see TryEnqueueExternal).
        Volatile.Read(ref _closed) != 0 && Volatile.Read(ref _externalInFlight.Value) == 0 && OutstandingTasks == 0;

    /// <summary>
    /// The closer's half of the drained handshake: after <see cref="Close"/>, a process-wide barrier, then the check.
    /// Raises <see cref="Drained"/> (once overall) when the set is already drained.
    /// </summary>
    public void CheckDrained()
    {
        Debug.Assert(IsClosed, "Check for drained only after Close.");
        // Process-wide barrier: a worker whose TasksFinished store is still buffered has it flushed before our
        // reads, and a worker reading the closed flag after this point sees it (asymmetric Dekker with Execute).
        Interlocked.MemoryBarrierProcessWide();
        NotifyIfDrained();
    }

    /// <summary>Worker only: counts one task run inline by the worker in <paramref name="slot"/>.</summary>
    /// <param name="slot">The calling worker's slot.</param>
    public void CountInlined(int slot) => WorkerSlotCounters.Bump(ref _counters[slot].TasksInlined);

    /// <summary>Worker only: counts one park (the worker is about to block).</summary>
    /// <param name="slot">The calling worker's slot.</param>
    public void CountPark(int slot) => WorkerSlotCounters.Bump(ref _counters[slot].Parks);

    /// <summary>Whether every queue of the set looked empty (global and all deques).</summary>
    /// <returns><see langword="true"/> when no task was seen.</returns>
    public bool LooksEmpty()
    {
        if (!_global.IsEmpty)
        {
            return false;
        }

        foreach (WorkStealingDeque<Task> deque in _deques)
        {
            if (!deque.IsEmpty)
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>
    /// Whether the set is closed, no external producer is between its check and its enqueue, and every queue is
    /// empty: nothing accepted is left to start (tasks still running may push more onto their own worker's deque;
    /// that worker runs them before it exits).
    /// </summary>
    public bool IsQuiescent =>
        // Acquire reads in this order: closed, then in-flight, then the queues (see TryEnqueueExternal).
        Volatile.Read(ref _closed) != 0 && Volatile.Read(ref _externalInFlight.Value) == 0 && LooksEmpty();

    /// <summary>Stops accepting external tasks. Idempotent.</summary>
    public void Close() =>
        // Full fence: the flag is visible before we (or the pool) read anything about producers or sleepers.
        Interlocked.Exchange(ref _closed, 1);

    /// <summary>
    /// Worker only: moves the calling worker's local deque into the global queue (oldest first), for a worker that
    /// is about to serve another set. Returns the number moved.
    /// </summary>
    /// <param name="slot">The calling worker's slot.</param>
    /// <returns>Tasks moved.</returns>
    public int DrainLocalToGlobal(int slot)
    {
        // Only the owner pushes to this deque, so an empty look is final: nothing to hand back, nothing to allocate.
        if (_deques[slot].IsEmpty)
        {
            return 0;
        }

        var drained = new List<Task>();
        int count = _deques[slot].LocalDrain(drained);
        foreach (Task task in drained)
        {
            _global.Enqueue(task);
        }

        // The moved tasks left the deque (single writer: this slot's worker) and are now counted by the global queue.
        WorkerSlotCounters counters = _counters[slot];
        Volatile.Write(ref counters.DequeTaken, counters.DequeTaken + count);
        // Full fence: the re-queued tasks are visible before the sleeper check.
        Interlocked.MemoryBarrier();
        WakeIfSleepers();
        return count;
    }

    /// <summary>
    /// Worker only: a sleeper of this set announces itself, then it must recheck every queue. Ends with a
    /// process-wide barrier so that local pushes need no fence of their own (an asymmetric Dekker pair).
    /// </summary>
    public void AnnounceSleeper()
    {
        // Full fence: the announcement is visible before the sleeper rechecks the queues (store-load).
        Interlocked.Increment(ref _sleepers.Value);
        _pool?.CountSleeper(+1);
        // Process-wide barrier: acts as a full fence on every CPU. A producer whose push was still in its store
        // buffer has it flushed before our recheck; a producer that reads the sleeper count after this point sees
        // our increment. Costs a system call, paid only on the way to sleep (after spinning found nothing).
        Interlocked.MemoryBarrierProcessWide();
    }

    /// <summary>A sleeper that will not block after all, or its waker, withdraws the announcement.</summary>
    public void RetractSleeper()
    {
        // Interlocked: wakers and sleepers update it concurrently. It can dip below zero for a moment: Park makes
        // Sleeping visible before its increment, so a waker may claim the sleeper and decrement first (no assert).
        Interlocked.Decrement(ref _sleepers.Value);
        _pool?.CountSleeper(-1);
    }

    /// <summary>A snapshot of queued tasks for debuggers: the global queue, then each deque.</summary>
    /// <returns>The tasks seen.</returns>
    public IEnumerable<Task> Snapshot()
    {
        var tasks = new List<Task>(_global.ToArray());
        foreach (WorkStealingDeque<Task> deque in _deques)
        {
            tasks.AddRange(deque.ToArraySnapshot());
        }

        return tasks;
    }

    private void WakeIfSleepers()
    {
        // Called after a full fence that published a task: a sleeper that announced before it rechecks after
        // (and sees the task), or we see it here and wake it.
        if (Volatile.Read(ref _sleepers.Value) > 0)
        {
            _pool?.WakeOne(this);
        }
        else if (_wakeLenders && _pool!.Sleepers > 0)
        {
            // Best effort (work conservation, not correctness): a worker parked elsewhere comes to help.
            _pool.WakeLender(this);
        }
    }

    private void StampIfIdle(TimeProvider clock)
    {
        // Reads single-writer counters after the in-flight increment's full fence; never undercounts (finished read
        // first), so a busy set is never taken for idle; one whose last task is finishing may be taken for busy (a
        // missed stamp, which leaves the older one).
        if (OutstandingTasks == 0)
        {
            // Release: the stamp is visible before the task that the enqueue after it publishes.
            Volatile.Write(ref _busySince, clock.GetTimestamp());
        }
    }

    private void NotifyIfDrained()
    {
        // Interlocked: the worker finishing the last task and the closer may both see the set drained; one notifies.
        if (IsDrained && Interlocked.Exchange(ref _drainedNotified, 1) == 0)
        {
            Drained?.Invoke();
        }
    }

    private Task? TrySteal(int slot, WorkerSlotCounters counters, ref uint random)
    {
        int[][] levels = _victims[slot];
        bool lostRace;
        do
        {
            lostRace = false;
            foreach (int[] level in levels)
            {
                random ^= random << 13;
                random ^= random >> 17;
                random ^= random << 5;
                int start = (int)(random % (uint)level.Length);
                for (int k = 0; k < level.Length; k++)
                {
                    int victim = level[start + k < level.Length ? start + k : start + k - level.Length];
                    WorkStealingDeque<Task> deque = _deques[victim];
                    if (deque.IsEmpty)
                    {
                        continue;
                    }

                    switch (deque.TrySteal(out Task? task))
                    {
                        case StealResult.Success:
                            WorkerSlotCounters.Bump(ref counters.Steals);
                            WorkerSlotCounters.Bump(ref counters.DequeTaken);
                            return task;
                        case StealResult.Retry:
                            WorkerSlotCounters.Bump(ref counters.FailedSteals);
                            lostRace = true;
                            break;
                        default:
                            break;
                    }
                }
            }
        }
        while (lostRace);

        return null;
    }
}
