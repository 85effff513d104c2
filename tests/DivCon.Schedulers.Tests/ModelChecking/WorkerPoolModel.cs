namespace DivCon.Schedulers.Tests.ModelChecking;

/// <summary>
/// The workers, their sleep/wake protocol, the move protocol and the standby handover (<c>src/Schedulers/Workers</c>,
/// <c>README-wakeups.md</c>, <c>Multiprogram/README.md</c>): each CPU has its server worker and, optionally, its
/// standby; worker threads run <c>Worker.Run</c>; optional producer threads run <c>TryEnqueueExternal</c>; an
/// optional rebalancer thread runs <c>CpuSlot.RequestMove</c>. Every handler names the line it mirrors; the deques
/// are <see cref="DequeRoutines"/> (the same handlers the deque model checks) and the global queues follow
/// <c>ConcurrentQueueSegment</c> (a CAS reserves a slot, a release store of its sequence number publishes it).
/// </summary>
/// <remarks>
/// <para>
/// Memory values: a state is 0 (Awake), 1 (Sleeping) or 2 (Standby); a set is its number + 1 (0 is null; with
/// standbys the pool's initial set, which never has tasks, is the last one, "idle"); a task is its id; a
/// <c>MoveOrder</c> is its id (order c is CPU c's initial order, without a report; order CPUs + i is the i-th
/// requested move, with a report), its home a constant and its pending report one cell; a CPU's server is a worker
/// index; a task serial is its parity (the code only tests the low bit). Threads: W0..W(n-1) are the CPUs' first
/// workers, W(n)..W(2n-1) their standbys (the code's slot index + CPU count), then producers, then the rebalancer.
/// </para>
/// <para>
/// Invariants. On every step: no task runs twice; a worker runs only tasks of the set it serves (stealing stays
/// inside a program); a worker that is no longer its CPU's server starts at most one task (the race the mechanism
/// README names) before it retires; no semaphore is released twice for one sleep; a worker woken from its
/// semaphore finds its state Awake (the Debug.Asserts of Park and StandBy). In every state (<see cref="CheckState"/>):
/// no standby is blocked while its CPU's move is pending, the mover has finished requesting it and the server is
/// inside a task of another set (a lost activation: the move would wait for the task). In every terminal state (no
/// thread can move, all store buffers empty): every task ran exactly once (a task still queued while every worker
/// sleeps is a lost wake-up or a stranded program); every parked worker is parked at its home; no CPU's current
/// order is still pending (a lost move); each CPU's server is parked as a sleeper and its other worker as the
/// standby; every set's sleeper count equals its workers announced as Sleeping, and the pool's count is their sum.
/// </para>
/// <para>
/// Left out: counters (statistics only), closing and stopping (the scenario never closes a set or stops the
/// pool: the closed and stop flags are read, as the code does, and stay 0), the racy cursors that pick where
/// WakeOne, WakeLender, FindWork and the steal scan start (a fixed start: every candidate is still visited in
/// order), deque growth (checked by <see cref="DequeModel"/>), and the clock: whether the server's task has run for
/// the handover threshold (<c>Worker.Watch [W1]</c>) is a nondeterministic choice at each look, so every timing is
/// explored.
/// </para>
/// </remarks>
internal sealed class WorkerPoolModel : Model
{
    private const int Awake = 0;
    private const int Sleeping = 1;
    private const int Standby = 2;

    private const int WorkerLoop = 0;
    private const int RunningTask = 1;
    private const int Park = 2;
    private const int LooksEmpty = 3;
    private const int QueueIsEmpty = 4;
    private const int QueueTryDequeue = 5;
    private const int QueueEnqueue = 6;
    private const int DequeIsEmpty = 7;
    private const int LocalPush = 8;
    private const int LocalPop = 9;
    private const int DequeSteal = 10;
    private const int TryTake = 11;
    private const int TrySteal = 12;
    private const int MoveTo = 13;
    private const int DrainLocalToGlobal = 14;
    private const int WakeIfSleepers = 15;
    private const int WakeScan = 16;
    private const int TryWake = 17;
    private const int RetractSleeper = 18;
    private const int FindWork = 19;
    private const int Spin = 20;
    private const int PushLocal = 21;
    private const int EnqueueExternal = 22;
    private const int Mover = 23;
    private const int RequestMove = 24;
    private const int StandByRoutine = 25;
    private const int WatchMove = 26;
    private const int TryActivate = 27;
    private const int RunTask = 28;

    // Park's waits and StandBy's.
    private const int ParkConsumeWait = 11;
    private const int ParkBlockWait = 12;
    private const int StandByWait = 9;

    private readonly PoolScenario _s;
    private readonly PoolMutation _mutation;
    private readonly bool _assertSleepersNonNegative;
    private readonly int _cpus;
    private readonly int _workerCount;
    private readonly int _tasks;
    private readonly SetCells[] _sets;
    private readonly WorkerCells[] _workers;
    private readonly CpuCells[] _cpuCells;
    private readonly int[] _orderHome;
    private readonly int _pendingBase;
    private readonly int _poolSleepers;
    private readonly int _stop;
    private readonly int _ranBase;
    private readonly int _idleSet;
    private readonly int[] _setOfTask;

    /// <summary>Creates the model of <paramref name="scenario"/>.</summary>
    /// <param name="scenario">The configuration.</param>
    /// <param name="mutation">Defects to inject.</param>
    /// <param name="assertSleepersNonNegative">
    /// Also check the assertion RetractSleeper once had (the count never goes below zero), which is false: a waker
    /// can claim a sleeper whose Sleeping store is visible before its increment, and decrement first.
    /// </param>
    public WorkerPoolModel(PoolScenario scenario, PoolMutation mutation = PoolMutation.None, bool assertSleepersNonNegative = false)
        : base($"{scenario.Name} ({mutation})", locals: 8, maxFrames: 8, bufferCapacity: 6)
    {
        if (scenario.Standby && scenario.RunningTaskNeverEnds)
        {
            throw new ArgumentException("Standby scenarios end every task (a pending move must resolve).", nameof(scenario));
        }

        _s = scenario;
        _mutation = mutation;
        _assertSleepersNonNegative = assertSleepersNonNegative;
        _cpus = scenario.Workers;
        _workerCount = scenario.Standby ? 2 * _cpus : _cpus;
        _tasks = scenario.PushedByRunningTask
            .Concat(scenario.InitialGlobal.Select(t => t.Task))
            .Concat(scenario.External.Select(t => t.Task))
            .DefaultIfEmpty(0).Max();
        int setCount = scenario.Sets + (scenario.Standby ? 1 : 0);
        _idleSet = scenario.Standby ? setCount : 0;
        _sets = new SetCells[setCount];
        for (int set = 0; set < setCount; set++)
        {
            string name = SetName(set + 1);
            int head = Allocate($"{name}.global.head");
            int tail = Allocate($"{name}.global.tail");
            int slots = MemorySize;
            for (int i = 0; i <= scenario.GlobalCapacity; i++)
            {
                Allocate($"{name}.global[{i}]");
            }

            var deques = new DequeCells[_workerCount];
            for (int w = 0; w < _workerCount; w++)
            {
                int top = Allocate($"{name}.deque[W{w}].top");
                int bottom = Allocate($"{name}.deque[W{w}].bottom");
                int slotBase = MemorySize;
                for (int i = 0; i < scenario.DequeCapacity; i++)
                {
                    Allocate($"{name}.deque[W{w}][{i}]");
                }

                deques[w] = new DequeCells(top, bottom, -1, [slotBase], [scenario.DequeCapacity]);
            }

            _sets[set] = new SetCells(head, tail, slots, Allocate($"{name}.sleepers"), Allocate($"{name}.inFlight"),
                Allocate($"{name}.closed"), Allocate($"{name}.accepted"), deques);
        }

        _poolSleepers = Allocate("pool.sleepers");
        _stop = Allocate("pool.stopRequested");

        // Orders: CPU c's initial order is c (home: its initial set, no report); move i is order CPUs + i.
        _orderHome = new int[_cpus + scenario.Moves.Length];
        _pendingBase = MemorySize;
        for (int order = 0; order < _orderHome.Length; order++)
        {
            bool initial = order < _cpus;
            _orderHome[order] = initial ? HomeOf(order) : scenario.Moves[order - _cpus].Set + 1;
            Allocate($"order{order}.pending", initial ? 0 : 1);
        }

        _cpuCells = new CpuCells[_cpus];
        for (int c = 0; c < _cpus; c++)
        {
            _cpuCells[c] = new CpuCells(Allocate($"CPU{c}.order", c), Allocate($"CPU{c}.server", c),
                Allocate($"CPU{c}.requested (ghost)", c));
        }

        _workers = new WorkerCells[_workerCount];
        for (int w = 0; w < _workerCount; w++)
        {
            int queues = w < _cpus ? HomeOf(w) : _idleSet;
            bool running = w == scenario.RunningWorker && scenario.Standby;
            _workers[w] = new WorkerCells(Allocate($"W{w}.state"), Allocate($"W{w}.queues", queues),
                Allocate($"W{w}.semaphore"), Allocate($"W{w}.taskSerial", running ? 1 : 0),
                Allocate($"W{w}.inTask (ghost)", running ? 1 : 0), Allocate($"W{w}.tasksAsNonServer (ghost)"));
        }

        foreach (IGrouping<int, (int Set, int Task)> group in scenario.InitialGlobal.GroupBy(t => t.Set))
        {
            SetCells set = _sets[group.Key];
            int count = 0;
            foreach ((_, int task) in group)
            {
                SetInitial(set.GlobalSlots + count++, task);
            }

            SetInitial(set.Tail, count);
        }

        // The program each task belongs to: pushed tasks to the running worker's first set, the others as given.
        _setOfTask = new int[_tasks + 1];
        foreach (int task in scenario.PushedByRunningTask)
        {
            _setOfTask[task] = HomeOf(scenario.RunningWorker);
        }

        foreach ((int set, int task) in scenario.InitialGlobal.Concat(scenario.External))
        {
            _setOfTask[task] = set + 1;
        }

        _ranBase = MemorySize;
        for (int task = 1; task <= _tasks; task++)
        {
            Allocate($"ran(task {task})");
        }
    }

