using DivCon.Schedulers.Multiprogram.Decisions;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Multiprogram.Profiles;
using DivCon.Schedulers.Topology;
using DivCon.Simulator.Machine;

namespace DivCon.Simulator.Engine;

/// <summary>
/// One discrete-event simulation: a workload of programs, each replaying its task graph run after run, on
/// <see cref="SimulationOptions.Cores"/> simulated cores under one scheme. Single-threaded and deterministic for a
/// seed. See README.md beside the project for the model; the invariants are stated on each piece below.
/// </summary>
/// <remarks>
/// <para><b>Pieces.</b> <i>Threads</i> run tasks. Each thread belongs to a <i>CPU group</i> that shares a capacity
/// among its runnable threads (processor sharing): a dedicated core is a group of capacity 1 with one thread; the
/// pinned oversubscribed scheme has one group per core holding thread i of every program; the free oversubscribed
/// scheme and the thread-pool model have one group of capacity <c>cores</c> holding every thread. Tasks wait in
/// <i>queue sets</i>: a global FIFO queue plus one deque per thread slot (owner LIFO at the bottom, thieves FIFO at
/// the top). Each program has its own set, except under <c>shared</c> and <c>default</c> where all programs share
/// one. The pool model (Simulation.ThreadPool.cs) adds threads to its group and deque slots to its set as its
/// thread-count goal rises, and lets no more than the goal's threads process work.</para>
/// <para><b>Time.</b> The clock is in integer nanoseconds. The only events are "the earliest task of group g
/// finishes" (one per group, moved whenever the group's runnable set changes; see <see cref="EventQueue"/>) and
/// the timed ticks (partitioning decisions, handover checks, the pool model's gate and wave). Within a group, progress is tracked as virtual time V (work done per
/// runnable thread): a task started at V0 with work w finishes when V reaches V0 + w, so only the group's earliest
/// finisher needs an event.</para>
/// <para><b>Task graph semantics</b> (the continuation engine): a split task, when it ends, pushes all its children
/// onto its thread's deque (first child first, so the owner pops the last one); a leaf or merge task, when it ends,
/// reports to its parent, and the report that brings the parent's pending count to zero pushes the parent's merge
/// onto the reporting thread's deque; the root's report ends the run. A new run's root goes to its set's global
/// queue, except under the .NET pool model (<c>default</c>), where it goes onto the deque of the thread that finished
/// the program's previous run (the first runs' roots onto thread 0's). A phase with nested runs is a chain of pieces
/// (see <see cref="TaskGraph"/>): a piece before a nested run pushes the run's root onto its thread's deque, and the
/// nested root's report queues the host's next piece: onto the set's global queue (the resumption reaches a DivCon
/// scheduler from a .NET pool thread), under <c>default</c> onto the reporting thread's deque.</para>
/// </remarks>
internal sealed partial class Simulation
{
    private const int DecisionEvent = 1;
    private const int HandoverEvent = 2;
    private const int GateEvent = 3;
    private const int WaveEvent = 4;
    private const int ArrivalEvent = 5;
    private const int DepartureEvent = 6;
    private const int SampleEvent = 7;
    private const int RestartEvent = 8;

    // How often the mechanism samples running and queued tasks for the online estimator (MultiprogramScheduler's
    // EstimatorSampleInterval, 10 ms): the dynamic scheme's sampling ticks.
    private const long SampleIntervalNs = 10_000_000;

    private readonly SimulationOptions _options;
    private readonly SimulatedScheme _scheme;
    private readonly ProgramSlot[] _programs;
    private readonly int _cores;
    private readonly Random _random;
    private readonly long _limit;
    private readonly bool _partitioning;
    private readonly bool _lending;
    private readonly double _sharingEfficiency;

    // The machine's costs (null without a machine: no hook runs, so results are the simulator's without one).
    private readonly MachineLoad? _load;
    private readonly double _preemptionPenalty;
    private readonly long _handoverRefillNs;

    // Safety net against a schedule that never ends: 100 x the limit plus an hour of simulated time.
    private readonly long _giveUpAt;

    // Not readonly: the pool model (default) adds threads when its goal rises.
    private SimThread[] _threads;
    private readonly CpuGroup[] _groups;
    private readonly QueueSet[] _sets;

