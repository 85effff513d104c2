using DivCon.Schedulers.Multiprogram.Decisions;
using DivCon.Schedulers.Multiprogram.Estimation;
using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Simulator.Engine;

/// <summary>
/// The partitioning schemes' decisions and moves (<c>static</c>, <c>dynamic</c>, <c>hill-climbing</c>; see README.md
/// beside the project, "Partitioning", "Standby handover" and "Move latency").
/// </summary>
/// <remarks>
/// <para><b>Decisions.</b> Every <see cref="SimulationOptions.RebalanceInterval"/> (and at each program's arrival) the
/// simulation builds the snapshot the mechanism would build and runs the real <see cref="RebalanceDecider"/> (policy,
/// starvation guard, placement); each move changes a core's <see cref="SimThread.Home"/>.</para>
/// <para><b>Moves.</b> A core's order is its active thread's home; the move is pending in <see cref="_pendingMove"/>
/// until a thread of the core serves the new owner: an idle worker at once, a busy one at its next task boundary
/// (<see cref="Dispatch"/>), or, with standby handover, the core's second thread once the running task has run the
/// threshold. <see cref="Arrive"/> records the latency of the pending move.</para>
/// </remarks>
internal sealed partial class Simulation
{
    // The smoothed availability per program (AvailabilitySignal.Smoothed); NaN until the program's first sample.
    private double[]? _smoothedAvailable;

    // The online scalability estimate per program (what the mechanism learns while running), observed at every
    // decision from the program's running and queued tasks; the time of the previous observation.
    private ScalabilityEstimator[]? _estimators;
    private long _lastObservation;

    // The learned policy's early decision after an arrival (the mechanism's rule, asked at each sample); null: none.
    private readonly EarlyDecision? _early;
    private readonly List<SimulatedEstimate> _estimates = [];

    // The last placed decision's burst roles by program number (policies README, "Bursts first"); null: none.
    private BurstRole[]? _burstRoles;

    // Per program, the lifetime it states to the dynamic scheme (SimulationOptions.LifetimeHints), fixed for the test:
    // computed once in the constructor; null when no program states one.
    private readonly TimeSpan[]? _statedLifetimes;

    /// <summary>
    /// The lifetime a program states under <see cref="SimulationOptions.LifetimeHints"/>: arrival to departure (or to
    /// the time limit); for a program with a fixed number of runs, at most that number times twice its run's time alone
    /// on the machine (<paramref name="aloneRunSeconds"/>): the order
    /// of magnitude its user would give, who knows how long a run takes, not its simulated turnaround in the mix. Off by
    /// <see cref="SimulationOptions.LifetimeHintError"/> when that is above 1.
    /// </summary>
    private TimeSpan StatedLifetime(ProgramSlot slot, double aloneRunSeconds)
    {
        long end = Math.Min(slot.LeaveAt, _limit);
        double seconds = (end - slot.Arrival) / 1e9;
        if (slot.Program.MaxRuns is int runs)
        {
            seconds = Math.Min(seconds, runs * 2.0 * aloneRunSeconds);
        }

        if (_options.LifetimeHintError > 1)
        {
            // A factor in [1/e, e], log-uniform, fixed by the program's name and the seed (FNV-1a), so every scheme and
            // rerun sees the same error and the simulation's random stream is untouched.
            uint hash = 2166136261;
            foreach (char c in slot.Program.Name + "/" + _options.Seed.ToString(System.Globalization.CultureInfo.InvariantCulture))
            {
                hash = (hash ^ c) * 16777619;
            }

            double u = (hash % 1_000_000) / 1_000_000.0;
            seconds *= Math.Exp(((2 * u) - 1) * Math.Log(_options.LifetimeHintError));
        }

        return TimeSpan.FromSeconds(Math.Max(seconds, 1e-6));
    }

    private void OnDecisionTick()
    {
        if (_runningPrograms == 0)
        {
            return; // the test is over; no more ticks
        }

        Decide(RebalanceReason.Interval, _programs.Length);
        Schedule(_now + SimulationOptions.Nanoseconds(_options.RebalanceInterval), DecisionEvent, 0, 0);
    }