    /// <inheritdoc />
    public override int ThreadCount => _workerCount + _s.External.Length + (_s.Moves.Length > 0 ? 1 : 0);

    /// <inheritdoc />
    public override bool MakesChoices => _s.Standby;

    /// <inheritdoc />
    public override string ThreadName(int thread) =>
        thread < _workerCount ? $"W{thread}"
        : thread < _workerCount + _s.External.Length ? $"producer{thread - _workerCount + 1}"
        : "rebalancer";

    /// <inheritdoc />
    public override void Execute(Execution x, int routine, int pc)
    {
        switch (routine)
        {
            case WorkerLoop: RunWorkerLoop(x, pc); return;
            case RunningTask: RunRunningTask(x, pc); return;
            case Park: RunPark(x, pc); return;
            case LooksEmpty: RunLooksEmpty(x, pc); return;
            case QueueIsEmpty: RunQueueIsEmpty(x, pc); return;
            case QueueTryDequeue: RunQueueTryDequeue(x, pc); return;
            case QueueEnqueue: RunQueueEnqueue(x, pc); return;
            case DequeIsEmpty: RunDequeIsEmpty(x, pc); return;
            case LocalPush: DequeRoutines.LocalPush(x, pc, Deque(x[2], x[3])); return;
            case LocalPop: DequeRoutines.LocalPop(x, pc, Deque(x[2], x[3]), DequeMutation.None); return;
            case DequeSteal: DequeRoutines.TrySteal(x, pc, Deque(x[2], x[3]), DequeMutation.None); return;
            case TryTake: RunTryTake(x, pc); return;
            case TrySteal: RunTrySteal(x, pc); return;
            case MoveTo: RunMoveTo(x, pc); return;
            case DrainLocalToGlobal: RunDrainLocalToGlobal(x, pc); return;
            case WakeIfSleepers: RunWakeIfSleepers(x, pc); return;
            case WakeScan: RunWakeScan(x, pc); return;
            case TryWake: RunTryWake(x, pc); return;
            case RetractSleeper: RunRetractSleeper(x, pc); return;
            case FindWork: RunFindWork(x, pc); return;
            case Spin: RunSpin(x, pc); return;
            case PushLocal: RunPushLocal(x, pc); return;
            case EnqueueExternal: RunEnqueueExternal(x, pc); return;
            case Mover: RunMover(x, pc); return;
            case RequestMove: RunRequestMove(x, pc); return;
            case StandByRoutine: RunStandBy(x, pc); return;
            case WatchMove: RunWatchMove(x, pc); return;
            case TryActivate: RunTryActivate(x, pc); return;
            case RunTask: RunRunTask(x, pc); return;
            default: throw new InvalidOperationException($"No routine {routine}.");
        }
    }

    /// <inheritdoc />
    public override string? CheckState(Execution x)
    {
        if (!_s.Standby)
        {
            return null;
        }

        for (int c = 0; c < _cpus; c++)
        {
            CpuCells cpu = _cpuCells[c];
            int order = x.Peek(cpu.Order);
            int server = x.Peek(cpu.Server);
            int standby = Partner(server);
            (int routine, int pc) = x.TopOf(standby);
            if (order >= _cpus && x.Peek(cpu.Requested) == order && x.Peek(_pendingBase + order) != 0 &&
                routine == StandByRoutine && pc == StandByWait && x.Peek(_workers[standby].Semaphore) == 0 &&
                x.Peek(_workers[server].InTask) != 0 && x.Peek(_workers[server].Queues) != _orderHome[order])
            {
                return $"lost activation: W{standby} is blocked as CPU{c}'s standby while the move to " +
                       $"{SetName(_orderHome[order])} is pending, nobody will activate it, and the server W{server} is " +
                       $"inside a task of {SetName(x.Peek(_workers[server].Queues))}: the move waits for that task";
            }
        }

        return null;
    }

    /// <inheritdoc />
    public override string? CheckTerminal(Execution x)
    {
        var parked = new List<int>();
        var standing = new List<int>();
        for (int thread = 0; thread < ThreadCount; thread++)
        {
            (int routine, int pc) = x.TopOf(thread);
            if (routine < 0)
            {
                continue;
            }

            // Nothing can move and every buffer is empty, so a worker in Park or StandBy is blocked in its wait (its
            // pc may still be that of the last handler that accessed memory: the handlers up to the wait ran in the
            // step that blocked, which was not taken).
            if (thread < _workerCount && routine == Park)
            {
                parked.Add(thread);
                continue;
            }

            if (thread < _workerCount && routine == StandByRoutine)
            {
                standing.Add(thread);
                continue;
            }

            return $"{ThreadName(thread)} is stuck in routine {routine} at pc {pc}";
        }

        foreach (int w in parked)
        {
            int home = _orderHome[x.Peek(_cpuCells[CpuOf(w)].Order)];
            int queues = x.Peek(_workers[w].Queues);
            if (home != queues)
            {
                return $"W{w} is parked in {SetName(queues)} although its home is {SetName(home)}: " +
                       $"the move was lost and {SetName(home)} never gets this worker";
            }
        }

        for (int c = 0; c < _cpus; c++)
        {
            int order = x.Peek(_cpuCells[c].Order);
            if (x.Peek(_pendingBase + order) != 0)
            {
                return $"CPU{c}'s move to {SetName(_orderHome[order])} is still pending at the end (a lost move)";
            }

            if (!_s.Standby)
            {
                continue;
            }

            int server = x.Peek(_cpuCells[c].Server);
            if (standing.Contains(server))
            {
                return $"W{server} is CPU{c}'s server but sleeps as its standby: the CPU serves nobody";
            }

            if (parked.Contains(Partner(server)))
            {
                return $"W{Partner(server)} is parked as a sleeper of {SetName(x.Peek(_workers[Partner(server)].Queues))} " +
                       $"but is not CPU{c}'s server (W{server} is): it never retired to standby";
            }
        }

        string sleepers = parked.Count == 0 ? "no worker is parked" : $"{string.Join(", ", parked.Select(w => $"W{w}"))} parked";
        for (int task = 1; task <= _tasks; task++)
        {
            int ran = x.Peek(_ranBase + task - 1);
            if (ran != 1)
            {
                return $"task {task} never ran: it is {Where(x, task)} while {sleepers} (lost wake-up)";
            }
        }

        int total = 0;
        for (int set = 0; set < _sets.Length; set++)
        {
            int announced = 0;
            for (int w = 0; w < _workers.Length; w++)
            {
                announced += x.Peek(_workers[w].State) == Sleeping && x.Peek(_workers[w].Queues) == set + 1 ? 1 : 0;
            }

            int count = x.Peek(_sets[set].Sleepers);
            if (count != announced)
            {
                return $"{SetName(set + 1)}.sleepers is {count} but {announced} of its workers are Sleeping";
            }

            total += count;
        }

        return x.Peek(_poolSleepers) == total ? null : $"pool.sleepers is {x.Peek(_poolSleepers)}, the sets sum to {total}";
    }