    // Partitioning only: the thread that currently stands for each core, home counts per program, the decider.
    private readonly int[] _activeThread;
    private readonly int[] _homeCount;
    private readonly int[] _servingBusy;
    private readonly long _handoverThreshold;

    // Partitioning: per core, the index in _moves of its move that has not arrived yet (-1: none).
    private readonly int[] _pendingMove;
    private readonly List<SimulatedMove> _moves = [];
    private readonly RebalanceDecider? _decider;
    private readonly IndexSet? _idleAnywhere;
    private int _lendCursor;
    private int[]? _lendOrder; // the last decision's lending order (program numbers, first preferred); null: round-robin

    // The .NET pool model (default scheme); its state and rules are in Simulation.ThreadPool.cs.
    private readonly bool _pool;

    private readonly EventQueue _events;
    private long _now;
    private int _busyThreads;

    // Programs running a run, plus programs yet to arrive (so the test, its decision ticks and the pool's ticks go on
    // while a late program is still to come); 0 exactly when the test is over.
    private int _runningPrograms;

    private readonly List<SimulatedRun> _runs = [];
    private readonly List<SimulatedAllocation> _allocations = [];
    private long _eventCount;
    private long _taskCount;
    private long _stealCount;
    private long _moveCount;
    private long _decisionCount;
    private long _lendCount;
    private long _handoverCount;

