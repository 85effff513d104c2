using System.Collections.ObjectModel;
using System.Diagnostics;
using DivCon.Schedulers.Multiprogram.Decisions;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// Rebalancing: the snapshot from the scheduler's own counters, the one call of the decision pipeline
/// (<see cref="RebalanceDecider.Decide"/>), applying its moves, departures, history and events.
/// </summary>
public sealed partial class MultiprogramScheduler
{
    /// <summary>The last non-skipped decisions, oldest first (at most the options' HistoryCapacity).</summary>
    public IReadOnlyList<RebalanceEvent> History
    {
        get
        {
            lock (_gate)
            {
                return new ReadOnlyCollection<RebalanceEvent>([.. _history]);
            }
        }
    }

    /// <summary>Interval decisions skipped because the policy's last decision still stood (counted, not stored).</summary>
    public long SkippedDecisions => Interlocked.Read(ref _skippedDecisions); // Atomic 64-bit read on every platform.

    /// <summary>Every decision made, skipped ones included.</summary>
    public long DecisionCount => Interlocked.Read(ref _decisions); // Atomic 64-bit read on every platform.

    /// <summary>
    /// Workers owned by each live program, in registration order (sums to <see cref="WorkerCount"/> when any, less the
    /// CPUs a machine domain's grant withholds).
    /// </summary>
    public IReadOnlyList<ProgramAllocation> CurrentAllocation
    {
        get
        {
            lock (_gate)
            {
                return new ReadOnlyCollection<ProgramAllocation>(
                    [.. _programs.Select(p => new ProgramAllocation(p.ProgramId, p.CurrentCores))]);
            }
        }
    }

    /// <summary>Runs the policy now and applies the result (never skipped for <see cref="RebalanceReason.Manual"/>).</summary>
    /// <param name="reason">Why (default <see cref="RebalanceReason.Manual"/>); an <see cref="RebalanceReason.Interval"/> request may be skipped.</param>
    /// <returns>The decision.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="reason"/> is undefined.</exception>
    /// <exception cref="ObjectDisposedException">The scheduler was disposed.</exception>
    public RebalanceEvent Rebalance(RebalanceReason reason = RebalanceReason.Manual)
    {
        if (!Enum.IsDefined(reason))
        {
            throw new ArgumentOutOfRangeException(nameof(reason), reason, "Unknown rebalance reason.");
        }

        try
        {
            lock (_gate)
            {
                ObjectDisposedException.ThrowIf(IsDisposed, this);
                return DecideAndApply(reason);
            }
        }
        finally
        {
            DispatchEvents();
        }
    }

    /// <summary>
    /// Overrides the policy with an explicit allocation and applies it at once (a <see cref="RebalanceReason.Manual"/>
    /// decision). It stands (interval decisions keep it, and the starvation guard leaves it alone) until
    /// <see cref="ClearAllocationOverride"/>, until a program arrives or leaves, or until a program it gives no
    /// worker has queued tasks: then the next decision drops it and the policy decides again. Programs not listed
    /// get no worker.
    /// </summary>
    /// <remarks>
    /// Zero workers is allowed only for a program with no queued task (<see cref="ProgramTaskScheduler.AvailableTasks"/>
    /// is 0): such a program is idle, and work it receives later is served by lent workers until the next decision
    /// gives it a worker. A program with queued tasks must get at least one worker; when more programs have queued
    /// tasks than there are workers no explicit allocation can serve them all: leave the split to the policy, whose
    /// starvation guard time-shares the workers.
    /// </remarks>
    /// <param name="cores">Workers per live program; each at least 0 (at least 1 for a program with queued tasks),
    /// summing to <see cref="WorkerCount"/>.</param>
    /// <returns>The decision.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="cores"/> is null.</exception>
    /// <exception cref="ArgumentException">A program is not live here, is listed twice, has a negative count, the sum
    /// is wrong, or a program with queued tasks would get no worker (named, with its task count).</exception>
    /// <exception cref="ObjectDisposedException">The scheduler was disposed.</exception>
    public RebalanceEvent SetAllocation(IEnumerable<KeyValuePair<ProgramTaskScheduler, int>> cores)
    {
        ArgumentNullException.ThrowIfNull(cores);
        try
        {
            return SetAllocationCore(cores);
        }
        finally
        {
            DispatchEvents();
        }
    }