    /// <inheritdoc />
    protected override void StartThread(Execution x, int thread)
    {
        if (thread < _workerCount)
        {
            x.Call(WorkerLoop, returnPc: 0);
            if (thread == _s.RunningWorker)
            {
                x.Call(RunningTask, returnPc: 0);
            }
        }
        else if (thread < _workerCount + _s.External.Length)
        {
            (int set, int task) = _s.External[thread - _workerCount];
            x.Call(EnqueueExternal, returnPc: 0, set + 1, task);
        }
        else
        {
            x.Call(Mover, returnPc: 0);
        }
    }

    private int HomeOf(int cpu) => (_s.Homes.Length > 0 ? _s.Homes[cpu] : 0) + 1;

    private int CpuOf(int worker) => worker % _cpus;

    private int Partner(int worker) => worker < _cpus ? worker + _cpus : worker - _cpus;

    private string SetName(int set) =>
        set == 0 ? "null" : set == _idleSet ? "idle" : ((char)('A' + set - 1)).ToString();

    private DequeCells Deque(int set, int slot) => _sets[set - 1].Deques[slot];

    // A cell nobody writes in this scenario (a CPU's order without moves, its server without a standby, an initial
    // order's report) reads the same in every interleaving: its load is not a step of its own.
    private static int LoadMaybeConstant(Execution x, int location, bool constant) =>
        constant ? x.LoadPrivate(location) : x.Load(location);

    private int LoadOrder(Execution x, int cpu) => LoadMaybeConstant(x, _cpuCells[cpu].Order, _s.Moves.Length == 0);

    private int LoadServer(Execution x, int cpu) => LoadMaybeConstant(x, _cpuCells[cpu].Server, !_s.Standby);

    private int LoadPending(Execution x, int order) => LoadMaybeConstant(x, _pendingBase + order, order < _cpus);

    // MoveOrder.cs:35 Arrive: Interlocked.Exchange(ref _onArrival, null)?.Invoke() (the report itself is not modelled).
    private void Arrive(Execution x, int order) => x.Exchange(_pendingBase + order, 0);

    private string Where(Execution x, int task)
    {
        for (int set = 0; set < _sets.Length; set++)
        {
            SetCells cells = _sets[set];
            for (int i = x.Peek(cells.Head); i <= _s.GlobalCapacity; i++)
            {
                if (x.Peek(cells.GlobalSlots + i) == task)
                {
                    return $"queued in {SetName(set + 1)}'s global queue";
                }
            }

            for (int w = 0; w < _workers.Length; w++)
            {
                DequeCells d = cells.Deques[w];
                for (int i = x.Peek(d.Top); i < x.Peek(d.Bottom); i++)
                {
                    if (x.Peek(d.Slot(0, i)) == task)
                    {
                        return $"queued in {SetName(set + 1)}'s deque of W{w}";
                    }
                }
            }
        }

        return "nowhere (lost)";
    }

    private void Ran(Execution x, int task, int queues)
    {
        if (_setOfTask[task] != queues)
        {
            x.Fail($"W{x.Thread} ran task {task} of {SetName(_setOfTask[task])} while serving {SetName(queues)}");
        }

        int ran = x.Peek(_ranBase + task - 1) + 1;
        x.SetGhost(_ranBase + task - 1, ran);
        if (ran > 1)
        {
            x.Fail($"task {task} ran twice (the second time on W{x.Thread})");
        }
    }

    // Worker.Run. Locals: 1 queues, 2 home, 3 task, 4 _lentFrom, 5 order, 6 lentFromHome (the loop
    // frame lives as long as the thread).
    private void RunWorkerLoop(Execution x, int pc)
    {
        WorkerCells me = _workers[x.Thread];
        int cpu = CpuOf(x.Thread);
        switch (pc)
        {
            case 0:
                x.Where = "Worker.Run [W0] if (!IsServer (Volatile.Read(ref _cpu._server))";
                if (LoadServer(x, cpu) != x.Thread)
                {
                    x.Where = "Worker.Run: && !Retire()) (Worker.Retire: _lentFrom = null)";
                    x[4] = 0;
                    x.Call(StandByRoutine, returnPc: 100);
                    return;
                }

                x.Pc = 1;
                return;
            case 100:
                if (x[0] == 0)
                {
                    throw new InvalidOperationException("The pool model never stops.");
                }

                x.Pc = 1;
                return;
            case 1:
                x.Where = "Worker.Run [W0] queues = _queues (own field); order = _cpu.Order (Volatile.Read); home = order.Home";
                x[1] = x.LoadPrivate(me.Queues);
                x[5] = LoadOrder(x, cpu);
                x[2] = _orderHome[x[5]];
                x.Pc = 2;
                return;
            case 2:
                if (x[4] == x[2])
                {
                    x.Where = "Worker.StaysLent [L2] lentFromHome = StayLent(home): _lentFrom == home && home.LooksEmpty()";
                    x.Call(LooksEmpty, returnPc: 3, x[2]);
                    return;
                }

                x[6] = 0;
                x.Pc = 4;
                return;
            case 3:
                x[6] = x[0];
                x.Pc = 4;
                return;
            case 4:
                x.Where = "Worker.GoHome [Q] if (!ReferenceEquals(queues, home) && !lentFromHome)";
                if (x[1] != x[2] && x[6] == 0)
                {
                    x.Where = "Worker.GoHome [Q] MoveTo(home)";
                    x.Call(MoveTo, returnPc: 40, x[2]);
                    return;
                }

                x.Pc = 41;
                return;
            case 40:
                x.Where = "Worker.GoHome [Q] _lentFrom = null; queues = home";
                x[4] = 0;
                x[1] = x[2];
                x.Pc = 41;
                return;
            case 41:
                x.Where = "Worker.Run [A] if (order.IsPending (Volatile.Read(ref _onArrival))";
                if (LoadPending(x, x[5]) != 0 && (x[1] == x[2] || x[6] != 0))
                {
                    x.Pc = 42;
                    return;
                }

                x.Pc = 5;
                return;
            case 42:
                x.Where = "Worker.Run [A] order.Arrive() (MoveOrder.cs:35 Interlocked.Exchange(ref _onArrival, null))";
                Arrive(x, x[5]);
                x.Pc = 5;
                return;
            case 5:
                x.Where = "Worker.Run task = queues.TryTake(Index, ref _random)";
                x.Call(TryTake, returnPc: 6, x[1]);
                return;
            case 6:
                x[3] = x[0];
                if (x[3] == 0 && _s.SpinRounds > 0)
                {
                    x.Where = "Worker.Run ?? Spin(queues, home)";
                    x.Call(Spin, returnPc: 60, x[1], x[2]);
                    return;
                }

                x.Pc = 7;
                return;
            case 60:
                x[3] = x[0];
                x.Pc = 7;
                return;
            case 7:
                if (x[3] != 0)
                {
                    x.Where = "Worker.Run RunTask(queues, task); continue";
                    int task = x[3];
                    x[3] = 0;
                    StartTask(x, me);
                    x.Call(RunTask, returnPc: 0, x[1], task);
                    return;
                }

                x.Pc = 8;
                return;
            case 8:
                x.Where = "Worker.Return lent (or moved) and nothing found: _lentFrom = null; continue";
                if (x[1] != x[2])
                {
                    x[4] = 0;
                    x.Pc = 0;
                    return;
                }

                x.Pc = 81;
                return;
            case 81:
                x.Where = "Worker.Run (idle: retire) if (!IsServer) continue (a standby took over while we spun: retire)";
                x.Pc = LoadServer(x, cpu) != x.Thread ? 0 : 9;
                return;
            case 9:
                if (!_s.Director)
                {
                    x.Pc = 11;
                    return;
                }

                x.Where = "Worker.TryLend [L1] _pool.Director?.FindWork(this)";
                x.Call(FindWork, returnPc: 10);
                return;
            case 10:
                if (x[0] != 0)
                {
                    x.Where = "Worker.TryLend [L1] _lentFrom = home; MoveTo(other); continue";
                    x[4] = x[2];
                    x.Call(MoveTo, returnPc: 0, x[0]);
                    return;
                }

                x.Pc = 11;
                return;
            case 11:
                x.Where = "Worker.Run [X2] if (_pool.StopRequested)";
                if (x.Load(_stop) != 0)
                {
                    throw new InvalidOperationException("The pool model never stops.");
                }

                x.Pc = 12;
                return;
            case 12:
                x.Where = "Worker.Park Park(queues)";
                x.Call(Park, returnPc: 0, x[1]);
                return;
            default:
                throw new InvalidOperationException($"WorkerLoop has no pc {pc}.");
        }
    }