    /// <summary>Sets up the machine for a workload under a scheme; nothing runs until <see cref="Run"/>.</summary>
    /// <param name="options">Validated options.</param>
    /// <param name="scheme">The scheme.</param>
    /// <param name="programs">The workload (at least one program).</param>
    /// <param name="speedups">Per program, its speedup table (partitioning schemes; may be null otherwise).</param>
    /// <param name="timeLimit">Runs are restarted until this simulated time.</param>
    /// <param name="seed">Seed of the random stream.</param>
    /// <param name="aloneRunSeconds">
    /// Per program, one run's time alone on the machine, the scale of the lifetime a program with a fixed number of runs
    /// states under <see cref="SimulationOptions.LifetimeHints"/>: required then under the dynamic scheme, unused otherwise.
    /// </param>
    /// <exception cref="ArgumentException">Lifetimes are stated and <paramref name="aloneRunSeconds"/> is null.</exception>
    public Simulation(
        SimulationOptions options, SimulatedScheme scheme, IReadOnlyList<SimulatedProgram> programs, IReadOnlyList<ScalabilityTable>? speedups, long timeLimit, int seed,
        IReadOnlyList<double>? aloneRunSeconds = null)
    {
        _options = options;
        _scheme = scheme;
        _cores = options.Cores;
        _random = new Random(seed);
        _limit = timeLimit;
        _giveUpAt = timeLimit >= long.MaxValue / 200 ? long.MaxValue : (timeLimit * 100) + 3_600_000_000_000L;
        _partitioning = scheme.Partitions();
        _lending = _partitioning && options.Lending;
        _pool = scheme == SimulatedScheme.Default;
        // Time-shared threads lose a context switch per quantum: useful fraction quantum / (quantum + switch).
        double quantum = SimulationOptions.Nanoseconds(options.Quantum);
        _sharingEfficiency = quantum / (quantum + options.ContextSwitchNs);
        if (options.Machine is { } machine)
        {
            // The program's phases as they ran on the machine (its phase profile; the same programs without one).
            programs = [.. programs.Select(machine.Calibrate)];
            // The machine's context switch and cache refill replace the option's context switch.
            _sharingEfficiency = machine.SharingEfficiency(quantum);
            _preemptionPenalty = machine.PreemptionPenalty;
            _handoverRefillNs = machine.HandoverRefillNs;
            _load = new MachineLoad(machine, _cores, programs);
        }

        _programs = new ProgramSlot[programs.Count];
        for (int p = 0; p < programs.Count; p++)
        {
            var table = speedups?[p];
            _programs[p] = new ProgramSlot(programs[p], table);
        }

        if (options.LifetimeHints && scheme == SimulatedScheme.Dynamic)
        {
            var alone = aloneRunSeconds ?? throw new ArgumentException(
                "Stated lifetimes (LifetimeHints under the dynamic scheme) need each program's run time alone.", nameof(aloneRunSeconds));
            _statedLifetimes = [.. _programs.Select((slot, p) => StatedLifetime(slot, alone[p]))];
        }

        int programCount = programs.Count;
        int threadCount;
        switch (scheme)
        {
            case SimulatedScheme.OversubscribedFree:
            case SimulatedScheme.OversubscribedPinned:
                // A work-stealing scheduler per program with a thread per core: programCount x cores threads.
                threadCount = programCount * _cores;
                _sets = new QueueSet[programCount];
                for (int p = 0; p < programCount; p++)
                {
                    _sets[p] = new QueueSet(_cores, threadCount);
                }

                _groups = scheme == SimulatedScheme.OversubscribedFree
                    ? [new CpuGroup(_cores)]
                    : [.. Enumerable.Range(0, _cores).Select(_ => new CpuGroup(1))];
                _threads = new SimThread[threadCount];
                for (int p = 0; p < programCount; p++)
                {
                    for (int i = 0; i < _cores; i++)
                    {
                        int group = scheme == SimulatedScheme.OversubscribedFree ? 0 : i;
                        _threads[(p * _cores) + i] = new SimThread((p * _cores) + i, core: i, group, slot: i, home: p);
                    }
                }

                break;
            case SimulatedScheme.Shared:
            case SimulatedScheme.Default:
                // One pool for everybody. The pool model (default) is unpinned and may run extra injected threads,
                // so its threads share one group of capacity `cores`; shared pins one worker per core.
                threadCount = _cores + (scheme == SimulatedScheme.Default ? options.ThreadPoolExtraThreads : 0);
                _poolMinimum = _poolControl = _poolGoal = threadCount;
                _sets = [new QueueSet(threadCount, threadCount)];
                _groups = scheme == SimulatedScheme.Default
                    ? [new CpuGroup(_cores)]
                    : [.. Enumerable.Range(0, _cores).Select(_ => new CpuGroup(1))];
                _threads = new SimThread[threadCount];
                for (int i = 0; i < threadCount; i++)
                {
                    _threads[i] = new SimThread(i, core: i % _cores, group: scheme == SimulatedScheme.Default ? 0 : i, slot: i, home: 0);
                }

                break;
            default:
                // Partitioning: one worker per core (two thread slots per core when standby handover is on, so a
                // moved core can serve its new owner while the old task finishes on the same core).
                int perCore = options.StandbyHandover ? 2 : 1;
                threadCount = _cores * perCore;
                _sets = new QueueSet[programCount];
                for (int p = 0; p < programCount; p++)
                {
                    _sets[p] = new QueueSet(_cores, threadCount);
                }

                _groups = [.. Enumerable.Range(0, _cores).Select(_ => new CpuGroup(1))];
                _threads = new SimThread[threadCount];
                for (int t = 0; t < threadCount; t++)
                {
                    int core = t % _cores;
                    _threads[t] = new SimThread(t, core, group: core, slot: core, home: -1) { Inactive = t >= _cores };
                }

                break;
        }

        _events = new EventQueue(_groups.Length);
        _activeThread = [.. Enumerable.Range(0, _cores)];
        _pendingMove = [.. Enumerable.Repeat(-1, _cores)];
        _handoverThreshold = SimulationOptions.Nanoseconds(options.HandoverThreshold);
        _homeCount = new int[programCount];
        _servingBusy = new int[programCount];
        if (_partitioning)
        {
            IAllocationPolicy policy = scheme switch
            {
                SimulatedScheme.Static => new ProportionalPolicy(),
                SimulatedScheme.Dynamic => options.DynamicPolicy ?? new LearnedScalabilityPolicy(),
                SimulatedScheme.TaskAvailability => new TaskAvailabilityPolicy(),
                _ => new HillClimbingPolicy(),
            };
            _decider = new RebalanceDecider(policy, CpuTopology.Uniform(options.Packages, _cores / options.Packages));
            // As the mechanism: the learned policy decides early (at a sample) once an arriving program shows work.
            _early = policy is LearnedScalabilityPolicy { DecidesEarly: true } && scheme == SimulatedScheme.Dynamic ? new EarlyDecision() : null;
            _idleAnywhere = _lending ? new IndexSet(threadCount) : null;
        }
    }

    /// <summary>
    /// Tests only: scripted moves (time in ns, core, program index) replace the decider for a partitioning scheme, so a
    /// schedule can be worked out by hand; moves at time 0 are applied before the runs start.
    /// </summary>
    internal IReadOnlyList<(long AtNs, int Core, int Program)>? Script { get; init; }