    /// <summary>
    /// Builds the snapshot the mechanism would build (registration order: speedup table, queued tasks, owned cores,
    /// workers running the program's tasks) for the first <paramref name="live"/> programs, runs the real decider
    /// (policy, starvation guard, placement) and applies its moves.
    /// </summary>
    private void Decide(RebalanceReason reason, int live)
    {
        _decisionCount++;
        var states = new List<ProgramState>(live);
        bool learns = _scheme == SimulatedScheme.Dynamic; // only its policy reads the estimates
        if (learns)
        {
            SampleEstimates();
        }

        for (int p = 0; p < live; p++)
        {
            if (!IsPresent(p))
            {
                continue; // a generated mix's program not yet arrived or departed is not registered
            }

            ScalabilityEstimate? estimate = null;
            if (learns)
            {
                estimate = _estimators![p].Current;
                _estimates.Add(new SimulatedEstimate(Time(_now), p, _homeCount[p], estimate.SpeedupAt(_homeCount[p]), estimate.SpeedupAt(_cores), estimate.ObservedCoreSeconds));
            }

            var slot = _programs[p];
            var table = slot.Table;
            double speedup = table?.SpeedupAt(_cores) ?? _cores;
            states.Add(new ProgramState(new ProgramId(p), speedup, AvailableTasks(p), _homeCount[p], table, _servingBusy[p], runningTasks: _servingBusy[p])
            {
                Estimate = estimate,

                // Every run, exactly (the scheduler has only the runs a program reports): for the policy's long runs first.
                Runs = new RunHistory(slot.RunIndex, Time(slot.CompletedRunTime), slot.Running ? Time(_now - slot.RunStart) : null),
                ExpectedLifetime = _statedLifetimes?[p],
            });
        }

        var snapshot = new AllocationSnapshot(_cores, states);
        RebalanceEvent decision = _decider!.Decide(snapshot, reason, _now, RunningTasks());
        _early?.Decided(Time(_now));
        if (decision.Skipped)
        {
            return;
        }

        // The policy's lending order and burst roles, as the mechanism applies them (MultiprogramScheduler's
        // ApplyLendingOrder and ApplyBurstRoles): the snapshot's indices are the present programs in order, so they map
        // to program numbers through the states. A decision without an order keeps the last one; without roles, none.
        var placed = _decider.LastAppliedDecision is { } last && ReferenceEquals(last.Snapshot, snapshot) ? last : null;
        if (placed?.LendingOrder is { } order && order.Count == states.Count)
        {
            _lendOrder = [.. order.Select(i => states[i].Id.Value)];
        }

        _burstRoles = null;
        if (placed?.BurstRoles is { } roles && roles.Count == states.Count)
        {
            _burstRoles = new BurstRole[_programs.Length];
            for (int i = 0; i < states.Count; i++)
            {
                _burstRoles[states[i].Id.Value] = roles[i];
            }
        }

        foreach (var move in decision.Moves)
        {
            ChangeHome(move.CpuId, move.To?.Value ?? -1);
        }

        var cores = new int[_programs.Length];
        foreach (var allocation in decision.After)
        {
            cores[allocation.Id.Value] = allocation.Cores;
        }

        _allocations.Add(new SimulatedAllocation(Time(_now), cores));
        foreach (var set in _sets)
        {
            WakeIdle(set);
        }
    }

    /// <summary>For each core inside a task now (its server's, else its retiring thread's), that task's program.</summary>
    private Dictionary<int, ProgramId> RunningTasks()
    {
        var running = new Dictionary<int, ProgramId>();
        for (int core = 0; core < _cores; core++)
        {
            var t = _threads[_activeThread[core]];
            if (!t.Busy && _options.StandbyHandover && Other(t).Busy)
            {
                t = Other(t);
            }

            if (t.Busy)
            {
                running[core] = new ProgramId(ProgramOf(t.Task));
            }
        }

        return running;
    }