    // Checked when a worker starts a task it took: a worker that is no longer its CPU's server may start one task
    // (it passed its IsServer check just before the standby's CAS), then it must retire at the next boundary.
    private void StartTask(Execution x, WorkerCells me)
    {
        if (!_s.Standby || x.Peek(_cpuCells[CpuOf(x.Thread)].Server) == x.Thread)
        {
            return;
        }

        int started = x.Peek(me.TasksAsNonServer) + 1;
        x.SetGhost(me.TasksAsNonServer, started);
        if (started > 1)
        {
            x.Fail($"W{x.Thread} starts a second task after losing CPU{CpuOf(x.Thread)} to its standby: two workers serve the CPU");
        }
    }

    // Worker.RunTask ([T1], [T2]). Locals: 1 queues, 2 task.
    private void RunRunTask(Execution x, int pc)
    {
        WorkerCells me = _workers[x.Thread];
        switch (pc)
        {
            case 0:
                if (!_s.Standby)
                {
                    x.Where = "Worker.RunTask queues.Execute(Index, task) (no standby)";
                    Ran(x, x[2], x[1]);
                    x.Return();
                    return;
                }

                x.Where = "Worker.RunTask [T1] _taskStartedAt = now; Volatile.Write(ref _taskSerial, odd)";
                x.Store(me.Serial, 1);
                x.SetGhost(me.InTask, 1);
                x.Pc = 1;
                return;
            case 1:
                x.Where = "Worker.RunTask queues.Execute(Index, task)";
                Ran(x, x[2], x[1]);
                x.Pc = 2;
                return;
            default:
                x.Where = "Worker.RunTask [T2] Volatile.Write(ref _taskSerial, even) (the task has returned)";
                x.Store(me.Serial, 0);
                x.SetGhost(me.InTask, 0);
                x.Return();
                return;
        }
    }

    // The task a worker is running at the start: PushLocal of each child (TryQueue from a task on this worker:
    // WorkQueueSet.FrontEnd.cs:20-22), then it either returns to the loop (Worker.RunTask [T2] with a standby: the serial
    // turns even) or keeps the worker busy for good. Local 1: children pushed.
    private void RunRunningTask(Execution x, int pc)
    {
        if (x[1] < _s.PushedByRunningTask.Length)
        {
            int task = _s.PushedByRunningTask[x[1]++];
            x.Where = $"WorkQueueSet.FrontEnd.cs:20-22 running task queues task {task}: PushLocal";
            x.Call(PushLocal, returnPc: 0, x.LoadPrivate(_workers[x.Thread].Queues), task);
            return;
        }

        if (_s.RunningTaskNeverEnds)
        {
            x.Finish();
            return;
        }

        if (_s.Standby)
        {
            x.Where = "Worker.RunTask [T2] Volatile.Write(ref _taskSerial, even) (the running task returns)";
            x.Store(_workers[x.Thread].Serial, 0);
            x.SetGhost(_workers[x.Thread].InTask, 0);
        }

        x.Return();
    }

    // WorkQueueSet.cs:154-164. Locals: 1 set, 2 task.
    private void RunPushLocal(Execution x, int pc)
    {
        switch (pc)
        {
            case 0:
                x.Where = "WorkQueueSet.cs:159 _deques[slot].LocalPush(task)";
                x.Call(LocalPush, returnPc: 1, x[2], x[1], x.Thread);
                return;
            case 1:
                if ((_mutation & PoolMutation.OmitProducerWake) != 0)
                {
                    x.Return();
                    return;
                }

                x.Where = "WorkQueueSet.cs:163 WakeIfSleepers()";
                x.Call(WakeIfSleepers, returnPc: 2, x[1]);
                return;
            default:
                x.Return();
                return;
        }
    }

    // WorkQueueSet.cs:115-149, a producer thread. Locals: 1 set, 2 task.
    private void RunEnqueueExternal(Execution x, int pc)
    {
        SetCells set = _sets[x[1] - 1];
        switch (pc)
        {
            case 0:
                x.Where = "WorkQueueSet.cs:119 Interlocked.Increment(ref _externalInFlight.Value)";
                x.Add(set.InFlight, 1);
                x.Pc = 1;
                return;
            case 1:
                x.Where = "WorkQueueSet.cs:123 if (Volatile.Read(ref _closed) != 0) return false";
                x.Load(set.Closed);
                x.Pc = 2;
                return;
            case 2:
                x.Where = "WorkQueueSet.cs:128 _global.Enqueue(task)";
                x.Call(QueueEnqueue, returnPc: 3, x[1], x[2]);
                return;
            case 3:
                x.Where = "WorkQueueSet.cs:130 Interlocked.Increment(ref _externalAccepted.Value)";
                x.Add(set.Accepted, 1);
                x.Pc = 4;
                return;
            case 4:
                x.Where = "WorkQueueSet.cs:137 Interlocked.Decrement(ref _externalInFlight.Value)";
                x.Add(set.InFlight, -1);
                x.Pc = 5;
                return;
            case 5:
                x.Where = "WorkQueueSet.cs:141 if (Volatile.Read(ref _closed) != 0)";
                x.Load(set.Closed);
                x.Pc = 6;
                return;
            case 6:
                if ((_mutation & PoolMutation.OmitProducerWake) != 0)
                {
                    x.Return();
                    return;
                }

                x.Where = "WorkQueueSet.cs:147 WakeIfSleepers()";
                x.Call(WakeIfSleepers, returnPc: 7, x[1]);
                return;
            default:
                x.Return();
                return;
        }
    }

    // WorkQueueSet.cs:372-385. Local 1: set.
    private void RunWakeIfSleepers(Execution x, int pc)
    {
        switch (pc)
        {
            case 0:
                x.Where = "WorkQueueSet.cs:376 if (Volatile.Read(ref _sleepers.Value) > 0)";
                if (x.Load(_sets[x[1] - 1].Sleepers) > 0)
                {
                    x.Where = "WorkQueueSet.cs:378 _pool?.WakeOne(this)";
                    x.Call(WakeScan, returnPc: 2, x[1], 1);
                    return;
                }

                if (!_s.Director)
                {
                    x.Return();
                    return;
                }

                x.Pc = 1;
                return;
            case 1:
                x.Where = "WorkQueueSet.cs:380 else if (_wakeLenders && _pool!.Sleepers > 0)";
                if (x.Load(_poolSleepers) > 0)
                {
                    x.Where = "WorkQueueSet.cs:383 _pool.WakeLender(this)";
                    x.Call(WakeScan, returnPc: 2, x[1], 0);
                    return;
                }

                x.Return();
                return;
            default:
                x.Return();
                return;
        }
    }