    /// <summary>Progress callback: simulated time reached, ns (called now and then).</summary>
    public Action<long>? Progress { get; init; }

    /// <summary>Runs the cyclic protocol to the end: every program starts at 0 and restarts on completion until the limit.</summary>
    /// <param name="cancellationToken">Stops the simulation (checked every few thousand events).</param>
    /// <returns>The test.</returns>
    public SimulatedCyclicTest Run(CancellationToken cancellationToken)
    {
        foreach (var t in _threads)
        {
            if (!t.Inactive)
            {
                MakeIdle(t);
            }
        }

        if (_partitioning && Script is { } script)
        {
            for (int i = 0; i < script.Count; i++)
            {
                if (script[i].AtNs == 0)
                {
                    ApplyScripted(i);
                }
                else
                {
                    Schedule(script[i].AtNs, DecisionEvent, i + 1, 0);
                }
            }
        }
        else if (_partitioning)
        {
            // Programs register one by one, each registration an Arrival decision (as the harness opens a session);
            // a program arriving later registers at its arrival (OnArrival).
            for (int k = 1; k <= _programs.Length; k++)
            {
                if (_programs[k - 1].Arrival == 0)
                {
                    _early?.Arrived(new ProgramId(k - 1), TimeSpan.Zero);
                    Decide(RebalanceReason.Arrival, k);
                }
            }

            // Static repartitions only when programs outnumber cores (the starvation guard needs interval decisions).
            if (_scheme != SimulatedScheme.Static || _programs.Length > _cores)
            {
                Schedule(SimulationOptions.Nanoseconds(_options.RebalanceInterval), DecisionEvent, 0, 0);
            }

            if (_scheme == SimulatedScheme.Dynamic)
            {
                Schedule(SampleIntervalNs, SampleEvent, 0, 0);
            }
        }

        for (int p = 0; p < _programs.Length; p++)
        {
            if (_programs[p].Arrival > 0)
            {
                // A late program: counted as running until it arrives, so the test cannot end before it.
                _runningPrograms++;
                Schedule(_programs[p].Arrival, ArrivalEvent, p, 0);
                continue;
            }

            // The pool model: the harness starts every program's first run from one pool thread, whose local queue
            // takes the roots (TaskScheduler.Default queues a pool thread's tasks locally); thread 0 stands for it.
            StartRun(p, _pool ? _threads[0] : null);
        }

        if (_pool)
        {
            StartPoolControl();
        }

        foreach (var set in _sets)
        {
            WakeIdle(set);
        }

        long nextProgress = 0;
        while (_events.TryDequeue(out long time, out int dueGroup, out var e))
        {
            if (dueGroup < 0 && e.Kind >= GateEvent && _runningPrograms == 0)
            {
                continue; // the test is over: the pool's last gate tick or wave sample must not move the end time
            }

            _now = time;
            _eventCount++;
            if ((_eventCount & 0xFFF) == 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
                if (_now >= nextProgress)
                {
                    Progress?.Invoke(_now);
                    nextProgress = _now + 1_000_000_000;
                }
            }

            if (_now > _giveUpAt)
            {
                // Runs end soon after the limit in any sane schedule; a program nobody serves would tick forever.
                throw new InvalidOperationException(
                    $"The simulation passed {Time(_giveUpAt)} with {_runningPrograms} program(s) still running: some program is never served (a scheme without lending that gives it no core?).");
            }

            if (dueGroup >= 0)
            {
                OnGroupDue(dueGroup);
            }
            else if (e.Kind == HandoverEvent)
            {
                OnHandoverDue(_threads[e.A], e.B);
            }
            else if (e.Kind == GateEvent)
            {
                OnGateTick();
            }
            else if (e.Kind == WaveEvent)
            {
                OnWaveSample();
            }
            else if (e.Kind == ArrivalEvent)
            {
                OnArrival(e.A);
            }
            else if (e.Kind == DepartureEvent)
            {
                OnDeparture();
            }
            else if (e.Kind == SampleEvent)
            {
                OnSampleTick();
            }
            else if (e.Kind == RestartEvent)
            {
                OnRestart(e.A);
            }
            else if (e.A > 0)
            {
                ApplyScripted(e.A - 1);
            }
            else
            {
                OnDecisionTick();
            }
        }

        if (_runningPrograms != 0 || _busyThreads != 0)
        {
            throw new InvalidOperationException($"Simulation ended with {_runningPrograms} programs running and {_busyThreads} threads busy: a task was lost.");
        }

        return new SimulatedCyclicTest(
            _scheme,
            [.. _programs.Select(p => p.Program.Name)],
            _runs,
            _allocations,
            TimeSpan.FromTicks(_limit / 100),
            TimeSpan.FromTicks(_now / 100),
            new SimulationCounters(_eventCount, _taskCount, _stealCount, _moveCount, _decisionCount, _lendCount)
            {
                Handovers = _handoverCount,
                PoolThreads = _pool ? _threads.Length : 0,
                PoolInjections = _injectionCount,
            })
        {
            Moves = _moves,
            Estimates = _estimates,
            StatedLifetimes = _statedLifetimes ?? [],
        };
    }