    private RebalanceEvent SetAllocationCore(IEnumerable<KeyValuePair<ProgramTaskScheduler, int>> cores)
    {
        lock (_gate)
        {
            ObjectDisposedException.ThrowIf(IsDisposed, this);
            var counts = new Dictionary<ProgramId, int>();
            long sum = 0;
            foreach (var (program, count) in cores)
            {
                if (program is null || !_programs.Contains(program))
                {
                    throw new ArgumentException($"Program {program} is not a live program of this scheduler.", nameof(cores));
                }

                if (count < 0)
                {
                    throw new ArgumentException($"Count {count} for {program} is negative.", nameof(cores));
                }

                if (!counts.TryAdd(program.ProgramId, count))
                {
                    throw new ArgumentException($"Program {program} is listed twice.", nameof(cores));
                }

                sum += count;
            }

            if (sum != WorkerCount)
            {
                throw new ArgumentException($"Counts sum to {sum}, not to the {WorkerCount} workers.", nameof(cores));
            }

            RequireNoStarvedProgram(counts);
            _policy.Set(counts);
            return DecideAndApply(RebalanceReason.Manual);
        }
    }

    /// <summary>Drops an explicit allocation and lets the policy decide again (a manual decision).</summary>
    /// <returns>The decision.</returns>
    /// <exception cref="ObjectDisposedException">The scheduler was disposed.</exception>
    public RebalanceEvent ClearAllocationOverride()
    {
        try
        {
            lock (_gate)
            {
                ObjectDisposedException.ThrowIf(IsDisposed, this);
                _policy.Set(null);
                return DecideAndApply(RebalanceReason.Manual);
            }
        }
        finally
        {
            DispatchEvents();
        }
    }

    /// <summary>Rebalancer thread: the periodic decision, plus a sweep that wakes parked workers to lend themselves.</summary>
    internal void OnInterval()
    {
        lock (_gate)
        {
            if (_programs.Length > 0)
            {
                DecideAndApply(RebalanceReason.Interval);
                ReclaimLentCpus();
            }
        }

        DispatchEvents();

        // Lending wake-ups on pushes are best effort; this sweep bounds how long a parked worker can miss work.
        if (_pool.Director is not null && _pool.Sleepers > 0)
        {
            foreach (ProgramTaskScheduler program in Volatile.Read(ref _programs)) // Acquire: a fully built array.
            {
                if (program.Queues.Sleepers == 0 && !program.Queues.LooksEmpty())
                {
                    _pool.WakeLender(program.Queues);
                }
            }
        }
    }

    /// <summary>
    /// Rebalancer thread (or a late caller, see <see cref="Rebalancer.RequestDeparture"/>): a drained program leaves
    /// and its workers are redistributed. Never on a worker: why, see the README ("Departure").
    /// </summary>
    /// <param name="program">The program.</param>
    internal void Depart(ProgramTaskScheduler program)
    {
        lock (_gate)
        {
            if (!_programs.Contains(program))
            {
                program.CompleteDeparture();
                return;
            }

            Debug.Assert(program.Queues.IsDrained, "A program leaves only when every accepted task has finished.");
            ProgramTaskScheduler[] programs = [.. _programs.Where(p => p != program)];
            Volatile.Write(ref _programs, programs); // Release: a fully built array for lock-free readers.
            _director.Sets = [.. programs.Select(p => p.Queues)];
            _policy.Set(null); // An explicit allocation naming the leaver no longer sums up.
            _early?.Departed(program.ProgramId);
            if (Instrumentation.EventsEnabled && MultiprogramEventSource.Log.IsEnabled())
            {
                MultiprogramEventSource.Log.ProgramDeparted(program.ProgramId.Value, program.Name);
            }

            DecideAndApply(RebalanceReason.Departure);
            program.SetCurrentCores(0);
        }

        DispatchEvents();
        program.CompleteDeparture();
    }

