using System.Diagnostics;

namespace DivCon.Schedulers.Workers;

/// <summary>
/// One dedicated worker thread of a CPU (<see cref="Cpu"/>). It serves one <see cref="WorkQueueSet"/> at a time (read
/// afresh each iteration) using slot <see cref="Index"/> of that set: take a task (own deque, global queue, steal),
/// run it, repeat; when nothing is found, spin a bounded number of rounds, then park until woken.
/// </summary>
/// <remarks>
/// <para>States and the wake-up protocol are described in README-wakeups.md beside this folder.</para>
/// <para>
/// <b>Home and moves.</b> Besides the set it serves, a worker's CPU has a <see cref="Home"/> set (the program that
/// owns it). Anyone may change the home with <see cref="CpuSlot.RequestMove"/>; the serving worker itself performs
/// the move at its next task boundary (a running task never changes thread), and a parked worker is woken to do so.
/// </para>
/// <para>
/// <b>Standby.</b> A CPU may have a second worker, its standby, parked in the <c>Standby</c> state. When a move finds
/// the server inside a task that has run longer than the CPU's handover threshold, the standby becomes the server
/// and serves the new owner at once; the old server finishes its task, then retires to standby
/// (<c>Multiprogram/README.md</c>, "Standby handover"). Each worker has its own slot in every set, so the two never
/// share a deque or a counter.
/// </para>
/// <para>
/// <b>Lending.</b> When the pool has a <see cref="IWorkerDirector"/> and the home set has no work after spinning,
/// the worker asks the director for another set with work and serves it, lent, until that set runs dry or its home
/// has work again (checked at every task boundary while lent). Parking always happens at home.
/// </para>
/// </remarks>
internal sealed class Worker : IDisposable
{
    /// <summary>Spin rounds (each one <c>SpinWait.SpinOnce</c> plus a scan) before parking.</summary>
    internal const int SpinRounds = 24;

    private const int Awake = 0;
    private const int Sleeping = 1;
    private const int Standby = 2;

    [ThreadStatic]
    private static Worker? t_current;

    private readonly WorkerPool _pool;
    private readonly CpuSlot _cpu;
    private readonly SemaphoreSlim _wake = new(0, 1);
    private WorkQueueSet _queues;

    // Worker thread only: the home this worker had when it lent itself out; null when not lent.
    private WorkQueueSet? _lentFrom;
    private int _state;
    private uint _random;

    // Written by this thread only, read by its standby: odd while a task taken by the loop runs; the start time
    // (Stopwatch ticks) is stored before the serial turns odd.
    private long _taskSerial;
    private long _taskStartedAt;

    /// <summary>Creates a worker (its thread is started by the pool).</summary>
    /// <param name="pool">The pool it belongs to.</param>
    /// <param name="cpu">The CPU it runs on.</param>
    /// <param name="index">Its index in the pool, which is also its slot in every queue set.</param>
    /// <param name="queues">The queue set it serves first.</param>
    public Worker(WorkerPool pool, CpuSlot cpu, int index, WorkQueueSet queues)
    {
        _pool = pool;
        _cpu = cpu;
        Index = index;
        _queues = queues;
        _random = (uint)(index * 0x9E3779B9u) | 1u;
        Thread = new Thread(RunThenReportExit)
        {
            IsBackground = true,
            Name = $"DivCon worker {index}",
        };
    }

    /// <summary>The worker running on the calling thread, or <see langword="null"/> on any other thread.</summary>
    public static Worker? Current => t_current;

    /// <summary>The worker's index in its pool and its slot in every queue set.</summary>
    public int Index { get; }

    /// <summary>The CPU the worker belongs to (and is pinned to, when the pool pins).</summary>
    public CpuSlot Cpu => _cpu;

    /// <summary>The worker's thread.</summary>
    public Thread Thread { get; }

    /// <summary>The pool the worker belongs to.</summary>
    public WorkerPool Pool => _pool;

    /// <summary>The queue set the worker serves now.</summary>
    public WorkQueueSet Queues => Volatile.Read(ref _queues); // Acquire: pairs with MoveTo's release.

    /// <summary>The set that owns the worker's CPU (it serves it whenever it is not lent out or moving).</summary>
    public WorkQueueSet Home => _cpu.Home;

    /// <summary>Whether the worker has announced it is asleep as a sleeper of its set (parked or about to park).</summary>
    public bool IsParked => Volatile.Read(ref _state) == Sleeping; // Volatile: read by wakers and tests.

    /// <summary>Whether the worker is parked (or about to park) as its CPU's standby.</summary>
    public bool IsStandby => Volatile.Read(ref _state) == Standby; // Volatile: read by movers and tests.

    /// <summary>Whether the worker is inside a task it took from a queue (read by its standby and tests).</summary>
    public bool IsInTask => (Volatile.Read(ref _taskSerial) & 1) != 0; // Volatile: written by the worker thread.