    // ----- runs -----

    /// <summary>
    /// Starts a run of program <paramref name="p"/>: its root goes to its set's global queue, or, when
    /// <paramref name="by"/> is given (the pool model), onto that thread's deque.
    /// </summary>
    private void StartRun(int p, SimThread? by)
    {
        var program = _programs[p];
        program.Running = true;
        program.RunStart = _now;
        program.RootQueued = true;
        _runningPrograms++;
        var set = _sets[SetOf(p)];
        if (by is null)
        {
            set.Global.PushBottom(Pack(p, 0, merge: false));
            set.Queued++;
        }
        else
        {
            Push(set, by, Pack(p, 0, merge: false));
        }
    }

    /// <summary>Program <paramref name="p"/>'s root finished on thread <paramref name="t"/>: records the run, restarts it before the limit.</summary>
    private void FinishRun(int p, SimThread t)
    {
        var program = _programs[p];
        _runs.Add(new SimulatedRun(program.Program.Name, program.RunIndex, Time(program.RunStart), Time(_now), Counted: _now <= _limit));
        program.RunIndex++;
        program.CompletedRunTime += _now - program.RunStart;
        program.Running = false;
        _runningPrograms--;
        // Restart while the limit has not been reached (the harness's runner: "while elapsed < limit, start a run"),
        // and, for a program of a generated mix, while it has runs left and its leaving time has not come.
        if (_now < _limit && (program.IsCyclic || (program.RunIndex < program.MaxRuns && _now < program.LeaveAt)))
        {
            // Under the pool model the next run starts on the thread that finished this one: the run's completion
            // queues the harness's continuation on that pool thread's local queue, and the continuation queues the
            // next root there too. Elsewhere the continuation runs on a .NET pool thread, outside the scheduler, whose
            // tasks go to the scheduler's global queue.
            long? delay = _pool ? null : _options.RestartDelayNs > 0 ? _options.RestartDelayNs : RestartRaceDelay(p, t);
            if (delay is not long later)
            {
                StartRun(p, _pool ? t : null);
            }
            else
            {
                // The runner's continuation queues the next root a moment later (an event of its own, so after this
                // thread has looked for work even when the gap is 0); counted as running meanwhile, as a pending
                // arrival is, so the run's end and the restart are one program's turn.
                _runningPrograms++;
                Schedule(_now + later, RestartEvent, p, 0);
            }
        }
        else if (_now < _limit)
        {
            // The program departs before the limit (its runs or its time are up). Partitioning schemes unregister it
            // with a Departure decision, taken as an event of its own right after this one (never while a thread is
            // in the middle of finishing a task).
            program.Present = false;
            if (_partitioning)
            {
                _early?.Departed(new ProgramId(p));
                Schedule(_now, DepartureEvent, p, 0);
            }
        }
    }