    /// <summary>
    /// Feeds every present program's estimator the interval since the last sample: its running and queued tasks now
    /// (as the mechanism samples them, every <see cref="SampleIntervalNs"/> and at each decision).
    /// </summary>
    private void SampleEstimates()
    {
        // A program's table, when the scheme has one (SimulationOptions.DynamicPriors), is its estimator's prior, as
        // the mechanism's estimator starts from a registered profile.
        _estimators ??= [.. _programs.Select(slot => new ScalabilityEstimator(_cores, slot.Table))];
        var elapsed = TimeSpan.FromTicks((_now - _lastObservation) / 100);
        _lastObservation = _now;
        for (int p = 0; p < _programs.Length; p++)
        {
            if (IsPresent(p))
            {
                _estimators[p].Observe(elapsed, _servingBusy[p], _sets[p].Queued);
            }
        }
    }

    /// <summary>
    /// The sampling tick of the estimators (the dynamic scheme only): samples, makes the early decision when a program
    /// that arrived 10-20 ms ago has shown work (<see cref="EarlyDecision"/>, as the mechanism's sample does), then
    /// schedules the next.
    /// </summary>
    private void OnSampleTick()
    {
        if (_runningPrograms == 0)
        {
            return;
        }

        SampleEstimates();
        if (_early is { Pending: > 0 } early && early.IsDue(Time(_now), id => IsPresent(id.Value) ? _estimators![id.Value].Current : null))
        {
            Decide(RebalanceReason.FirstSignal, _programs.Length);
        }

        Schedule(_now + SampleIntervalNs, SampleEvent, 0, 0);
    }

    /// <summary>Program <paramref name="p"/>'s available tasks as the policy reads them (<see cref="SimulationOptions.Availability"/>).</summary>
    /// <remarks>Called once per program per decision, so the smoothed signal advances one step per decision.</remarks>
    private int AvailableTasks(int p)
    {
        int queued = _sets[p].Queued;
        switch (_options.Availability)
        {
            case AvailabilitySignal.QueuedAndRunning:
                return queued + _servingBusy[p];
            case AvailabilitySignal.Smoothed:
                if (_smoothedAvailable is null)
                {
                    _smoothedAvailable = new double[_programs.Length];
                    Array.Fill(_smoothedAvailable, double.NaN);
                }

                double previous = _smoothedAvailable[p];
                double smoothed = double.IsNaN(previous) ? queued : previous + ((queued - previous) / 4);
                _smoothedAvailable[p] = smoothed;
                return (int)Math.Ceiling(smoothed);
            default:
                return queued;
        }
    }

    /// <summary>Gives core <paramref name="core"/> to program <paramref name="home"/> (-1: nobody).</summary>
    /// <remarks>
    /// The core's order is the active thread's <see cref="SimThread.Home"/>; a move is pending (in
    /// <see cref="_pendingMove"/>) until a thread of the core serves the new owner. An idle worker moves at once; a
    /// busy one already running the new owner's task (lent to it, or a move back) has arrived; otherwise, with
    /// standby handover, the standby takes over once the running task has run the threshold, or (both threads inside
    /// tasks) the move waits for the first of the two tasks to end; without it, the worker moves at its next boundary.
    /// </remarks>
    private void ChangeHome(int core, int home)
    {
        var t = _threads[_activeThread[core]];
        if (t.Home == home)
        {
            return;
        }

        if (t.Home >= 0)
        {
            _homeCount[t.Home]--;
        }

        if (home >= 0)
        {
            _homeCount[home]++;
        }

        // A pending move that a later decision supersedes keeps no latency (as in the mechanism).
        _pendingMove[core] = -1;
        if (t.Home >= 0 && home >= 0)
        {
            _pendingMove[core] = _moves.Count;
            _moves.Add(new SimulatedMove(Time(_now), core, t.Home, home, null));
        }

        if (t.Idle)
        {
            // An idle worker moves at once (the mechanism wakes the parked server, which moves and reports).
            if (t.Home >= 0)
            {
                _sets[t.Home].Idle.Remove(t.Index);
            }

            t.Home = home;
            if (home >= 0)
            {
                t.Serving = home;
                _sets[home].Idle.Add(t.Index);
                _idleAnywhere?.Add(t.Index);
                _moveCount++;
                Arrive(core, _options.WakeOverheadNs);
            }
            else
            {
                _idleAnywhere?.Remove(t.Index);
            }

            return;
        }

        t.Home = home;
        if (home < 0)
        {
            return; // it stops serving at its next boundary (Dispatch finds no home)
        }

        if (t.Serving == home)
        {
            // Inside a task of the new owner already (lent to it, or moved back before it left): the core serves it.
            t.Lent = false;
            Arrive(core, 0);
            return;
        }

        if (!_options.StandbyHandover)
        {
            return; // it moves at its next task boundary (Dispatch sees Serving != Home)
        }

        var other = Other(t);
        if (other.Busy && other.Retiring && other.Serving == home)
        {
            // Swap back: the thread still finishing the new owner's task becomes the server again; the current one
            // retires at its next boundary. The core is running the new owner's task: arrived.
            other.Retiring = false;
            other.Home = home;
            other.Lent = false;
            t.Retiring = true;
            _activeThread[core] = other.Index;
            Arrive(core, 0);
            return;
        }

        // The standby (if parked) watches; if both threads are inside tasks, the move waits for the first to end:
        // the server's boundary (Dispatch) or the retiring thread's, which then watches (OnTaskDone).
        WatchServer(t, wake: true);
    }