    /// <summary>Refuses an explicit allocation that gives no worker to a program with queued tasks.</summary>
    /// <param name="cores">Workers per listed program (unlisted programs get none).</param>
    private void RequireNoStarvedProgram(Dictionary<ProgramId, int> cores)
    {
        ProgramTaskScheduler[] busy = [.. _programs.Where(p => p.AvailableTasks > 0)];
        ProgramTaskScheduler? starved = busy.FirstOrDefault(p => cores.GetValueOrDefault(p.ProgramId) == 0);
        if (starved is null)
        {
            return;
        }

        string why = busy.Length > WorkerCount
            ? $" {busy.Length} programs have queued tasks and there are {WorkerCount} workers, so no explicit allocation can give each one; clear the override and let the policy time-share them."
            : " Give it at least one worker.";
        throw new ArgumentException(
            $"Program {starved} has {starved.AvailableTasks} queued tasks and would get no worker.{why}", nameof(cores));
    }

    private RebalanceEvent DecideAndApply(RebalanceReason reason)
    {
        Debug.Assert(Monitor.IsEntered(_gate), "Decisions run under the gate.");
        AllocationSnapshot snapshot = TakeSnapshot();
        long now = TimeProvider.GetTimestamp();
        RebalanceEvent decision = DecideByGrant(snapshot, reason, now) ?? _decider.Decide(snapshot, reason, now, RunningByCpu());
        _early?.Decided(TimeProvider.GetElapsedTime(_createdAt, now));
        UpdateSampleInterval(); // after arrivals (Register decides), early decisions and leaving the domain
        ApplyLendingOrder(snapshot);
        ApplyBurstRoles(snapshot, decision);
        PublishToDomain(snapshot);
        decision = decision with { Time = TimeProvider.GetElapsedTime(_createdAt, decision.Timestamp) };
        Interlocked.Increment(ref _decisions); // Interlocked: read lock-free by DecisionCount.
        if (decision.Skipped)
        {
            Interlocked.Increment(ref _skippedDecisions); // Interlocked: read lock-free by SkippedDecisions.
        }
        else
        {
            // The workers write the arrivals into the mechanism's record; the event carries its read-only view.
            var arrivals = new MoveArrivals(TimeProvider, decision.Timestamp, decision.Moves, _metrics?.MoveDuration);
            decision = decision with { Arrivals = arrivals };
            Apply(decision, arrivals);
            if (_historyCapacity > 0)
            {
                if (_history.Count == _historyCapacity)
                {
                    _history.Dequeue();
                }

                _history.Enqueue(decision);
            }
        }

        Publish(decision); // Raised by DispatchEvents once the caller has left the gate.
        return decision;
    }

    /// <summary>
    /// Under the gate: when the decision just made from <paramref name="snapshot"/> carries a lending order (the
    /// policy's, <see cref="AllocationDecision.LendingOrder"/>), idle workers lend themselves in that order until the
    /// next one; a decision without one (another policy, a machine domain's grant) leaves the order as it was.
    /// </summary>
    private void ApplyLendingOrder(AllocationSnapshot snapshot)
    {
        if (_decider.LastAppliedDecision is not { LendingOrder: { } order } applied || !ReferenceEquals(applied.Snapshot, snapshot) ||
            order.Count != _programs.Length)
        {
            return;
        }

        // The snapshot lists the programs in _programs' order (BuildSnapshot), so its indices are _programs' indices.
        _director.SetLendingOrder([.. order.Select(i => _programs[i].Queues)]);
    }

    /// <summary>
    /// Under the gate: the burst roles of the decision just made from <paramref name="snapshot"/>
    /// (<see cref="AllocationDecision.BurstRoles"/>) go to the director, which the workers ask at every boundary
    /// (bursts first, [B1] / [B2] in Workers/README.md); a decision without them (another policy, time sharing, a machine
    /// domain's grant) clears them, and a skipped decision leaves them as they were (the previous decision stands).
    /// </summary>
    private void ApplyBurstRoles(AllocationSnapshot snapshot, RebalanceEvent decision)
    {
        if (decision.Skipped)
        {
            return;
        }

        if (_decider.LastAppliedDecision is not { BurstRoles: { } roles } applied || !ReferenceEquals(applied.Snapshot, snapshot) ||
            roles.Count != _programs.Length)
        {
            _director.SetBurstRoles([], []);
            return;
        }

        // The snapshot lists the programs in _programs' order (BuildSnapshot), so its indices are _programs' indices.
        _director.SetBurstRoles(
            [.. Enumerable.Range(0, roles.Count).Where(i => roles[i] == BurstRole.Bursty).Select(i => _programs[i].Queues)],
            [.. Enumerable.Range(0, roles.Count).Where(i => roles[i] == BurstRole.Yields).Select(i => _programs[i].Queues)]);
    }

