using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Simulator.Engine;

/// <summary>
/// Where a simulated worker's next task comes from: its move at a task boundary, going home from a loan, bursts
/// first, its home's queues (own deque, global queue, a random victim), lending to another program, and idling and
/// waking (the mechanism's director and worker rules, <c>Workers/README.md</c> in the schedulers).
/// </summary>
internal sealed partial class Simulation
{
    /// <summary>
    /// Gives an idle (or just finished) thread its next task, moving it first when its home changed; makes it idle
    /// when there is none. Returns whether it started a task.
    /// </summary>
    private bool Dispatch(SimThread t)
    {
        if (_partitioning)
        {
            if (t.Home < 0)
            {
                MakeIdle(t);
                return false;
            }

            if (t.Serving != t.Home)
            {
                bool ordered = _pendingMove[t.Core] >= 0 && _activeThread[t.Core] == t.Index;
                if (!t.Lent || ordered)
                {
                    // A decision moved this worker's core: it moves now, at a task boundary (a lent worker too: it
                    // serves its new owner at this boundary, and may lend itself again below if that has no work).
                    Drain(t);
                    t.Serving = t.Home;
                    t.Lent = false;
                    t.PendingCost += _options.MoveOverheadNs;
                    _moveCount++;
                    Arrive(t.Core, t.PendingCost);
                }
                else if (_sets[t.Home].Queued > 0 && !StaysForBurst(t))
                {
                    // Lent, and home has work again: go home.
                    Drain(t);
                    t.Serving = t.Home;
                    t.Lent = false;
                }
            }

            if (_lending && RoleOf(t.Serving) == BurstRole.Yields && BurstWithWork() is int burst and >= 0)
            {
                // Bursts first: a worker serving a yielding program serves a bursty one's queued tasks from this
                // boundary (its deque drained to the program it leaves, as every move of the mechanism's does).
                // Never its own home: a worker lent from a bursty home with queued tasks went home just above (in the
                // mechanism a race can get there, and Worker.YieldToBurst goes home then).
                System.Diagnostics.Debug.Assert(burst != t.Home, "A bursty home with queued tasks already took its worker back.");
                Drain(t);
                return LendTo(t, burst);
            }
        }

        if (TryTake(t, _sets[t.Serving]))
        {
            return true;
        }

        if (_lending)
        {
            if (t.Lent && t.Serving != t.Home)
            {
                // The borrower ran dry: back home first (its queues were empty when we left, but look again).
                t.Serving = t.Home;
                t.Lent = false;
                if (TryTake(t, _sets[t.Home]))
                {
                    return true;
                }
            }

            // Lend to another program with queued tasks, as the mechanism's director: in the last decision's lending
            // order when the policy gave one, else scanning from a rotating cursor; under a lending preference, the
            // runs in progress first (see LendingPreference).
            int target = BurstWithWork();
            if (target < 0)
            {
                target = LendTarget(t.Home);
            }

            if (target >= 0)
            {
                return LendTo(t, target);
            }
        }

        MakeIdle(t);
        return false;
    }

    private BurstRole RoleOf(int program) => _burstRoles is { } roles ? roles[program] : BurstRole.None;

    /// <summary>
    /// Lent from a yielding home to a bursty program that still has queued tasks: the loan outlasts the home's own
    /// work (the mechanism's <c>Worker.StaysLent</c>).
    /// </summary>
    private bool StaysForBurst(SimThread t) =>
        RoleOf(t.Home) == BurstRole.Yields && RoleOf(t.Serving) == BurstRole.Bursty && _sets[t.Serving].Queued > 0;

    /// <summary>The earliest registered bursty program with queued tasks (the mechanism's director); -1 when there is none.</summary>
    private int BurstWithWork()
    {
        if (_burstRoles is not { } roles)
        {
            return -1;
        }

        for (int s = 0; s < roles.Length; s++)
        {
            if (roles[s] == BurstRole.Bursty && _sets[s].Queued > 0)
            {
                return s;
            }
        }

        return -1;
    }

    /// <summary>
    /// The set an idle worker of <paramref name="home"/> is lent to: one with queued tasks other than its home, by the
    /// options' <see cref="LendingPreference"/> (<see cref="LendingChoice"/>); -1 when there is none.
    /// </summary>
    private int LendTarget(int home)
    {
        // Invariant (partitioning): set s is program s's, so its run state is _programs[s]'s.
        int count = _sets.Length;
        Span<int> queued = count <= 64 ? stackalloc int[count] : new int[count];
        Span<bool> rootOnly = count <= 64 ? stackalloc bool[count] : new bool[count];
        Span<long> runStart = count <= 64 ? stackalloc long[count] : new long[count];
        for (int s = 0; s < count; s++)
        {
            queued[s] = _sets[s].Queued;
            rootOnly[s] = _programs[s].RootQueued;
            runStart[s] = _programs[s].RunStart;
        }

        return LendingChoice.Choose(_options.LendingPreference, home, queued, rootOnly, runStart, _lendOrder, ref _lendCursor);
    }