    /// <summary>
    /// The parked standby of <paramref name="server"/>'s core, with a move pending and the server inside a task of
    /// another program: takes over now if that task has run the threshold, else checks again when it will have.
    /// </summary>
    private void WatchServer(SimThread server, bool wake)
    {
        if (!_options.StandbyHandover || _pendingMove[server.Core] < 0 || !server.Busy || server.Home < 0 || server.Serving == server.Home || !Other(server).Inactive)
        {
            return;
        }

        long due = server.TaskStartedAt + _handoverThreshold;
        if (due <= _now)
        {
            TakeOver(server, wake);
        }
        else
        {
            // Re-checked then: the server may have reached its boundary (and moved) or started another task meanwhile.
            // A standby sleeping through the threshold is woken by its timer: the wake cost applies.
            Schedule(due, HandoverEvent, server.Index, server.TaskSerial);
        }
    }

    private void OnHandoverDue(SimThread server, int serial)
    {
        if (server.TaskSerial == serial && _activeThread[server.Core] == server.Index)
        {
            WatchServer(server, wake: true);
        }
    }

    /// <summary>Standby handover: the core's other thread becomes its server and serves the new owner now.</summary>
    private void TakeOver(SimThread server, bool wake)
    {
        var standby = Other(server);
        int home = server.Home;
        server.Retiring = true;
        standby.Inactive = false;
        standby.Home = home;
        standby.Serving = home;
        standby.Lent = false;
        long cost = wake ? _options.WakeOverheadNs : 0;
        // The standby's first task also finds the core's caches holding the old task's data (the machine's refill).
        standby.PendingCost = cost + _handoverRefillNs;
        _activeThread[server.Core] = standby.Index;
        _moveCount++;
        _handoverCount++;
        Arrive(server.Core, cost);
        // Time-shares the core with the unfinished task from now on (same CPU group); may lend itself if home is dry.
        Dispatch(standby);
    }

    /// <summary>The other thread slot of a partitioning core (standby handover).</summary>
    private SimThread Other(SimThread t) => _threads[t.Index < _cores ? t.Index + _cores : t.Index - _cores];

    /// <summary>Records the arrival of the core's pending move, if any, <paramref name="extraNs"/> after now.</summary>
    private void Arrive(int core, long extraNs)
    {
        int index = _pendingMove[core];
        if (index < 0)
        {
            return;
        }

        _pendingMove[core] = -1;
        var move = _moves[index];
        _moves[index] = move with { Latency = Time(_now + extraNs) - move.DecidedAt };
    }

    private void ApplyScripted(int index)
    {
        var (_, core, program) = Script![index];
        _decisionCount++;
        ChangeHome(core, program);
        _allocations.Add(new SimulatedAllocation(Time(_now), [.. _homeCount]));
        foreach (var set in _sets)
        {
            WakeIdle(set);
        }
    }
}