    /// <summary>
    /// The policy's input, read from the scheduler's own counters under the gate: per program its registration data,
    /// its queues' available tasks and its owned cores, and the serving workers of every program counted in one pass
    /// over the CPUs (racy by nature: workers move between tasks while it runs).
    /// </summary>
    private AllocationSnapshot TakeSnapshot()
    {
        CountWorkers(out var serving, out var running);
        return BuildSnapshot(serving, running, observe: true);
    }

    /// <summary>The snapshot from counts already taken by <see cref="CountWorkers"/>.</summary>
    /// <param name="serving">Serving workers per program's queues.</param>
    /// <param name="running">Running tasks per program's queues.</param>
    /// <param name="observe">Whether the snapshot feeds the estimators (a decision's) or only carries their latest
    /// estimates (a sample's view for the machine domain).</param>
    private AllocationSnapshot BuildSnapshot(Dictionary<WorkQueueSet, int> serving, Dictionary<WorkQueueSet, int> running, bool observe)
    {
        var states = new ProgramState[_programs.Length];
        long now = TimeProvider.GetTimestamp();
        for (int i = 0; i < states.Length; i++)
        {
            ProgramTaskScheduler p = _programs[i];
            long queued = p.Queues.AvailableTasks;
            int runningTasks = running.GetValueOrDefault(p.Queues);
            states[i] = new ProgramState(
                p.ProgramId,
                p.Speedup,
                (int)Math.Min(queued, int.MaxValue),
                p.CurrentCores,
                p.Scalability,
                serving.GetValueOrDefault(p.Queues),
                runningTasks)
            {
                // The estimator sees every decision, skipped ones included: its time base is the decisions' clock.
                Estimate = observe ? p.Observe(now, runningTasks, Math.Max(queued, 0)) : p.Estimate,
                Runs = p.RunsAt(now),
                ExpectedLifetime = p.ExpectedLifetime,
            };
        }

        return new AllocationSnapshot(WorkerCount, states);
    }

    /// <summary>
    /// One pass over the CPUs: per program's queues, the CPUs whose server takes its tasks and those inside one of
    /// its tasks (racy by nature: workers move between tasks while it runs).
    /// </summary>
    private void CountWorkers(out Dictionary<WorkQueueSet, int> serving, out Dictionary<WorkQueueSet, int> running)
    {
        serving = new Dictionary<WorkQueueSet, int>(_programs.Length);
        running = new Dictionary<WorkQueueSet, int>(_programs.Length);
        foreach (CpuSlot cpu in _pool.Cpus)
        {
            // Each CPU counts once, for the set its server takes tasks from (an old server finishing a task after
            // a handover is not counted). Server, its queues and its in-task flag are separate volatile reads: the
            // worker may start or end a task between them, which at worst counts one task too many or too few.
            Worker server = cpu.Server;
            WorkQueueSet queues = server.Queues;
            serving[queues] = serving.GetValueOrDefault(queues) + 1;
            if (server.IsInTask)
            {
                running[queues] = running.GetValueOrDefault(queues) + 1;
            }
        }
    }

    /// <summary>
    /// For each CPU inside a task now, the program whose queues that task came from: its server's, else a retiring
    /// server's still finishing one after a handover (the placement keeps such CPUs with their program where it can).
    /// Racy by nature, as <see cref="CountWorkers"/>: a task that starts or ends meanwhile at worst costs one handover
    /// or leaves one idle CPU in place.
    /// </summary>
    private Dictionary<int, ProgramId> RunningByCpu()
    {
        var running = new Dictionary<int, ProgramId>();
        for (int i = 0; i < WorkerCount; i++)
        {
            CpuSlot cpu = _pool.Cpus[i];
            Worker server = cpu.Server;
            Worker? inTask = server.IsInTask ? server : cpu.Workers.FirstOrDefault(w => w != server && w.IsInTask);
            if (inTask is not null && ProgramOf(inTask.Queues) is { } program)
            {
                running[_cpuOfWorker[i]] = program;
            }
        }

        return running;
    }