    /// <summary>
    /// The restart race (<see cref="SimulationOptions.RestartRace"/>): how long after program <paramref name="p"/>'s run
    /// ended on thread <paramref name="t"/> its next root is queued, after <paramref name="t"/> has looked for work; null
    /// for at once, before it looks. Called only when the run's end restarts the program, before <paramref name="t"/>
    /// dispatches.
    /// </summary>
    /// <remarks>
    /// The mechanism: the run's last task completes the run's task on the finishing worker; the program's resumption
    /// is a task of the scheduler, queued onto that worker's own deque and run by it next, and it completes the program's
    /// task, whose awaiter (a completion source with asynchronous continuations) goes to the .NET pool: the worker wakes
    /// a pool thread, then returns to its loop, where it looks at its own deque (empty: the run is over), the global
    /// queue, then victims. The pool thread runs the harness's loop, which queues the next root on the global queue.
    /// Which comes first is the operating system's choice of a core for the pool thread. With every other core busy it
    /// preempts one of them, each with the same chance here (the model does not follow the scheduler's placement):
    /// on the finisher's own core (chance 1 / cores, or RestartOnFinisherCoreChance) the finisher looks only after the root is queued, and takes it,
    /// having lost the gap; on another core the finisher looks at once and steals into another program's tree, and the
    /// root waits on the global queue until some worker's own deque is empty (a worker never looks at the global queue
    /// while its deque holds work). With nothing queued in the set the finisher finds nothing and spins (the
    /// mechanism's spin rounds outlast the gap), taking the root when it arrives: the same as a restart on its own core.
    /// Sets of one program have nothing else to look at, so the race is run only in a set several programs share.
    /// </remarks>
    private long? RestartRaceDelay(int p, SimThread t)
    {
        if (!_options.RestartRace || _sets.Length != 1 || _programs.Length < 2)
        {
            return null;
        }

        var set = _sets[SetOf(p)];

        // Invariant (one set, a thread per core): a thread is idle only while the set has nothing queued, since every
        // task end wakes idle threads for what is queued. So with something queued every other core is busy, and the
        // pool thread preempts one of them or the finisher's.
        long gap = _options.RestartGapNs;
        // The pool thread's core: one of the cores drawn alike (the finisher's is core 0 of the draw), or the given chance.
        if (set.Queued > 0 && !(_options.RestartOnFinisherCoreChance is double chance ? _random.NextDouble() < chance : _random.Next(_cores) == 0))
        {
            return gap; // the pool thread runs on another core: the finisher looks first
        }

        t.PendingCost += gap; // the pool thread held the finisher's core: the root is queued before it looks
        return null;
    }

    /// <summary>A late program arrives: it registers (partitioning: an Arrival decision) and starts its first run.</summary>
    /// <remarks>
    /// Its root goes to its set's global queue under every scheme: the program is started from outside the
    /// scheduler's workers (under <c>default</c>, the pool's global queue: a timer or another thread starts it).
    /// </remarks>
    private void OnArrival(int p)
    {
        _runningPrograms--; // counted while pending; StartRun counts it again
        _programs[p].Present = true;
        if (_partitioning)
        {
            _early?.Arrived(new ProgramId(p), Time(_now));
            Decide(RebalanceReason.Arrival, _programs.Length);
        }

        StartRun(p, null);
        WakeIdle(_sets[SetOf(p)]);
    }

    /// <summary>A delayed restart (<see cref="SimulationOptions.RestartDelayNs"/>, or the restart race's gap): program <paramref name="p"/>'s next root is queued.</summary>
    private void OnRestart(int p)
    {
        _runningPrograms--; // counted while pending; StartRun counts it again
        if (_now >= _limit)
        {
            return; // the runner checks the limit when it resumes, as the harness's loop does: no run after it
        }

        StartRun(p, null);
        WakeIdle(_sets[SetOf(p)]);
    }

    /// <summary>A program departed: the partitioning scheme gives its cores to the programs still there.</summary>
    private void OnDeparture()
    {
        if (_programs.Any(p => p.Present))
        {
            Decide(RebalanceReason.Departure, _programs.Length);
        }
    }

    /// <summary>Whether program <paramref name="p"/> is registered with the partitioning scheme now (arrived and not departed).</summary>
    private bool IsPresent(int p) => _programs[p].Present;

    // ----- tasks -----

    // A task: program (bits 48-62), piece of its phase (bits 33-47; nonzero only in a phase with nested runs), node
    // (bits 1-32), merge (bit 0).
    private static long Pack(int program, int node, bool merge, int piece = 0) =>
        ((long)program << 48) | ((long)piece << 33) | ((long)node << 1) | (merge ? 1L : 0L);

    private static int ProgramOf(long task) => (int)(task >> 48);

    private static int PieceOf(long task) => (int)((task >> 33) & 0x7FFF);

    private static int NodeOf(long task) => (int)((task & 0x1_FFFF_FFFFL) >> 1);

    private static bool IsMerge(long task) => (task & 1) != 0;

    private int SetOf(int program) => _sets.Length == 1 ? 0 : program;