    /// <summary>Lends <paramref name="t"/> to set <paramref name="s"/>, which has queued tasks, and takes one of them.</summary>
    private bool LendTo(SimThread t, int s)
    {
        t.Serving = s;
        t.Lent = true;
        _lendCount++;
        bool took = TryTake(t, _sets[s]);
        System.Diagnostics.Debug.Assert(took, "A set with queued tasks always yields one.");
        return took;
    }

    /// <summary>Own deque (LIFO), then the global queue (FIFO), then a random victim's deque (FIFO).</summary>
    private bool TryTake(SimThread t, QueueSet set)
    {
        if (set.Queued == 0)
        {
            return false;
        }

        var own = set.Deques[t.Slot];
        if (own.Count > 0)
        {
            long task = own.PopBottom();
            if (own.Count == 0)
            {
                set.NonEmpty.Remove(t.Slot);
            }

            set.Queued--;
            StartTask(t, task, 0);
            return true;
        }

        if (set.Global.Count > 0)
        {
            set.Queued--;
            StartTask(t, set.Global.PopTop(), 0);
            return true;
        }

        // Invariant: Queued > 0 and own deque and global queue empty, so some other deque is non-empty.
        int victim = set.NonEmpty.Random(_random);
        var deque = set.Deques[victim];
        long stolen = deque.PopTop();
        if (deque.Count == 0)
        {
            set.NonEmpty.Remove(victim);
        }

        set.Queued--;
        _stealCount++;
        StartTask(t, stolen, _options.StealOverheadNs);
        return true;
    }

    /// <summary>A thread leaving a set hands its deque's tasks to that set's global queue, oldest first (the mechanism's drain).</summary>
    private void Drain(SimThread t)
    {
        var set = _sets[t.Serving];
        var deque = set.Deques[t.Slot];
        if (deque.Count == 0)
        {
            return;
        }

        while (deque.Count > 0)
        {
            set.Global.PushBottom(deque.PopTop());
        }

        set.NonEmpty.Remove(t.Slot);
    }

    private void MakeIdle(SimThread t)
    {
        if (_partitioning && t.Home >= 0 && t.Serving != t.Home)
        {
            Drain(t);
            t.Serving = t.Home;
        }

        t.Lent = false;
        t.Idle = true;
        // An idle thread owes nothing: waking it charges the wake anew (and a pending move cost is void once idle).
        t.PendingCost = 0;
        if (t.Home >= 0)
        {
            // Invariant: an idle thread with a home is in its home's idle set (and, with lending, in _idleAnywhere);
            // a homeless one (before the first decision) is in neither.
            _sets[t.Home].Idle.Add(t.Index);
            _idleAnywhere?.Add(t.Index);
        }
    }

    private void Unidle(SimThread t)
    {
        t.Idle = false;
        if (t.Home >= 0)
        {
            _sets[t.Home].Idle.Remove(t.Index);
        }

        _idleAnywhere?.Remove(t.Index);
        t.PendingCost += _options.WakeOverheadNs;
    }

    /// <summary>
    /// While <paramref name="set"/> has queued tasks, wakes idle threads that may take them: its own first, then
    /// (partitioning with lending) idle workers of other programs, which lend themselves.
    /// </summary>
    private void WakeIdle(QueueSet set)
    {
        while (set.Queued > 0)
        {
            if (_pool && _busyThreads >= _poolGoal)
            {
                return; // the pool releases a worker only while fewer than its goal are processing work
            }

            int index;
            if (set.Idle.Count > 0)
            {
                index = set.Idle.Random(_random);
            }
            else if (_idleAnywhere is { Count: > 0 } anywhere)
            {
                index = anywhere.Random(_random);
            }
            else if (_pool && _threads.Length < _options.ThreadPoolMaxThreads)
            {
                index = AddPoolThread(); // below its goal with every thread busy, the pool creates one
            }
            else
            {
                return;
            }

            var t = _threads[index];
            Unidle(t);
            if (_pool)
            {
                // A pool worker released to take a request enters the dispatch loop: the gate's progress mark.
                _poolLastDispatch = _now;
            }

            if (!Dispatch(t))
            {
                return;
            }
        }
    }
}