    /// <summary>
    /// Rebalancer thread, between decisions: feeds every program's estimator its running and queued tasks now, then
    /// makes the early decision (<see cref="RebalanceReason.FirstSignal"/>) when a program registered 10-20 ms ago has
    /// shown its first work (<see cref="EarlyDecision"/>).
    /// </summary>
    internal void OnSample()
    {
        bool decided = false;
        lock (_gate)
        {
            if (IsDisposed || _programs.Length == 0)
            {
                return;
            }

            CountWorkers(out var serving, out var running);
            long now = TimeProvider.GetTimestamp();
            foreach (ProgramTaskScheduler p in _programs)
            {
                p.Sample(now, running.GetValueOrDefault(p.Queues), Math.Max(p.Queues.AvailableTasks, 0));
            }

            if (_early is not null && _early.Pending > 0)
            {
                // The estimates read here are the ones just sampled (Sample does not publish them; Estimator.Current does).
                ProgramTaskScheduler[] programs = _programs;
                if (_early.IsDue(TimeProvider.GetElapsedTime(_createdAt, now), id => Array.Find(programs, p => p.ProgramId == id)?.Estimator.Current))
                {
                    DecideAndApply(RebalanceReason.FirstSignal);
                    ReclaimLentCpus();
                    decided = true;
                }

                // IsDue gives up on a program that showed no work (no decision, which would update it otherwise); every
                // other change of the pending programs is followed by a decision.
                UpdateSampleInterval();
            }

            if (_arbiter is not null && !_domainDetached)
            {
                // The domain client reports at once when a program became busy or idle; publishing at every sample
                // lets it see that within a sample interval instead of a decision interval.
                PublishToDomain(BuildSnapshot(serving, running, observe: false));
            }
        }

        if (decided)
        {
            DispatchEvents();
        }
    }

    private void Apply(RebalanceEvent decision, MoveArrivals arrivals)
    {
        // Make every worker's home match the placement (equivalent to applying decision.Moves, and robust to them).
        var setOf = _programs.ToDictionary(p => p.ProgramId, p => p.Queues);
        var moveOfCpu = new Dictionary<int, int>(decision.Moves.Count);
        for (int m = 0; m < decision.Moves.Count; m++)
        {
            moveOfCpu[decision.Moves[m].CpuId] = m;
        }

        int moved = 0;
        for (int i = 0; i < WorkerCount; i++)
        {
            ProgramId? owner = decision.Placement.OwnerOf(_cpuOfWorker[i]);
            WorkQueueSet home = owner is { } id && setOf.TryGetValue(id, out WorkQueueSet? set) ? set : _idle;
            CpuSlot cpu = _pool.Cpus[i];
            if (!ReferenceEquals(cpu.Home, home))
            {
                // The placement's moves are exactly the CPUs whose home changes, so every one has its index.
                int move = moveOfCpu.GetValueOrDefault(_cpuOfWorker[i], -1);
                if (move >= 0 && Instrumentation.EventsEnabled && MultiprogramEventSource.Log.IsEnabled())
                {
                    CpuMove m = decision.Moves[move];
                    MultiprogramEventSource.Log.Move(m.CpuId, m.From?.ToString() ?? "none", m.To?.ToString() ?? "none");
                }

                cpu.RequestMove(home, move < 0 ? null : () => arrivals.Arrive(move));
                moved++;
            }
        }

        Debug.Assert(moved == decision.Moves.Count, "The placement's moves are exactly the workers whose home changed.");
        foreach (ProgramAllocation allocation in decision.After)
        {
            _programs.First(p => p.ProgramId == allocation.Id).SetCurrentCores(allocation.Cores);
        }
    }
}