    // WorkerPool.cs:163-176 WakeOne (local 2 = 1) and 170-183 WakeLender (local 2 = 0). Locals: 1 set, 3 i.
    private void RunWakeScan(Execution x, int pc)
    {
        switch (pc)
        {
            case 0:
                if (x[3] >= _workers.Length)
                {
                    x.Return(0);
                    return;
                }

                x.Where = "WorkerPool.cs:171/197 worker.IsParked";
                if (x.Load(_workers[x[3]].State) != Sleeping)
                {
                    x[3]++;
                    return;
                }

                x.Pc = 1;
                return;
            case 1:
                x.Where = x[2] != 0
                    ? "WorkerPool.cs:171 ReferenceEquals(worker.Queues, queues)"
                    : "WorkerPool.cs:197 !ReferenceEquals(worker.Queues, queues)";
                int queues = x.Load(_workers[x[3]].Queues);
                if ((queues == x[1]) != (x[2] != 0))
                {
                    x[3]++;
                    x.Pc = 0;
                    return;
                }

                x.Pc = 2;
                return;
            case 2:
                x.Where = "WorkerPool.cs:171/197 worker.TryWake()";
                x.Call(TryWake, returnPc: 3, x[3]);
                return;
            default:
                if (x[0] != 0)
                {
                    x.Return(1);
                    return;
                }

                x[3]++;
                x.Pc = 0;
                return;
        }
    }

    // Worker.TryWake ([M2], producers), on the waker's thread. Locals: 1 target worker.
    private void RunTryWake(Execution x, int pc)
    {
        WorkerCells target = _workers[x[1]];
        switch (pc)
        {
            case 0:
                x.Where = "Worker.TryWake Volatile.Read(ref _state) != Sleeping";
                if (x.Load(target.State) != Sleeping)
                {
                    x.Return(0);
                    return;
                }

                x.Pc = 1;
                return;
            case 1:
                x.Where = "Worker.TryWake Interlocked.CompareExchange(ref _state, Awake, Sleeping) != Sleeping";
                if (x.CompareExchange(target.State, Awake, Sleeping) != Sleeping)
                {
                    x.Return(0);
                    return;
                }

                x.Pc = 2;
                return;
            case 2:
                x.Where = "Worker.TryWake _queues.RetractSleeper() (reads the target's _queues)";
                int queues = x.Load(target.Queues);
                x.Call(RetractSleeper, returnPc: 3, queues);
                return;
            case 3:
                x.Where = "Worker.TryWake _wake.Release()";
                x.Release(target.Semaphore);
                x.Pc = 4;
                return;
            default:
                x.Return(1);
                return;
        }
    }

    // WorkQueueSet.cs:351-357 (WorkQueueSet.cs:355 once asserted the result >= 0). Local 1: set.
    private void RunRetractSleeper(Execution x, int pc)
    {
        switch (pc)
        {
            case 0:
                x.Where = "WorkQueueSet.cs:355 Interlocked.Decrement(ref _sleepers.Value)";
                if (x.Add(_sets[x[1] - 1].Sleepers, -1) < 0 && !x.IsBlocked && _assertSleepersNonNegative)
                {
                    x.Fail($"the former Debug.Assert(left >= 0) fails: {SetName(x[1])}.sleepers below zero");
                }

                x.Pc = 1;
                return;
            default:
                x.Where = "WorkQueueSet.cs:356 _pool?.CountSleeper(-1) (Interlocked.Add)";
                x.Add(_poolSleepers, -1);
                x.Return();
                return;
        }
    }

    // Worker.Park ([P1]-[P4]). Locals: 1 queues, 2 next thread to interrupt (process-wide barrier), 3 order.
    private void RunPark(Execution x, int pc)
    {
        WorkerCells me = _workers[x.Thread];
        int cpu = CpuOf(x.Thread);
        switch (pc)
        {
            case 0:
                x.Where = "Worker.Park [P1] Volatile.Write(ref _state, Sleeping)";
                x.Store(me.State, Sleeping);
                x.Pc = 1;
                return;
            case 1:
                x.Where = "WorkQueueSet.cs:342 AnnounceSleeper: Interlocked.Increment(ref _sleepers.Value)";
                x.Add(_sets[x[1] - 1].Sleepers, 1);
                x.Pc = 2;
                return;
            case 2:
                x.Where = "WorkQueueSet.cs:343 AnnounceSleeper: _pool?.CountSleeper(+1) (Interlocked.Add)";
                x.Add(_poolSleepers, 1);
                x.Pc = (_mutation & PoolMutation.OmitSleeperBarrier) != 0 ? 4 : 3;
                return;
            case 3:
                // Interlocked.MemoryBarrierProcessWide: every other CPU executes a full fence at some point during
                // the call. One step per thread with buffered stores (flushing an empty buffer changes nothing).
                x.Where = "WorkQueueSet.cs:347 AnnounceSleeper: Interlocked.MemoryBarrierProcessWide()";
                while (x[2] < ThreadCount && (x[2] == x.Thread || !x.HasBufferedStores(x[2])))
                {
                    x[2]++;
                }

                if (x[2] < ThreadCount)
                {
                    x.FlushThread(x[2]++);
                    return;
                }

                x.Pc = 4;
                return;
            case 4:
                if ((_mutation & PoolMutation.OmitParkHomeRecheck) == 0)
                {
                    x.Where = "Worker.Park [P3] order = _cpu.Order (Volatile.Read)";
                    x[3] = LoadOrder(x, cpu);
                }

                x.Pc = 5;
                return;
            case 5:
                x.Where = "Worker.Park [P3] if (!queues.LooksEmpty()";
                x.Call(LooksEmpty, returnPc: 6, x[1]);
                return;
            case 6:
                x.Pc = x[0] == 0 ? 10 : 7;
                return;
            case 7:
                x.Where = "Worker.Park [P3] || _pool.StopRequested";
                x.Pc = x.Load(_stop) != 0 ? 10 : (_mutation & PoolMutation.OmitParkHomeRecheck) != 0 ? 9 : 8;
                return;
            case 8:
                x.Where = "Worker.Park [P3] || !ReferenceEquals(order.Home, queues)";
                if (_orderHome[x[3]] != x[1])
                {
                    x.Pc = 10;
                    return;
                }

                x.Where = "Worker.Park [P3] || order.IsPending (Volatile.Read(ref _onArrival))";
                x.Pc = LoadPending(x, x[3]) != 0 ? 10 : 9;
                return;
            case 9:
                x.Where = "Worker.Park [P3] || !IsServer (Volatile.Read(ref _cpu._server)))";
                x.Pc = LoadServer(x, cpu) != x.Thread ? 10 : ParkBlockWait;
                return;
            case 10:
                x.Where = "Worker.Park [P4] if (Interlocked.CompareExchange(ref _state, Awake, Sleeping) == Sleeping)";
                if (x.CompareExchange(me.State, Awake, Sleeping) == Sleeping)
                {
                    x.Where = "Worker.Park [P4] queues.RetractSleeper(); return";
                    x.Call(RetractSleeper, returnPc: 13, x[1]);
                    return;
                }

                x.Pc = ParkConsumeWait;
                return;
            case ParkConsumeWait:
                x.Where = "Worker.Park [P4] _wake.Wait() (consume the claiming waker's release)";
                x.Wait(me.Semaphore);
                x.Return();
                return;
            case ParkBlockWait:
                x.Where = "Worker.Park [P4] queues.CountPark(Index); _wake.Wait()";
                x.Wait(me.Semaphore);
                if (!x.IsBlocked && x.Peek(me.State) != Awake)
                {
                    x.Fail("Debug.Assert(state == Awake) fails (Worker.Park): woken while still Sleeping");
                }

                x.Return();
                return;
            default:
                x.Return();
                return;
        }
    }

    // WorkQueueSet.cs:273-289. Locals: 1 set, 2 deque index.
    private void RunLooksEmpty(Execution x, int pc)
    {
        switch (pc)
        {
            case 0:
                x.Where = "WorkQueueSet.cs:275 if (!_global.IsEmpty) return false";
                x.Call(QueueIsEmpty, returnPc: 1, x[1]);
                return;
            case 1:
                if (x[0] == 0)
                {
                    x.Return(0);
                    return;
                }

                x.Pc = 2;
                return;
            case 2:
                if (x[2] == _workers.Length)
                {
                    x.Return(1);
                    return;
                }

                x.Where = "WorkQueueSet.cs:280-283 foreach deque: if (!deque.IsEmpty) return false";
                x.Call(DequeIsEmpty, returnPc: 3, x[1], x[2]);
                return;
            default:
                if (x[0] == 0)
                {
                    x.Return(0);
                    return;
                }

                x[2]++;
                x.Pc = 2;
                return;
        }
    }