    /// <summary>
    /// Worker thread only, between tasks: hands the local deque back to the current set's global queue and serves
    /// <paramref name="next"/> from now on (the seam a multiprogram scheduler uses to move a worker).
    /// </summary>
    /// <param name="next">The set to serve.</param>
    public void MoveTo(WorkQueueSet next)
    {
        Debug.Assert(ReferenceEquals(t_current, this), "Only the worker itself changes its queue set.");
        WorkQueueSet current = _queues;
        if (ReferenceEquals(current, next))
        {
            return;
        }

        current.DrainLocalToGlobal(Index);
        // Release: readers of Queues (QueueTask on this thread, wakers) see the new set after the drain.
        Volatile.Write(ref _queues, next);
    }

    /// <summary>Claims a worker sleeping in its set and releases it. Returns false if it was not (or already claimed).</summary>
    /// <returns>Whether this call woke the worker.</returns>
    public bool TryWake()
    {
        // CAS: exactly one of (the sleeper cancelling itself, one waker) moves Sleeping -> Awake, so the semaphore
        // is released at most once per sleep.
        if (Volatile.Read(ref _state) != Sleeping ||
            Interlocked.CompareExchange(ref _state, Awake, Sleeping) != Sleeping)
        {
            return false;
        }

        _queues.RetractSleeper();
        _wake.Release();
        return true;
    }

    /// <summary>Claims a standby and releases it, so that it watches its CPU. Returns false if it was not standing by.</summary>
    /// <returns>Whether this call woke the standby.</returns>
    public bool TryActivate()
    {
        // CAS: exactly one of (the standby cancelling itself, one activator, stop) moves Standby -> Awake, so the
        // semaphore is released at most once per standby sleep.
        if (Volatile.Read(ref _state) != Standby ||
            Interlocked.CompareExchange(ref _state, Awake, Standby) != Standby)
        {
            return false;
        }

        _wake.Release();
        return true;
    }

    /// <summary>Releases the worker's wait handle; only after its thread has exited.</summary>
    public void Dispose() => _wake.Dispose();

    private bool IsServer => ReferenceEquals(_cpu.Server, this);

    private void RunThenReportExit()
    {
        try
        {
            Run();
        }
        finally
        {
            // Cleared first: from here on a task queued from this thread is an outside task (refused once the set is
            // closed), never pushed onto a deque that no worker will serve again.
            t_current = null;
            _pool.ReportExit();
        }
    }

    private void Run()
    {
        t_current = this;
        if (!_pool.RunStartHook(this))
        {
            return;
        }

        while (true)
        {
            if (!IsServer && !StandBy())
            {
                return; // Stopping: a standby holds no task and exits at once.
            }

            // Only this thread writes _queues, so a plain read is current.
            WorkQueueSet queues = _queues;
            MoveOrder order = _cpu.Order;
            WorkQueueSet home = order.Home;
            bool lentFromHome = StayLent(home);
            if (!ReferenceEquals(queues, home) && !lentFromHome)
            {
                // Moved by the rebalancer, or lent and the home has work again: go home.
                MoveTo(home);
                _lentFrom = null;
                queues = home;
            }

            if (order.IsPending && (ReferenceEquals(queues, home) || lentFromHome))
            {
                // The first boundary at which this worker serves its (new) owner, or stays lent because that owner
                // has nothing queued (a move back to the home it lent itself from): the move has arrived.
                order.Arrive();
            }

            Task? task = queues.TryTake(Index, ref _random) ?? Spin(queues, home);
            if (task is not null)
            {
                RunTask(queues, task);
                continue;
            }

            if (!ReferenceEquals(queues, home))
            {
                // Lent and the borrower ran dry (or a move arrived while spinning): the next iteration goes home.
                _lentFrom = null;
                continue;
            }

            if (!IsServer)
            {
                continue; // A standby took over while we spun: retire.
            }

            if (_pool.Director?.FindWork(this) is { } other)
            {
                _lentFrom = home;
                MoveTo(other);
                continue;
            }

            if (_pool.StopRequested)
            {
                if (_pool.CanExit(queues))
                {
                    return;
                }

                // Stopping but not quiescent (a producer in flight, or a lost steal race): do not park, the producer
                // may have been refused and will not wake anyone.
                Thread.Yield();
                continue;
            }

            Park(queues);
        }
    }

    private void RunTask(WorkQueueSet queues, Task task)
    {
        if (!_cpu.HasStandby)
        {
            queues.Execute(Index, task);
            return;
        }

        // Single writer: the start time is stored before the serial turns odd (release), so a standby that reads
        // the odd serial (acquire) reads this task's start time or a later one.
        _taskStartedAt = Stopwatch.GetTimestamp();
        Volatile.Write(ref _taskSerial, _taskSerial + 1);
        try
        {
            queues.Execute(Index, task);
        }
        finally
        {
            Volatile.Write(ref _taskSerial, _taskSerial + 1); // Release: even again, the task has returned.
        }
    }

    private bool StayLent(WorkQueueSet home) =>
        ReferenceEquals(_lentFrom, home) && home.LooksEmpty();

