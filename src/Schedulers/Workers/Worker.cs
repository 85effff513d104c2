using System.Diagnostics;

namespace DivCon.Schedulers.Workers;

/// <summary>
/// One dedicated worker thread of a CPU (<see cref="Cpu"/>). It serves one <see cref="WorkQueueSet"/> at a time (read
/// afresh each iteration) using slot <see cref="Index"/> of that set: take a task (own deque, global queue, steal),
/// run it, repeat; when nothing is found, spin a bounded number of rounds, then park until woken.
/// </summary>
/// <remarks>
/// <para>The state machine (states, transitions, and the stores, fences and rechecks named [P1] ... [X2] below) is
/// described in Workers/README.md; the wake-up protocol with producers in README-wakeups.md.</para>
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

    [ThreadStatic]
    private static Worker? t_current;

    private readonly WorkerPool _pool;
    private readonly CpuSlot _cpu;
    private readonly SemaphoreSlim _wake = new(0, 1);
    private WorkQueueSet _queues;

    // Worker thread only: the home this worker had when it lent itself out; null when not lent.
    private WorkQueueSet? _lentFrom;
    // Written by this thread (announce, cancel) and by claimers (CAS); see StateWord.
    private StateWord _state;
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
    public bool IsParked => _state.Read() == ParkState.Sleeping;

    /// <summary>Whether the worker is parked (or about to park) as its CPU's standby.</summary>
    public bool IsStandby => _state.Read() == ParkState.Standby;

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

        // [Q] Drain first (the old set's global queue gets our deque's tasks and wakes a sleeper of that set), then
        // publish with a release store: readers of Queues (QueueTask on this thread, wakers) see the new set after it.
        current.DrainLocalToGlobal(Index);
        Volatile.Write(ref _queues, next);
    }

    /// <summary>Claims a worker sleeping in its set and releases it. Returns false if it was not (or already claimed).</summary>
    /// <returns>Whether this call woke the worker.</returns>
    public bool TryWake()
    {
        // [M2]/producer claim: exactly one of (the sleeper cancelling itself, one claimer) moves Sleeping -> Awake, so
        // the semaphore is released at most once per sleep.
        if (!_state.TryClaim(ParkState.Sleeping))
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
        // [M3] Activate: exactly one of (the standby cancelling itself, one activator, stop) moves Standby -> Awake,
        // so the semaphore is released at most once per standby sleep.
        if (!_state.TryClaim(ParkState.Standby))
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

    // The dispatcher: each pass is one task boundary. The decisions are WorkerTransitions' (pure, over the values read
    // here); each transition is a method below, named as in Workers/README.md, with its guard and ordering there.
    private void Run()
    {
        t_current = this;
        if (!_pool.RunStartHook(this))
        {
            return;
        }

        while (true)
        {
            // Retire when not the server. [W0] The server first, then the order (acquire reads): a swap back ([M4])
            // publishes the order before it makes this worker the server again, so a worker that sees itself the server
            // sees the order that did it.
            if (!IsServer && !Retire())
            {
                return; // Stopping: a standby holds no task and exits at once.
            }

            // The server now (it was, or Retire returned once it became the server again). Only this thread writes
            // _queues and _lentFrom, so plain reads are current.
            WorkQueueSet queues = _queues;
            MoveOrder order = _cpu.Order;
            WorkQueueSet home = order.Home;
            bool staysLent = StaysLent(home);
            if (WorkerTransitions.AtBoundary(ReferenceEquals(queues, home), staysLent) == BoundaryStep.GoHome)
            {
                queues = GoHome(home);
            }

            if (WorkerTransitions.Arrives(order.IsPending, ReferenceEquals(queues, home), staysLent))
            {
                order.Arrive(); // [A] The first boundary at which this CPU serves the order's home (or stays lent from it).
            }

            if (_pool.Director?.BurstFor(queues) is { } burst)
            {
                queues = YieldToBurst(home, burst); // [B1] Serving a program that yields while a bursty one has queued tasks.
            }

            Task? task = queues.TryTake(Index, ref _random) ?? Spin(queues, home);
            if (task is not null)
            {
                RunTask(queues, task);
                continue;
            }

            switch (WorkerTransitions.WhenIdle(ReferenceEquals(queues, home), IsServer))
            {
                case IdleStep.Return:
                    Return();
                    continue;
                case IdleStep.Retire:
                    continue; // A standby took over while we spun: the top of the loop retires.
            }

            if (TryLend(home))
            {
                continue;
            }

            bool stopping = _pool.StopRequested;
            switch (WorkerTransitions.AtRest(stopping, stopping && _pool.CanExit(queues)))
            {
                case RestStep.Exit:
                    return;
                case RestStep.Yield:
                    // [X2] Stopping but not quiescent (a producer in flight, or a lost steal race): never park, a
                    // producer refused after the close wakes nobody.
                    Thread.Yield();
                    continue;
                default:
                    Park(queues);
                    continue;
            }
        }
    }

    private void RunTask(WorkQueueSet queues, Task task)
    {
        if (!_cpu.HasStandby)
        {
            queues.Execute(Index, task);
            return;
        }

        // [T1] Single writer: the start time is stored before the serial turns odd (release), so a standby that reads
        // the odd serial (acquire, [W1]) reads this task's start time or a later one.
        _taskStartedAt = Stopwatch.GetTimestamp();
        Volatile.Write(ref _taskSerial, _taskSerial + 1);
        try
        {
            queues.Execute(Index, task);
        }
        finally
        {
            Volatile.Write(ref _taskSerial, _taskSerial + 1); // [T2] Release: even again, the task has returned.
        }
    }

    /// <summary>
    /// Go home: moved by the rebalancer (the order names another set), or lent and the home has work again. Guard:
    /// this worker is the server and serves a set other than its home without staying lent.
    /// </summary>
    private WorkQueueSet GoHome(WorkQueueSet home)
    {
        MoveTo(home); // [Q] drain to the old set's global queue (which wakes its sleepers), then publish.
        _lentFrom = null;
        return home;
    }

    /// <summary>
    /// Lent and staying so: the home this worker lent itself from has still nothing queued ([L2]) or yields to the
    /// burst it serves, which still has queued tasks ([B2]); and the director keeps the loan (a guest's CPU holder is
    /// still idle, [L3]).
    /// </summary>
    private bool StaysLent(WorkQueueSet home) =>
        ReferenceEquals(_lentFrom, home)
        && (home.LooksEmpty() || _pool.Director?.StaysForBurst(home, _queues) == true) // [L2], or [B2]
        && (_pool.Director?.KeepsLoan(this) ?? true);

    /// <summary>
    /// Yield to a burst ([B1]): the set served yields to bursts and a bursty program has queued tasks, so from this
    /// boundary the worker serves that program, lent from its home ([Q] drains its deque to the set it leaves). It
    /// stays while the burst has queued tasks ([B2]), then goes home or lends itself as any lent worker.
    /// </summary>
    private WorkQueueSet YieldToBurst(WorkQueueSet home, WorkQueueSet burst)
    {
        if (ReferenceEquals(burst, home))
        {
            return GoHome(home); // lent from a bursty home to a yielding program: the burst is at home
        }

        _lentFrom = home;
        MoveTo(burst);
        return burst;
    }

    /// <summary>
    /// Return: lent and the borrower ran dry (or a move arrived while spinning). Guard: idle and not at home. Only
    /// this thread reads the field; the next boundary finds the worker away and not staying lent, so it goes home.
    /// </summary>
    private void Return() => _lentFrom = null;

    /// <summary>
    /// Lend ([L1]): the server at home found nothing after spinning; the director names another set with queued
    /// tasks, which it serves from the next boundary on, checking its home at each one ([L2]). Parking happens only at
    /// home, so a lent worker never sleeps in a set its CPU does not own.
    /// </summary>
    /// <returns>Whether it lent itself.</returns>
    private bool TryLend(WorkQueueSet home)
    {
        if (_pool.Director?.FindWork(this) is not { } other)
        {
            return false;
        }

        _lentFrom = home;
        MoveTo(other);
        return true;
    }

    private Task? Spin(WorkQueueSet queues, WorkQueueSet home)
    {
        var spinner = default(SpinWait);
        for (int round = 0; round < SpinRounds && !_pool.StopRequested && ReferenceEquals(Home, home) && IsServer; round++)
        {
            // [L3] A guest spinning for its borrower's next task stops as soon as the CPU's holder is busy again.
            if (_lentFrom is not null && _pool.Director?.KeepsLoan(this) == false)
            {
                return null;
            }

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

    /// <summary>
    /// Park as a sleeper of the home set: announce ([P1], [P2]), recheck ([P3]), then block or cancel ([P4]). Guard:
    /// the server, at home, idle after spinning, nothing to lend itself to, not stopping.
    /// </summary>
    private void Park(WorkQueueSet queues)
    {
        // [P1] then [P2]: the state store is ordered before the sleeper count's interlocked increment and the
        // process-wide barrier (AnnounceSleeper), so a producer or mover that sees the count also sees Sleeping.
        _state.Announce(ParkState.Sleeping);
        queues.AnnounceSleeper();
        // [P3] The recheck. Queues: pairs with a producer's publish-then-read-count (README-wakeups.md). The order
        // (home and pending): pairs with the mover's [M1]-then-[M2]; a pending order, even for this very set, means go
        // round once more and report the arrival. The server: pairs with a standby's take-over CAS [W2] followed by
        // its wake of us [W3]. Stop: pairs with [X1].
        MoveOrder order = _cpu.Order;
        if (WorkerTransitions.ParkCancels(queues.LooksEmpty(), _pool.StopRequested, ReferenceEquals(order.Home, queues), order.IsPending, IsServer))
        {
            // [P4] Cancel our own announcement unless a claimer won first; then consume its release instead.
            if (_state.TryCancel(ParkState.Sleeping))
            {
                queues.RetractSleeper();
                return;
            }

            _wake.Wait();
            return;
        }

        queues.CountPark(Index);
        _pool.Director?.Parking(this, asleep: true); // [G1] Say the CPU is idle (its holder's guest board).
        _wake.Wait();
        _pool.Director?.Parking(this, asleep: false); // [G2] Busy again: guests leave at their next boundary.
        // Volatile: the claimer's CAS happened on another thread before its Release, which we observed.
        Debug.Assert(_state.Read() == ParkState.Awake, "Only a claimer that set Awake releases the semaphore.");
    }

    /// <summary>
    /// Retire: this worker is not its CPU's server (a standby took over, or it is the standby from the start). It
    /// leaves the set it served (its deque goes back to that set's global queue), parks as the standby, and when
    /// activated watches the CPU's pending move, taking over when the server is stuck in a long task.
    /// </summary>
    /// <returns><see langword="true"/> once this worker is the server; <see langword="false"/> when stopping.</returns>
    private bool Retire()
    {
        // [Q] The standby serves the pool's initial set, which never has tasks: wakers of program sets never pick it.
        MoveTo(_pool.InitialSet);
        _lentFrom = null;
        while (true)
        {
            StandBy();
            switch (WorkerTransitions.AfterStandby(IsServer, _pool.StopRequested))
            {
                case StandbyStep.Serve:
                    return true; // Made the server again by a swap back to the set whose task we were finishing.
                case StandbyStep.Exit:
                    return false;
            }

            if (Watch())
            {
                return true;
            }
        }
    }

    /// <summary>
    /// Stand by: announce ([S1], [S2]), recheck ([S3]), then block or cancel ([S4]). Returns awake: activated by a
    /// mover ([M3]), swapped back ([M4]), released by stop ([X1]), or cancelled by the recheck.
    /// </summary>
    private void StandBy()
    {
        // [S1] then [S2]: the Dekker pair with the mover ([M1] order store, full fence, [M3] reads our state), with a
        // swap back ([M4] server CAS, then activation) and with stop ([X1] flag store, full fence, reads our state).
        _state.Announce(ParkState.Standby);
        Interlocked.MemoryBarrier();
        // [S3]
        if (WorkerTransitions.StandbyCancels(_cpu.Order.IsPending, _pool.StopRequested, IsServer))
        {
            // [S4] Cancel unless an activator claimed us first; then consume its release.
            if (!_state.TryCancel(ParkState.Standby))
            {
                _wake.Wait();
            }
        }
        else
        {
            _wake.Wait();
        }

        Debug.Assert(_state.Read() == ParkState.Awake, "Only an activator that set Awake releases the semaphore.");
    }

    /// <summary>
    /// Watch: the standby, awake, while the CPU's move is pending, waits (sleeping, so that the server keeps the CPU)
    /// until the server either arrives by itself or has been inside one task for the handover threshold; then it
    /// takes over.
    /// </summary>
    /// <returns>Whether this worker became the server.</returns>
    private bool Watch()
    {
        while (!_pool.StopRequested)
        {
            // [W1] acquire reads: the order (pairs with [M1]), the server (pairs with [W2]/[M4]), its task serial
            // (pairs with [T1]/[T2]); the start time only when the serial is odd.
            MoveOrder order = _cpu.Order;
            bool pending = order.IsPending;
            Worker server = _cpu.Server;
            long serial = pending ? Volatile.Read(ref server._taskSerial) : 0;
            bool inTask = (serial & 1) != 0;
            bool servesOrderHome = inTask && ReferenceEquals(server.Queues, order.Home);
            long ran = inTask && !servesOrderHome ? Stopwatch.GetTimestamp() - Volatile.Read(ref server._taskStartedAt) : 0;
            switch (WorkerTransitions.Watch(pending, inTask, servesOrderHome, ran, _cpu.HandoverThreshold))
            {
                case WatchStep.Done:
                    return false; // The server arrived (or a later order has nothing to report).
                case WatchStep.ArriveForServer:
                    order.Arrive(); // [A] The server's task belongs to the new owner (a move back): the CPU serves it.
                    return false;
                case WatchStep.TakeOver:
                    if (TakeOver(server))
                    {
                        return true;
                    }

                    continue; // The server changed under us: look again at once.
                default:
                    // Between tasks the server moves itself within a boundary; we look again in case it had already
                    // read the old order and started a long task. Sleeping, not spinning: the server needs this CPU.
                    Thread.Sleep(WorkerTransitions.WatchSleepMilliseconds(inTask, ran, _cpu.HandoverThreshold, Stopwatch.Frequency));
                    continue;
            }
        }

        return false;
    }

    /// <summary>
    /// Take over ([W2], [W3]): become the server in place of <paramref name="server"/>, which has been inside one task
    /// for the threshold. Guard: the CAS succeeds only against the server we observed.
    /// </summary>
    private bool TakeOver(Worker server)
    {
        if (!_cpu.TryTakeOver(this, server))
        {
            return false;
        }

        // [W3] The old server may have passed a boundary and parked in its set after our look (a benign race): wake
        // it so that it retires at once. Its [P3] rechecks the server, so either it sees us or we see it Sleeping.
        server.TryWake();
        return true;
    }
}