    // WorkStealingDeque.cs:81-90 (Count, as IsEmpty uses it). Locals: 1 set, 2 slot, 3 top.
    private void RunDequeIsEmpty(Execution x, int pc)
    {
        DequeCells d = Deque(x[1], x[2]);
        if (pc == 0)
        {
            x.Where = "WorkStealingDeque.cs:85 Count: top = Volatile.Read(ref _top.Value)";
            x[3] = x.Load(d.Top);
            x.Pc = 1;
            return;
        }

        x.Where = "WorkStealingDeque.cs:86-88 Count: bottom = Volatile.Read(ref _bottom.Value); count <= 0";
        int bottom = x.Load(d.Bottom);
        x.Return(bottom - x[3] <= 0 ? 1 : 0);
    }

    // ConcurrentQueue.IsEmpty = !TryPeek: ConcurrentQueueSegment.TryPeek's loop. Locals: 1 set, 2 head.
    private void RunQueueIsEmpty(Execution x, int pc)
    {
        SetCells set = _sets[x[1] - 1];
        switch (pc)
        {
            case 0:
                x.Where = "ConcurrentQueueSegment.TryPeek: head = Volatile.Read(ref _headAndTail.Head)";
                x[2] = x.Load(set.Head);
                x.Pc = 1;
                return;
            case 1:
                x.Where = "ConcurrentQueueSegment.TryPeek: Volatile.Read(ref slots[head].SequenceNumber)";
                if (x.Load(set.GlobalSlots + x[2]) != 0)
                {
                    x.Return(0);
                    return;
                }

                x.Pc = 2;
                return;
            default:
                x.Where = "ConcurrentQueueSegment.TryPeek: tail = Volatile.Read(ref _headAndTail.Tail); tail - head <= 0: empty, else spin";
                if (x.Load(set.Tail) - x[2] <= 0)
                {
                    x.Return(1);
                    return;
                }

                x.Pc = 0;
                return;
        }
    }

    // ConcurrentQueueSegment.TryDequeue. Locals: 1 set, 2 head, 3 item.
    private void RunQueueTryDequeue(Execution x, int pc)
    {
        SetCells set = _sets[x[1] - 1];
        switch (pc)
        {
            case 0:
                x.Where = "ConcurrentQueueSegment.TryDequeue: head = Volatile.Read(ref _headAndTail.Head)";
                x[2] = x.Load(set.Head);
                x.Pc = 1;
                return;
            case 1:
                x.Where = "ConcurrentQueueSegment.TryDequeue: Volatile.Read(ref slots[head].SequenceNumber)";
                x[3] = x.Load(set.GlobalSlots + x[2]);
                x.Pc = x[3] != 0 ? 2 : 3;
                return;
            case 2:
                x.Where = "ConcurrentQueueSegment.TryDequeue: CompareExchange(ref _headAndTail.Head, head + 1, head)";
                if (x.CompareExchange(set.Head, x[2] + 1, x[2]) == x[2])
                {
                    x.Return(x[3]);
                    return;
                }

                x.Pc = 0;
                return;
            default:
                x.Where = "ConcurrentQueueSegment.TryDequeue: tail = Volatile.Read(ref _headAndTail.Tail); tail - head <= 0: false, else spin";
                if (x.Load(set.Tail) - x[2] <= 0)
                {
                    x.Return(0);
                    return;
                }

                x.Pc = 0;
                return;
        }
    }

    // ConcurrentQueueSegment.TryEnqueue. Locals: 1 set, 2 item, 3 tail.
    private void RunQueueEnqueue(Execution x, int pc)
    {
        SetCells set = _sets[x[1] - 1];
        switch (pc)
        {
            case 0:
                x.Where = "ConcurrentQueueSegment.TryEnqueue: tail = Volatile.Read(ref _headAndTail.Tail)";
                x[3] = x.Load(set.Tail);
                if (x[3] >= _s.GlobalCapacity)
                {
                    throw new InvalidOperationException("The modelled global queue is full.");
                }

                x.Pc = 1;
                return;
            case 1:
                x.Where = "ConcurrentQueueSegment.TryEnqueue: CompareExchange(ref _headAndTail.Tail, tail + 1, tail)";
                x.Pc = x.CompareExchange(set.Tail, x[3] + 1, x[3]) == x[3] ? 2 : 0;
                return;
            default:
                // The item store and the sequence-number release store stay in order under TSO: one store stands for both.
                x.Where = "ConcurrentQueueSegment.TryEnqueue: slots[tail].Item = item; Volatile.Write(ref SequenceNumber, tail + 1)";
                x.Store(set.GlobalSlots + x[3], x[2]);
                x.Return();
                return;
        }
    }

    // WorkQueueSet.cs:173-191. Local 1: set.
    private static void RunTryTake(Execution x, int pc)
    {
        switch (pc)
        {
            case 0:
                x.Where = "WorkQueueSet.cs:176 task = _deques[slot].LocalPop()";
                x.Call(LocalPop, returnPc: 1, 0, x[1], x.Thread);
                return;
            case 1:
                if (x[0] != 0)
                {
                    x.Return(x[0]);
                    return;
                }

                x.Where = "WorkQueueSet.cs:184 !_global.IsEmpty";
                x.Call(QueueIsEmpty, returnPc: 2, x[1]);
                return;
            case 2:
                if (x[0] == 0)
                {
                    x.Where = "WorkQueueSet.cs:184 && _global.TryDequeue(out task)";
                    x.Call(QueueTryDequeue, returnPc: 3, x[1]);
                    return;
                }

                x.Pc = 3;
                x[0] = 0;
                return;
            case 3:
                if (x[0] != 0)
                {
                    x.Return(x[0]);
                    return;
                }

                x.Where = "WorkQueueSet.cs:190 return TrySteal(slot, counters, ref random)";
                x.Call(TrySteal, returnPc: 4, x[1]);
                return;
            default:
                x.Return(x[0]);
                return;
        }
    }

    // WorkQueueSet.cs:396-437 with one flat victim level: the other slots from the next one on. Locals: 1 set,
    // 2 victim offset, 3 lostRace.
    private void RunTrySteal(Execution x, int pc)
    {
        int victim = (x.Thread + x[2]) % _workers.Length;
        switch (pc)
        {
            case 0:
                x.Where = "WorkQueueSet.cs:402 lostRace = false";
                x[3] = 0;
                x[2] = 1;
                x.Pc = 1;
                return;
            case 1:
                if (x[2] >= _workers.Length)
                {
                    x.Where = "WorkQueueSet.cs:434 while (lostRace)";
                    if (x[3] != 0)
                    {
                        x.Pc = 0;
                    }
                    else
                    {
                        x.Return(0);
                    }

                    return;
                }

                x.Where = "WorkQueueSet.cs:413 if (deque.IsEmpty) continue";
                x.Call(DequeIsEmpty, returnPc: 2, x[1], victim);
                return;
            case 2:
                if (x[0] != 0)
                {
                    x[2]++;
                    x.Pc = 1;
                    return;
                }

                x.Where = "WorkQueueSet.cs:418 deque.TrySteal(out Task? task)";
                x.Call(DequeSteal, returnPc: 3, 0, x[1], victim);
                return;
            default:
                if (x[0] > 0)
                {
                    x.Return(x[0]);
                    return;
                }

                x[3] |= x[0] == DequeRoutines.Retry ? 1 : 0;
                x[2]++;
                x.Pc = 1;
                return;
        }
    }

    // Worker.MoveTo [Q]. Locals: 1 next, 2 current.
    private void RunMoveTo(Execution x, int pc)
    {
        WorkerCells me = _workers[x.Thread];
        if (pc == 0)
        {
            x.Where = "Worker.MoveTo [Q] current = _queues; if (current == next) return";
            x[2] = x.LoadPrivate(me.Queues);
            if (x[2] == x[1])
            {
                x.Return();
                return;
            }

            x.Where = "Worker.MoveTo [Q] current.DrainLocalToGlobal(Index)";
            x.Call(DrainLocalToGlobal, returnPc: 1, x[2]);
            return;
        }

        x.Where = "Worker.MoveTo [Q] Volatile.Write(ref _queues, next)";
        x.Store(me.Queues, x[1]);
        x.Return();
    }