    /// <summary>Pushes one task onto thread <paramref name="t"/>'s deque in <paramref name="set"/>.</summary>
    private static void Push(QueueSet set, SimThread t, long task)
    {
        set.Deques[t.Slot].PushBottom(task);
        set.Queued++;
        set.NonEmpty.Add(t.Slot);
    }

    /// <summary>Starts <paramref name="task"/> on thread <paramref name="t"/> with the given extra cost (steal, wake, move).</summary>
    private void StartTask(SimThread t, long task, long extra)
    {
        int p = ProgramOf(task);
        int node = NodeOf(task);
        if (task == Pack(p, 0, merge: false))
        {
            _programs[p].RootQueued = false; // the run's root starts: its queued work is now the run's own
        }

        var graph = _programs[p].Graph;
        ref readonly var info = ref graph.Nodes[node];
        long duration = !info.Nested ? (IsMerge(task) ? info.Merge : info.Work) : graph.PieceWork(node, IsMerge(task), PieceOf(task));
        if (!_options.Inflation.IsOff)
        {
            duration = (long)(duration * _options.Inflation.Factor(_busyThreads + 1, _cores));
        }

        if (_load is not null)
        {
            double stretch = _load.Begin(t.Core, p);
            if (stretch != 1)
            {
                duration = (long)(duration * stretch);
            }
        }

        t.Busy = true;
        t.Task = task;
        t.TaskStartedAt = _now;
        t.TaskSerial++;
        if (_pool)
        {
            AccumulatePoolBusy();
        }

        _busyThreads++;
        _servingBusy[p]++;
        long work = duration + _options.TaskOverheadNs + extra + t.PendingCost;
        t.PendingCost = 0;
        var group = _groups[t.Group];
        Advance(group);
        group.Finishers.Enqueue(t.Index, group.Virtual + work);
        Reschedule(t.Group);
    }

    /// <summary>Thread <paramref name="t"/> finished its task: apply the task graph's rule, then find more work.</summary>
    private void OnTaskDone(SimThread t)
    {
        long task = t.Task;
        int p = ProgramOf(task);
        int node = NodeOf(task);
        var program = _programs[p];
        var graph = program.Graph;
        ref readonly var info = ref graph.Nodes[node];
        t.Busy = false;
        if (_pool)
        {
            AccumulatePoolBusy();
        }

        _busyThreads--;
        _servingBusy[p]--;
        _load?.End(t.Core, p);
        _taskCount++;
        var set = _sets[t.Serving];
        int piece = PieceOf(task);
        var nested = !info.Nested ? null : IsMerge(task) ? graph.MergeNested[node] : graph.SplitNested[node];
        if (nested is not null && piece < nested.Length)
        {
            // A piece of own work before a nested run: the run's root goes onto this thread's deque (the program's
            // split or merge starts the nested run from this thread); the phase goes on when that root is done.
            Push(set, t, Pack(p, nested[piece].Root, merge: false));
        }
        else if (!IsMerge(task) && info.ChildCount > 0)
        {
            // Split done: all children go onto this thread's deque, first child first (the owner pops the last).
            int first = info.FirstChild;
            int count = info.ChildCount;
            program.Pending[node] = count;
            var deque = set.Deques[t.Slot];
            for (int c = first; c < first + count; c++)
            {
                deque.PushBottom(Pack(p, c, merge: false));
            }

            set.Queued += count;
            set.NonEmpty.Add(t.Slot);
        }
        else
        {
            int parent = info.Parent;
            if (parent >= 0)
            {
                if (--program.Pending[parent] == 0)
                {
                    // The last child to report queues the merge where it runs (the continuation engine's rule).
                    Push(set, t, Pack(p, parent, merge: true));
                }
            }
            else if (graph.HostNode[node] is int host and >= 0)
            {
                // A nested run's root is done: its host phase's next piece is queued. The run completes its task
                // with RunContinuationsAsynchronously and the program awaits it with ConfigureAwait(false), so the
                // program's continuation runs on a .NET pool thread, and the engine's resumption is queued from
                // there: under `default` onto that pool thread's local queue (modelled as the reporting thread's
                // deque), under every DivCon scheduler onto the set's global queue (a queue from outside its workers).
                long next = Pack(p, host, graph.HostMerge[node], graph.HostIndex[node] + 1);
                if (_scheme == SimulatedScheme.Default)
                {
                    Push(set, t, next);
                }
                else
                {
                    set.Global.PushBottom(next);
                    set.Queued++;
                }
            }
            else
            {
                FinishRun(p, t);
            }
        }

        if (t.Retiring)
        {
            // Standby handover: the core already has a new thread; this one only had to finish its task. It parks
            // as the core's standby; if a move is pending meanwhile (the server met a long task too), it watches.
            Drain(t);
            t.Retiring = false;
            t.Inactive = true;
            WatchServer(_threads[_activeThread[t.Core]], wake: false);
        }
        else if (_pool && _busyThreads >= _poolGoal)
        {
            // The pool's goal dropped below the threads processing work: this one stops at its task boundary.
            RetirePoolThread(t);
        }
        else
        {
            Dispatch(t);
        }

        // New children, a merge or a restarted run's root (a task of program p always runs on a thread serving
        // p's set, so a restart lands in this same set) may be waiting for idle threads.
        WakeIdle(set);
    }