    private Task? Spin(WorkQueueSet queues, WorkQueueSet home)
    {
        var spinner = default(SpinWait);
        for (int round = 0; round < SpinRounds && !_pool.StopRequested && ReferenceEquals(Home, home) && IsServer; round++)
        {
#if NETCOREAPP
            spinner.SpinOnce(sleep1Threshold: -1);
#else
            spinner.SpinOnce(); // no sleep1Threshold before .NET Core 3.0: may yield with Sleep(1) late in the spin.
#endif
            if (queues.TryTake(Index, ref _random) is { } task)
            {
                return task;
            }
        }

        return null;
    }

    private void Park(WorkQueueSet queues)
    {
        // Announce, then recheck, then block (README-wakeups.md). The state store is ordered before the counter's
        // Interlocked increment, so a waker that sees the count also sees Sleeping. The recheck of the order pairs
        // with CpuSlot.RequestMove (a pending order, even for this very set, means: go round once more and report
        // the arrival); the recheck of the server pairs with a standby's take-over CAS followed by TryWake on us.
        Volatile.Write(ref _state, Sleeping);
        queues.AnnounceSleeper();
        MoveOrder order = _cpu.Order;
        if (!queues.LooksEmpty() || _pool.StopRequested || !ReferenceEquals(order.Home, queues) || order.IsPending || !IsServer)
        {
            // CAS: cancel our own announcement unless a waker already claimed us.
            if (Interlocked.CompareExchange(ref _state, Awake, Sleeping) == Sleeping)
            {
                queues.RetractSleeper();
                return;
            }

            // A waker claimed us and has released (or is about to release) the semaphore: consume that release.
            _wake.Wait();
            return;
        }

        queues.CountPark(Index);
        _wake.Wait();
        // Volatile: the waker's CAS happened on another thread before its Release, which we observed.
        Debug.Assert(Volatile.Read(ref _state) == Awake, "Only a waker that set Awake releases the semaphore.");
    }

    /// <summary>
    /// A worker that is not its CPU's server: leaves the set it served (its deque goes back to that set's global
    /// queue), parks as the standby, and when activated watches the CPU's pending move, taking over when the server
    /// is stuck in a long task.
    /// </summary>
    /// <returns><see langword="true"/> once this worker is the server; <see langword="false"/> when stopping.</returns>
    private bool StandBy()
    {
        // The standby serves the pool's initial set, which never has tasks: wakers of program sets never pick it.
        MoveTo(_pool.InitialSet);
        _lentFrom = null;
        while (true)
        {
            // Announce, then recheck, then block: the Dekker pair with CpuSlot.RequestMove (order store, full fence,
            // TryActivate reads our state) and with RequestStop (flag store, full fence, reads our state).
            Volatile.Write(ref _state, Standby);
            Interlocked.MemoryBarrier();
            if (_cpu.Order.IsPending || _pool.StopRequested || IsServer)
            {
                // CAS: cancel our announcement unless an activator claimed us first; then consume its release.
                if (Interlocked.CompareExchange(ref _state, Awake, Standby) != Standby)
                {
                    _wake.Wait();
                }
            }
            else
            {
                _wake.Wait();
            }

            Debug.Assert(Volatile.Read(ref _state) == Awake, "Only an activator that set Awake releases the semaphore.");
            if (IsServer)
            {
                return true; // Made the server again by a move back to the set whose task we were finishing.
            }

            if (_pool.StopRequested)
            {
                return false;
            }

            if (WatchMove())
            {
                return true;
            }
        }
    }

    /// <summary>
    /// Standby, awake: while the CPU's move is pending, wait (sleeping, so that the server keeps the CPU) until the
    /// server either arrives by itself or has been inside one task for the handover threshold; then take over.
    /// </summary>
    /// <returns>Whether this worker became the server.</returns>
    private bool WatchMove()
    {
        while (!_pool.StopRequested)
        {
            MoveOrder order = _cpu.Order;
            if (!order.IsPending)
            {
                return false; // The server arrived (or a later order has nothing to report).
            }

            Worker server = _cpu.Server;
            long serial = Volatile.Read(ref server._taskSerial); // Acquire: pairs with RunTask's release.
            long wait = _cpu.HandoverThreshold;
            if ((serial & 1) != 0)
            {
                if (ReferenceEquals(server.Queues, order.Home))
                {
                    // The server's task belongs to the new owner (a move back): the CPU serves it already.
                    order.Arrive();
                    return false;
                }

                long ran = Stopwatch.GetTimestamp() - Volatile.Read(ref server._taskStartedAt);
                if (ran >= _cpu.HandoverThreshold)
                {
                    if (_cpu.TryTakeOver(this, server))
                    {
                        // The old server may have passed a boundary and parked in its set after our look (a benign
                        // race): wake it so that it retires at once.
                        server.TryWake();
                        return true;
                    }

                    continue;
                }

                wait = _cpu.HandoverThreshold - ran;
            }

            // Between tasks the server moves itself within a boundary; we look again in case it had already read
            // the old order and started a long task. Sleeping, not spinning: the server needs this CPU.
            long ms = Math.Clamp(wait * 1000 / Stopwatch.Frequency, 1, 1000);
            Thread.Sleep((int)ms);
        }

        return false;
    }
}