    // WorkQueueSet.cs:311-333. Locals: 1 set, 2 count, 3-4 popped tasks, 5 index.
    private void RunDrainLocalToGlobal(Execution x, int pc)
    {
        switch (pc)
        {
            case 0:
                x.Where = "WorkQueueSet.cs:314 if (_deques[slot].IsEmpty) return 0";
                x.Call(DequeIsEmpty, returnPc: 1, x[1], x.Thread);
                return;
            case 1:
                if (x[0] != 0)
                {
                    x.Return(0);
                    return;
                }

                x.Pc = 2;
                return;
            case 2:
                x.Where = "WorkStealingDeque.cs:202 LocalDrain: while (LocalPop() is { } item)";
                x.Call(LocalPop, returnPc: 3, 0, x[1], x.Thread);
                return;
            case 3:
                if (x[0] != 0)
                {
                    if (x[2] == 2)
                    {
                        throw new InvalidOperationException("The model drains at most two tasks.");
                    }

                    x[3 + x[2]++] = x[0];
                    x.Pc = 2;
                    return;
                }

                x[5] = x[2];
                x.Pc = 4;
                return;
            case 4:
                // LocalDrain hands the popped tasks back oldest first (the reverse of popping).
                if (x[5] > 0)
                {
                    x.Where = "WorkQueueSet.cs:321-324 foreach (task in drained) _global.Enqueue(task)";
                    x[5]--;
                    x.Call(QueueEnqueue, returnPc: 4, x[1], x[3 + x[5]]);
                    return;
                }

                x.Pc = 5;
                return;
            case 5:
                x.Where = "WorkQueueSet.cs:330 Interlocked.MemoryBarrier()";
                x.Fence();
                x.Pc = (_mutation & PoolMutation.OmitDrainWake) != 0 ? 7 : 6;
                return;
            case 6:
                x.Where = "WorkQueueSet.cs:331 WakeIfSleepers()";
                x.Call(WakeIfSleepers, returnPc: 7, x[1]);
                return;
            default:
                x.Return(x[2]);
                return;
        }
    }

    // WorkerDirector.cs:35-63 over the programs' sets (the idle set is not one). Locals: 1 home, 2 set index.
    private void RunFindWork(Execution x, int pc)
    {
        switch (pc)
        {
            case 0:
                if (!_s.Lending)
                {
                    x.Where = "WorkerDirector.cs:38 if (!_lending && _pool?.StopRequested != true) return null";
                    x.Load(_stop);
                    x.Return(0);
                    return;
                }

                x.Pc = 1;
                return;
            case 1:
                x.Where = "WorkerDirector.cs:51 home = worker.Home (_cpu.Order.Home, Volatile.Read)";
                x[1] = _orderHome[LoadOrder(x, CpuOf(x.Thread))];
                x.Pc = 2;
                return;
            case 2:
                if (x[2] == _s.Sets)
                {
                    x.Return(0);
                    return;
                }

                if (x[2] + 1 == x[1])
                {
                    x[2]++;
                    return;
                }

                x.Where = "WorkerDirector.cs:56 if (set != home && !set.LooksEmpty()) return set";
                x.Call(LooksEmpty, returnPc: 3, x[2] + 1);
                return;
            default:
                if (x[0] == 0)
                {
                    x.Return(x[2] + 1);
                    return;
                }

                x[2]++;
                x.Pc = 2;
                return;
        }
    }

    // Worker.Spin. Locals: 1 queues, 2 home, 3 round.
    private void RunSpin(Execution x, int pc)
    {
        int cpu = CpuOf(x.Thread);
        switch (pc)
        {
            case 0:
                if (x[3] == _s.SpinRounds)
                {
                    x.Return(0);
                    return;
                }

                x.Where = "Worker.Spin round < SpinRounds && !_pool.StopRequested";
                x.Load(_stop);
                x.Pc = 1;
                return;
            case 1:
                x.Where = "Worker.Spin && ReferenceEquals(Home, home) (_cpu.Order.Home)";
                if (_orderHome[LoadOrder(x, cpu)] != x[2])
                {
                    x.Return(0);
                    return;
                }

                x.Pc = 4;
                return;
            case 4:
                x.Where = "Worker.Spin && IsServer";
                if (LoadServer(x, cpu) != x.Thread)
                {
                    x.Return(0);
                    return;
                }

                x.Pc = 2;
                return;
            case 2:
                x.Where = "Worker.Spin queues.TryTake(Index, ref _random)";
                x.Call(TryTake, returnPc: 3, x[1]);
                return;
            default:
                if (x[0] != 0)
                {
                    x.Return(x[0]);
                    return;
                }

                x[3]++;
                x.Pc = 0;
                return;
        }
    }

    // The rebalancer thread applying a decision: CpuSlot.RequestMove for each move, in order. Local 1: next move.
    private void RunMover(Execution x, int pc)
    {
        if (x[1] == _s.Moves.Length)
        {
            x.Return();
            return;
        }

        int move = x[1]++;
        (int cpu, int set) = _s.Moves[move];
        x.Where = $"MultiprogramScheduler Apply: CPU{cpu}.RequestMove({SetName(set + 1)}, onArrival)";
        x.Call(RequestMove, returnPc: 0, cpu, _cpus + move);
    }

    // CpuSlot.RequestMove and TrySwapBack ([M1]-[M4]), on the rebalancer's thread. Locals: 1 cpu, 2 new order, 3 server, 4 partner.
    private void RunRequestMove(Execution x, int pc)
    {
        CpuCells cpu = _cpuCells[x[1]];
        switch (pc)
        {
            case 0:
                if ((_mutation & PoolMutation.MoveWithoutFence) != 0)
                {
                    x.Where = "CpuSlot.RequestMove [M1] MUTATED: Volatile.Write(ref _order, order) (no fence)";
                    x.Store(cpu.Order, x[2]);
                }
                else
                {
                    x.Where = "CpuSlot.RequestMove [M1] Interlocked.Exchange(ref _order, order)";
                    x.Exchange(cpu.Order, x[2]);
                }

                x.Pc = 1;
                return;
            case 1:
                x.Where = "CpuSlot.RequestMove [M2] server = Server (Volatile.Read)";
                x[3] = LoadServer(x, x[1]);
                x[4] = _s.Standby ? Partner(x[3]) : -1;
                x.Pc = 2;
                return;
            case 2:
                if ((_mutation & PoolMutation.OmitMoveWake) != 0)
                {
                    x[0] = 0;
                    x.Pc = 3;
                    return;
                }

                x.Where = "CpuSlot.RequestMove [M2] server.TryWake()";
                x.Call(TryWake, returnPc: 3, x[3]);
                return;
            case 3:
                x.Where = "CpuSlot.RequestMove [M2] if (woken || !HasStandby) return";
                if (x[0] != 0 || !_s.Standby)
                {
                    x.Pc = 11;
                    return;
                }

                if ((_mutation & PoolMutation.OmitStandbyActivation) != 0)
                {
                    x.Pc = 5;
                    return;
                }

                x.Where = "CpuSlot.RequestMove [M3] partner = PartnerOf(server); partner.TryActivate()";
                x.Call(TryActivate, returnPc: 4, x[4]);
                return;
            case 4:
                x.Pc = x[0] != 0 ? 11 : 5;
                return;
            case 5:
                x.Where = "CpuSlot.TrySwapBack [M4] partner.IsInTask (Volatile.Read(ref _taskSerial) & 1)";
                x.Pc = (x.Load(_workers[x[4]].Serial) & 1) != 0 ? 6 : 11;
                return;
            case 6:
                x.Where = "CpuSlot.TrySwapBack [M4] && ReferenceEquals(partner.Queues, home)";
                x.Pc = x.Load(_workers[x[4]].Queues) == _orderHome[x[2]] ? 7 : 11;
                return;
            case 7:
                x.Where = "CpuSlot.TrySwapBack [M4] && Interlocked.CompareExchange(ref _server, partner, server) == server (swap back)";
                x.Pc = x.CompareExchange(cpu.Server, x[4], x[3]) == x[3] ? 8 : 11;
                return;
            case 8:
                x.Where = "CpuSlot.TrySwapBack [M4] partner.TryActivate()";
                x.Call(TryActivate, returnPc: 9, x[4]);
                return;
            case 9:
                x.Where = "CpuSlot.TrySwapBack [M4] server.TryWake()";
                x.Call(TryWake, returnPc: 10, x[3]);
                return;
            case 10:
                x.Where = "CpuSlot.TrySwapBack [M4] order.Arrive()";
                Arrive(x, x[2]);
                x.Pc = 11;
                return;
            default:
                // Ghost: the mover is done with this order (CheckState's lost-activation check starts here).
                x.SetGhost(cpu.Requested, x[2]);
                x.Return();
                return;
        }
    }