    // ----- CPU groups (processor sharing) -----

    private double Rate(CpuGroup group) =>
        MachineModel.SharingRate(group.Capacity, group.Runnable, _sharingEfficiency, _preemptionPenalty);

    /// <summary>Brings the group's virtual time to now.</summary>
    private void Advance(CpuGroup group)
    {
        if (group.Runnable > 0 && group.LastUpdate != _now)
        {
            group.Virtual += Rate(group) * (_now - group.LastUpdate);
        }

        group.LastUpdate = _now;
    }

    /// <summary>Replaces the group's pending event with its earliest finisher's under the current rate (none if idle).</summary>
    private void Reschedule(int g)
    {
        var group = _groups[g];
        if (group.Finishers.TryPeek(out _, out double finish))
        {
            double wait = Math.Max(0, finish - group.Virtual) / Rate(group);
            _events.ScheduleGroup(g, _now + (long)Math.Ceiling(wait));
        }
        else
        {
            _events.CancelGroup(g);
        }
    }

    private void OnGroupDue(int g)
    {
        var group = _groups[g];
        Advance(group);
        // Every thread whose finish point has been reached (1 ns of slack for the rounding up of event times).
        var done = group.DoneScratch;
        done.Clear();
        while (group.Finishers.TryPeek(out int index, out double finish) && finish <= group.Virtual + 1.0)
        {
            group.Finishers.Dequeue();
            done.Add(index);
        }

        Reschedule(g);
        foreach (int index in done)
        {
            OnTaskDone(_threads[index]);
        }
    }

    // ----- helpers -----

    private void Schedule(long time, int kind, int a, int b) => _events.Schedule(time, kind, a, b);

    private static TimeSpan Time(long nanoseconds) => TimeSpan.FromTicks(nanoseconds / 100);

    /// <summary>Per-program run state.</summary>
    private sealed class ProgramSlot(SimulatedProgram program, ScalabilityTable? table)
    {
        public SimulatedProgram Program { get; } = program;

        public ScalabilityTable? Table { get; } = table;

        public TaskGraph Graph { get; } = program.Graph;

        /// <summary>Per internal node: children not yet reported in the current run.</summary>
        public int[] Pending { get; } = new int[program.Graph.NodeCount];

        public bool Running { get; set; }

        public long RunStart { get; set; }

        /// <summary>The current run's root is queued and has not started (its only queued task is that root).</summary>
        public bool RootQueued { get; set; }

        public int RunIndex { get; set; }

        /// <summary>The completed runs' total duration, ns.</summary>
        public long CompletedRunTime { get; set; }

        /// <summary>Arrived and not departed (what a partitioning scheme has registered).</summary>
        public bool Present { get; set; } = program.Arrival == TimeSpan.Zero;

        /// <summary>Arrival, ns (0 for a cyclic program).</summary>
        public long Arrival { get; } = SimulationOptions.Nanoseconds(program.Arrival);

        /// <summary>No run starts at or after this time, ns.</summary>
        public long LeaveAt { get; } = program.LeaveAt is { } leave ? SimulationOptions.Nanoseconds(leave) : long.MaxValue;

        /// <summary>Runs before it departs.</summary>
        public int MaxRuns { get; } = program.MaxRuns ?? int.MaxValue;

        /// <summary>Restarted until the limit only (the cyclic protocol).</summary>
        public bool IsCyclic { get; } = program.IsCyclic;
    }
}