    // Worker.TryActivate [M3], on the activator's thread. Local 1: target worker.
    private void RunTryActivate(Execution x, int pc)
    {
        WorkerCells target = _workers[x[1]];
        switch (pc)
        {
            case 0:
                x.Where = "Worker.TryActivate [M3] Volatile.Read(ref _state) != Standby";
                if (x.Load(target.State) != Standby)
                {
                    x.Return(0);
                    return;
                }

                x.Pc = 1;
                return;
            case 1:
                x.Where = "Worker.TryActivate [M3] Interlocked.CompareExchange(ref _state, Awake, Standby) != Standby";
                if (x.CompareExchange(target.State, Awake, Standby) != Standby)
                {
                    x.Return(0);
                    return;
                }

                x.Pc = 2;
                return;
            default:
                x.Where = "Worker.TryActivate [M3] _wake.Release()";
                x.Release(target.Semaphore);
                x.Return(1);
                return;
        }
    }

    // Worker.Retire and StandBy ([S1]-[S4]): retire, park as the standby, watch. Returns 1 once this worker is the server.
    // Local 1: order.
    private void RunStandBy(Execution x, int pc)
    {
        WorkerCells me = _workers[x.Thread];
        int cpu = CpuOf(x.Thread);
        switch (pc)
        {
            case 0:
                x.Where = "Worker.Retire MoveTo(_pool.InitialSet)";
                x.SetGhost(me.TasksAsNonServer, 0);
                x.Call(MoveTo, returnPc: 1, _idleSet);
                return;
            case 1:
                x.Where = "Worker.StandBy [S1] Volatile.Write(ref _state, Standby)";
                x.Store(me.State, Standby);
                x.Pc = (_mutation & PoolMutation.OmitStandbyRecheck) != 0 ? 5 : 2;
                return;
            case 2:
                if ((_mutation & PoolMutation.OmitStandbyFence) == 0)
                {
                    x.Where = "Worker.StandBy [S2] Interlocked.MemoryBarrier()";
                    x.Fence();
                }

                x.Pc = 3;
                return;
            case 3:
                x.Where = "Worker.StandBy [S3] if (_cpu.Order (Volatile.Read)";
                x[1] = LoadOrder(x, cpu);
                x.Pc = 4;
                return;
            case 4:
                x.Where = "Worker.StandBy [S3] .IsPending";
                x.Pc = LoadPending(x, x[1]) != 0 ? 8 : 5;
                return;
            case 5:
                x.Where = "Worker.StandBy [S3] || _pool.StopRequested";
                x.Pc = x.Load(_stop) != 0 ? 8 : 6;
                return;
            case 6:
                x.Where = "Worker.StandBy [S3] || IsServer)";
                x.Pc = LoadServer(x, cpu) == x.Thread ? 8 : StandByWait;
                return;
            case 8:
                x.Where = "Worker.StandBy [S4] if (Interlocked.CompareExchange(ref _state, Awake, Standby) != Standby) (cancel)";
                x.Pc = x.CompareExchange(me.State, Awake, Standby) != Standby ? StandByWait : 10;
                return;
            case StandByWait:
                x.Where = "Worker.StandBy [S4] _wake.Wait()";
                x.Wait(me.Semaphore);
                if (!x.IsBlocked && x.Peek(me.State) != Awake)
                {
                    x.Fail("Debug.Assert(state == Awake) fails (Worker.StandBy [S4]): a standby released while not claimed");
                }

                x.Pc = 10;
                return;
            case 10:
                x.Where = "Worker.Retire if (IsServer) return true (made the server again by a swap back)";
                if (LoadServer(x, cpu) == x.Thread)
                {
                    x.Return(1);
                    return;
                }

                x.Pc = 11;
                return;
            case 11:
                x.Where = "Worker.Retire if (_pool.StopRequested) return false";
                if (x.Load(_stop) != 0)
                {
                    throw new InvalidOperationException("The pool model never stops.");
                }

                x.Pc = 12;
                return;
            case 12:
                x.Where = "Worker.Retire -> Watch if (Watch())";
                x.Call(WatchMove, returnPc: 13);
                return;
            default:
                if (x[0] != 0)
                {
                    x.Return(1);
                    return;
                }

                x.Pc = 1;
                return;
        }
    }

    // Worker.Watch and TakeOver ([W1]-[W3]). Returns 1 when this worker took the CPU over. Locals: 1 order, 2 server.
    private void RunWatchMove(Execution x, int pc)
    {
        int cpu = CpuOf(x.Thread);
        switch (pc)
        {
            case 0:
                x.Where = "Worker.Watch [W1] while (!_pool.StopRequested)";
                if (x.Load(_stop) != 0)
                {
                    throw new InvalidOperationException("The pool model never stops.");
                }

                x.Pc = 1;
                return;
            case 1:
                x.Where = "Worker.Watch [W1] order = _cpu.Order (Volatile.Read)";
                x[1] = LoadOrder(x, cpu);
                x.Pc = 2;
                return;
            case 2:
                x.Where = "Worker.Watch [W1] if (!order.IsPending) return false";
                if (LoadPending(x, x[1]) == 0)
                {
                    x.Return(0);
                    return;
                }

                x.Pc = 3;
                return;
            case 3:
                x.Where = "Worker.Watch [W1] server = _cpu.Server (Volatile.Read)";
                x[2] = LoadServer(x, cpu);
                x.Pc = 4;
                return;
            case 4:
                x.Where = "Worker.Watch [W1] serial = Volatile.Read(ref server._taskSerial); if ((serial & 1) != 0)";
                x.Pc = (x.Load(_workers[x[2]].Serial) & 1) != 0 ? 5 : 9;
                return;
            case 5:
                x.Where = "Worker.Watch [W1] if (ReferenceEquals(server.Queues, order.Home))";
                x.Pc = x.Load(_workers[x[2]].Queues) == _orderHome[x[1]] ? 6 : 7;
                return;
            case 6:
                x.Where = "Worker.Watch [W1] order.Arrive(); return false (a move back: the CPU serves the home already)";
                Arrive(x, x[1]);
                x.Pc = 12;
                return;
            case 12:
                x.Return(0);
                return;
            case 7:
                x.Where = "Worker.Watch [W1] if (now - server._taskStartedAt >= HandoverThreshold)";
                x.Pc = x.Choose("the server's task has run for the handover threshold") ? 8 : 9;
                return;
            case 8:
                if ((_mutation & PoolMutation.TakeOverWithoutCas) != 0)
                {
                    x.Where = "CpuSlot.TryTakeOver [W2] MUTATED: TryTakeOver: Volatile.Write(ref _server, standby) (no CAS)";
                    x.Store(_cpuCells[cpu].Server, x.Thread);
                    x.Pc = 10;
                    return;
                }

                x.Where = "Worker.TakeOver, CpuSlot.TryTakeOver [W2]: Interlocked.CompareExchange(ref _server, standby, server) != server";
                x.Pc = x.CompareExchange(_cpuCells[cpu].Server, x.Thread, x[2]) == x[2] ? 10 : 0;
                return;
            case 9:
                x.Where = "Worker.Watch Thread.Sleep(rest of the threshold); look again";
                x.Pc = 0;
                return;
            case 10:
                if ((_mutation & PoolMutation.OmitTakeOverWake) != 0)
                {
                    x.Return(1);
                    return;
                }

                x.Where = "Worker.TakeOver [W3] server.TryWake() (the old server may have parked in its set)";
                x.Call(TryWake, returnPc: 11, x[2]);
                return;
            default:
                x.Where = "Worker.TakeOver [W3] return true";
                x.Return(1);
                return;
        }
    }

    private sealed record SetCells(
        int Head, int Tail, int GlobalSlots, int Sleepers, int InFlight, int Closed, int Accepted, DequeCells[] Deques);

    private sealed record WorkerCells(int State, int Queues, int Semaphore, int Serial, int InTask, int TasksAsNonServer);

    private sealed record CpuCells(int Order, int Server, int Requested);
}
