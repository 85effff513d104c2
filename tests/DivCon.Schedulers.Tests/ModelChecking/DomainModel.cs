namespace DivCon.Schedulers.Tests.ModelChecking;

/// <summary>Deliberate protocol bugs the domain model can contain, to show that the checker finds them.</summary>
internal enum DomainMutation
{
    /// <summary>The protocol as built.</summary>
    None,

    /// <summary>The coordinator grants a CPU while another process's unacknowledged grant still holds it.</summary>
    NoHandoverWait,

    /// <summary>A newly elected coordinator grants at once, while its predecessor's grants are still in their lease.</summary>
    NoGrace,

    /// <summary>A process dropped for silence releases its CPUs at once, while its last grant is still in its lease.</summary>
    ReleaseSilentAtDrop,
}

/// <summary>
/// The cross-process domain's state machine (src/Schedulers/Multiprogram/Domain/README.md): processes that elect a
/// coordinator through the lock file, join, receive grants with leases, acknowledge them in reports, expire them,
/// die (SIGKILL: the kernel releases the lock and closes the socket), freeze (SIGSTOP / a debugger: no reports for
/// longer than a lease) and rejoin; the coordinator's decisions with the handover rule, the silence drop and the
/// grace period after a re-election.
/// </summary>
/// <remarks>
/// <para>
/// This is a message protocol, not a memory-ordering one, so it is written as guarded atomic actions: each model
/// thread is one kind of action of one actor (a process's join, receive, report, expiry, closure, death, freeze; the
/// coordinator's decision and its reading of a closed connection; the clock). A handler checks its guard on the
/// state (read with <see cref="Execution.Peek"/>), blocks when it is false (a wait on a cell that is always 0), and
/// otherwise updates the state (<see cref="Execution.SetGhost"/>) and ends its step with one load. The explorer
/// then interleaves the actions in every order, under sequential consistency.
/// </para>
/// <para>
/// Time is discrete ticks with urgency: the clock advances only when no other action is enabled (actions take no
/// time), up to a horizon. Leases are <c>Lease</c> ticks; the coordinator decides once per tick and again at once on
/// a join, a closed connection or an acknowledgement that frees a withheld CPU. Disruptions (deaths, one freeze)
/// happen up to tick <c>LastDisruption</c>; the horizon leaves time to recover.
/// </para>
/// <para>
/// Invariants: in every state, no CPU is in the unexpired grants of two live processes (a grant counts from the
/// moment the process installs it until its absolute expiry, whether or not the process has noticed); a grant slot
/// can always be recorded (the bounds of the model hold). In every terminal state (the horizon, nothing enabled:
/// a state before the horizon where nothing can move would be a deadlock and is reported as one): a coordinator
/// exists if any process lives, every live process is joined, and every CPU is in a live process's valid grant
/// (nothing is held for a dead or departed process).
/// </para>
/// <para>
/// Abstractions: joining (connect, hello, welcome) is one action; a report and its handling by the coordinator are
/// one action (a report only tells what the client already installed, so delivering it late only makes the
/// coordinator more cautious); a process's socket keeps the newest two grants in flight (older ones are superseded
/// anyway; what the coordinator accounts for is every grant it sent until acknowledged or expired). The policy is
/// an equal split of the CPUs round-robin over the joined processes in index order. A dead process does not
/// restart (a restart is a new process).
/// </para>
/// </remarks>
internal sealed class DomainModel : Model
{
    private const int Slots = 2;

    // _requestDecide: nothing pending; a decision due at once (a join); the last decision withheld a CPU; an
    // acknowledgement freed one (complete the handover).
    private const int Idle = 0;
    private const int DecideNow = 1;
    private const int Withholding = 2;
    private const int HandoverDue = 3;

    // Process action kinds (one thread each per process).
    private const int Join = 0;
    private const int ReceiveGrant = 1;
    private const int Report = 2;
    private const int Expire = 3;
    private const int NoticeClosure = 4;
    private const int Die = 5;
    private const int Freeze = 6;
    private const int ProcessActions = 7;

    private readonly int _processes;
    private readonly int _cpus;
    private readonly int _lease;
    private readonly int _lastDisruption;
    private readonly int _horizon;
    private readonly int _maxDeaths;
    private readonly bool _allowFreeze;
    private readonly DomainMutation _mutation;

    private readonly int _tick;
    private readonly int _never;
    private readonly int _lockOwner;
    private readonly int _generation;
    private readonly int _graceUntil;
    private readonly int _decidedAt;
    private readonly int _requestDecide;
    private readonly int _deaths;
    private readonly int _freezes;
    private readonly int _everElected;
    private readonly Cells[] _p;

    /// <summary>Creates the model.</summary>
    /// <param name="processes">Processes (2 or 3).</param>
    /// <param name="cpus">CPUs of the machine (every process may use all).</param>
    /// <param name="lease">Lease in ticks.</param>
    /// <param name="lastDisruption">Last tick at which a process may die or freeze.</param>
    /// <param name="maxDeaths">Deaths allowed in a run.</param>
    /// <param name="allowFreeze">Whether one process may freeze for longer than a lease.</param>
    /// <param name="mutation">A deliberate bug, or none.</param>
    public DomainModel(int processes, int cpus, int lease, int lastDisruption, int maxDeaths, bool allowFreeze, DomainMutation mutation = DomainMutation.None)
        : base(
            $"domain: {processes} processes, {cpus} CPUs, lease {lease}, disruptions until tick {lastDisruption} ({maxDeaths} deaths{(allowFreeze ? ", a freeze" : string.Empty)}){(mutation == DomainMutation.None ? string.Empty : $", mutation {mutation}")}",
            locals: 4,
            maxFrames: 1,
            bufferCapacity: 0)
    {
        _processes = processes;
        _cpus = cpus;
        _lease = lease;
        _lastDisruption = lastDisruption;
        _horizon = lastDisruption + (3 * lease) + 3;
        _maxDeaths = maxDeaths;
        _allowFreeze = allowFreeze;
        _mutation = mutation;
        _tick = Allocate("tick");
        _never = Allocate("never");
        _lockOwner = Allocate("lock owner (process + 1)");
        _generation = Allocate("coordinator generation");
        _graceUntil = Allocate("grace until");
        _decidedAt = Allocate("decided at tick", -1);
        _requestDecide = Allocate("decide now");
        _deaths = Allocate("deaths");
        _freezes = Allocate("freezes");
        _everElected = Allocate("a coordinator existed");
        _p = new Cells[processes];
        for (int i = 0; i < processes; i++)
        {
            _p[i] = new Cells(this, i);
        }
    }

    /// <inheritdoc />
    /// <summary>Whether some explored execution completed a handover without a decision (the path is reached).</summary>
    public bool HandoversCompleted { get; private set; }

    /// <inheritdoc />
    public override int ThreadCount => 2 + (ProcessActions * _processes);

    private int AllCpus => (1 << _cpus) - 1;

    /// <inheritdoc />
    public override string ThreadName(int thread) => thread switch
    {
        0 => "clock",
        1 => "coordinator",
        _ => $"P{(thread - 2) / ProcessActions}.{ActionName((thread - 2) % ProcessActions)}",
    };

    /// <inheritdoc />
    public override void Execute(Execution x, int routine, int pc)
    {
        x.Where = ThreadName(x.Thread);
        if (!Enabled(x, x.Thread))
        {
            x.Wait(_never);
            return;
        }

        Act(x, x.Thread);
        foreach (var p in _p)
        {
            Renumber(x, p);
        }

        x.Load(_tick); // ends the atomic step
    }

    /// <inheritdoc />
    public override string? CheckState(Execution x)
    {
        int t = x.Peek(_tick);
        for (int i = 0; i < _processes; i++)
        {
            for (int j = i + 1; j < _processes; j++)
            {
                int shared = ValidHold(x, i, t) & ValidHold(x, j, t);
                if (shared != 0)
                {
                    return $"CPU mask {shared} is granted to live processes P{i} and P{j} in overlapping leases at tick {t}";
                }
            }
        }

        return null;
    }

    /// <inheritdoc />
    public override string? CheckTerminal(Execution x)
    {
        int t = x.Peek(_tick);
        if (t < _horizon)
        {
            return $"deadlock: nothing can move at tick {t}, before the horizon {_horizon}";
        }

        var alive = Enumerable.Range(0, _processes).Where(i => x.Peek(_p[i].Alive) == 1).ToArray();
        if (alive.Length == 0)
        {
            return null;
        }

        if (x.Peek(_lockOwner) == 0)
        {
            return "no coordinator although processes live";
        }

        foreach (int i in alive)
        {
            if (x.Peek(_p[i].Member) == 0 || x.Peek(_p[i].Connection) != x.Peek(_generation))
            {
                return $"P{i} lives but is not joined at the horizon";
            }
        }

        int held = alive.Aggregate(0, (mask, i) => mask | ValidHold(x, i, t));
        return held == AllCpus ? null : $"CPU mask {AllCpus & ~held} is held by no live process at the horizon (lost to a dead or departed process)";
    }

    /// <inheritdoc />
    protected override void StartThread(Execution x, int thread) => x.Call(thread, returnPc: 0);

    private static string ActionName(int action) => action switch
    {
        Join => "join",
        ReceiveGrant => "receive grant",
        Report => "report",
        Expire => "expire lease",
        NoticeClosure => "notice closure",
        Die => "die (SIGKILL)",
        _ => "freeze (SIGSTOP)",
    };

    private int ValidHold(Execution x, int i, int t)
    {
        var p = _p[i];
        return x.Peek(p.Alive) == 1 && x.Peek(p.HasGrant) == 1 && t < x.Peek(p.GrantExpiry) ? x.Peek(p.Hold) : 0;
    }

    private bool Enabled(Execution x, int thread)
    {
        int t = x.Peek(_tick);
        if (thread == 0)
        {
            if (t >= _horizon)
            {
                return false;
            }

            // Urgency: time passes only when no protocol action is left. Deaths and freezes are not urgent: they
            // may happen at any tick, or not at all.
            for (int other = 1; other < ThreadCount; other++)
            {
                int action = (other - 2) % ProcessActions;
                if (other >= 2 && action is Die or Freeze)
                {
                    continue;
                }

                if (Enabled(x, other))
                {
                    return false;
                }
            }

            return true;
        }

        if (thread == 1)
        {
            return CoordinatorRuns(x) && (x.Peek(_decidedAt) < t || x.Peek(_requestDecide) is HandoverDue or DecideNow || AnyClosed(x));
        }

        int i = (thread - 2) / ProcessActions;
        var p = _p[i];
        bool running = x.Peek(p.Alive) == 1 && x.Peek(p.Frozen) == 0;
        int connection = x.Peek(p.Connection);
        return ((thread - 2) % ProcessActions) switch
        {
            Join => running && connection == 0,
            ReceiveGrant => running && connection != 0 && x.Peek(p.InFlight) > 0,
            Report => running && connection != 0 && connection == x.Peek(_generation) && CoordinatorRuns(x) && x.Peek(p.Member) == 1
                && (x.Peek(p.LastReport) < t || x.Peek(p.AckSeen) < x.Peek(p.GrantEpoch)),
            Expire => running && x.Peek(p.HasGrant) == 1 && t >= x.Peek(p.GrantExpiry),

            // The client sees the end of its connection once it has read what was sent before it: its coordinator
            // died (the lock is free or another generation holds it) or dropped it.
            NoticeClosure => running && connection != 0 && x.Peek(p.InFlight) == 0
                && (connection != x.Peek(_generation) || x.Peek(_lockOwner) == 0 || x.Peek(p.Member) == 0),
            Die => x.Peek(p.Alive) == 1 && t <= _lastDisruption && x.Peek(_deaths) < _maxDeaths,
            _ => _allowFreeze && running && t <= _lastDisruption && x.Peek(_freezes) == 0,
        };
    }

    /// <summary>A coordinator exists and its process is not frozen (its thread stops with the process).</summary>
    private bool CoordinatorRuns(Execution x)
    {
        int owner = x.Peek(_lockOwner);
        return owner != 0 && x.Peek(_p[owner - 1].Frozen) == 0;
    }

    private bool AnyClosed(Execution x)
    {
        for (int i = 0; i < _processes; i++)
        {
            if (x.Peek(_p[i].Member) == 1 && x.Peek(_p[i].ClosedByPeer) == 1)
            {
                return true;
            }
        }

        return false;
    }

    private void Act(Execution x, int thread)
    {
        int t = x.Peek(_tick);
        if (thread == 0)
        {
            x.SetGhost(_tick, t + 1);
            foreach (var p in _p)
            {
                if (x.Peek(p.Frozen) == 1 && x.Peek(p.FrozenUntil) <= t + 1)
                {
                    x.SetGhost(p.Frozen, 0);
                }
            }

            return;
        }

        if (thread == 1)
        {
            // As the code: an acknowledgement that frees a withheld CPU completes the decision's handover, with no new
            // decision; a decision due (the tick, a join, a closed connection) decides, which subsumes it.
            if (x.Peek(_requestDecide) == HandoverDue && x.Peek(_decidedAt) == t && !AnyClosed(x))
            {
                CompleteHandovers(x, t);
            }
            else
            {
                Decide(x, t);
            }

            return;
        }

        int i = (thread - 2) / ProcessActions;
        var me = _p[i];
        switch ((thread - 2) % ProcessActions)
        {
            case Join:
                if (x.Peek(_lockOwner) == 0)
                {
                    // Elected: the lock was free. A new coordinator knows nothing of earlier grants: every earlier
                    // connection is gone with its predecessor.
                    int generation = x.Peek(_generation) + 1;
                    x.SetGhost(_lockOwner, i + 1);
                    x.SetGhost(_generation, generation);
                    x.SetGhost(_graceUntil, x.Peek(_everElected) == 1 && _mutation != DomainMutation.NoGrace ? t + _lease : t);
                    x.SetGhost(_everElected, 1);
                    x.SetGhost(_decidedAt, -1);
                    foreach (var p in _p)
                    {
                        x.SetGhost(p.Member, 0);
                        x.SetGhost(p.ClosedByPeer, 0);
                        x.SetGhost(p.AckSeen, 0);
                        for (int s = 0; s < Slots; s++)
                        {
                            ClearSlot(x, p.Outstanding[s]);
                            ClearSlot(x, p.Silent[s]);
                        }
                    }
                }

                x.SetGhost(me.Connection, x.Peek(_generation));
                x.SetGhost(me.Member, 1);
                x.SetGhost(me.ClosedByPeer, 0);
                x.SetGhost(me.LastReport, t);
                x.SetGhost(me.AckSeen, 0);
                x.SetGhost(me.GrantEpoch, 0);
                x.SetGhost(_requestDecide, DecideNow);
                return;
            case ReceiveGrant:
                int epoch = x.Peek(me.Mailbox[0].Epoch);
                int expiry = x.Peek(me.Mailbox[0].Expiry);
                int cpus = x.Peek(me.Mailbox[0].Cpus);
                CopySlot(x, me.Mailbox[1], me.Mailbox[0]);
                ClearSlot(x, me.Mailbox[1]);
                x.SetGhost(me.InFlight, x.Peek(me.InFlight) - 1);
                if (epoch > x.Peek(me.GrantEpoch) && expiry > t)
                {
                    x.SetGhost(me.HasGrant, 1);
                    x.SetGhost(me.Hold, cpus);
                    x.SetGhost(me.GrantExpiry, expiry);
                    x.SetGhost(me.GrantEpoch, epoch);
                }

                return;
            case Report:
                x.SetGhost(me.LastReport, t);
                int applied = x.Peek(me.GrantEpoch);
                int superseded = 0;
                for (int s = 0; s < Slots; s++)
                {
                    if (x.Peek(me.Outstanding[s].Expiry) != 0 && x.Peek(me.Outstanding[s].Epoch) < applied)
                    {
                        superseded |= x.Peek(me.Outstanding[s].Cpus);
                        ClearSlot(x, me.Outstanding[s]);
                    }
                }

                x.SetGhost(me.AckSeen, applied);

                // Complete the handover at once only when the superseded grants held a CPU withheld from some process
                // and nothing blocks it for that process any more (as the code: any acknowledgement supersedes a grant,
                // so acting on every one while a CPU is withheld would act without end while its holder is silent).
                if (x.Peek(_requestDecide) == Withholding && FreesWithheld(x, superseded))
                {
                    x.SetGhost(_requestDecide, HandoverDue);
                }

                return;
            case Expire:
                x.SetGhost(me.HasGrant, 0);
                x.SetGhost(me.Hold, 0);
                return;
            case NoticeClosure:
                // The client drops its grant before it closes its end (the coordinator may then reassign at once).
                x.SetGhost(me.HasGrant, 0);
                x.SetGhost(me.Hold, 0);
                x.SetGhost(me.Connection, 0);
                ClearMailbox(x, me);
                if (x.Peek(me.Member) == 1)
                {
                    x.SetGhost(me.ClosedByPeer, 1);
                }

                return;
            case Die:
                x.SetGhost(_deaths, x.Peek(_deaths) + 1);
                x.SetGhost(me.Alive, 0);
                x.SetGhost(me.HasGrant, 0);
                x.SetGhost(me.Hold, 0);
                ClearMailbox(x, me);
                x.SetGhost(me.Connection, 0);
                if (x.Peek(_lockOwner) == i + 1)
                {
                    x.SetGhost(_lockOwner, 0); // the kernel releases the flock; the coordinator thread is gone
                }
                else if (x.Peek(me.Member) == 1)
                {
                    x.SetGhost(me.ClosedByPeer, 1); // the kernel closes the socket
                }

                return;
            default:
                x.SetGhost(_freezes, 1);
                x.SetGhost(me.Frozen, 1);
                x.SetGhost(me.FrozenUntil, t + _lease + 1);
                return;
        }
    }

    /// <summary>Whether a CPU of <paramref name="superseded"/> was withheld from a process and is blocked for it no more.</summary>
    private bool FreesWithheld(Execution x, int superseded)
    {
        for (int r = 0; r < _processes; r++)
        {
            int freed = x.Peek(_p[r].Withheld) & superseded;
            if (freed != 0 && (freed & ~Blocked(x, r)) != 0)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>The CPUs the handover rule withholds from process <paramref name="recipient"/>: in another's outstanding grants or in a silent holding.</summary>
    private int Blocked(Execution x, int recipient)
    {
        int blocked = 0;
        for (int j = 0; j < _processes; j++)
        {
            for (int s = 0; s < Slots; s++)
            {
                if (j != recipient && _mutation != DomainMutation.NoHandoverWait)
                {
                    blocked |= x.Peek(_p[j].Outstanding[s].Cpus);
                }

                blocked |= x.Peek(_p[j].Silent[s].Cpus);
            }
        }

        return blocked;
    }

    private void Decide(Execution x, int t)
    {
        // Closed connections: their CPUs are free at once (the client dropped its grant first, or is dead).
        foreach (var p in _p)
        {
            if (x.Peek(p.Member) == 1 && x.Peek(p.ClosedByPeer) == 1)
            {
                x.SetGhost(p.Member, 0);
                x.SetGhost(p.ClosedByPeer, 0);
                for (int s = 0; s < Slots; s++)
                {
                    ClearSlot(x, p.Outstanding[s]);
                }
            }
        }

        // Silent processes are dropped; their unexpired grants keep blocking until they expire. (The code drops after
        // more than a lease of silence; in whole ticks the model drops at a lease, as early as the code can.)
        foreach (var p in _p)
        {
            if (x.Peek(p.Member) == 1 && t - x.Peek(p.LastReport) >= _lease)
            {
                x.SetGhost(p.Member, 0);
                for (int s = 0; s < Slots; s++)
                {
                    if (_mutation != DomainMutation.ReleaseSilentAtDrop && x.Peek(p.Outstanding[s].Expiry) > t)
                    {
                        if (!AddSlot(x, p.Silent, x.Peek(p.Outstanding[s].Cpus), 0, x.Peek(p.Outstanding[s].Expiry)))
                        {
                            x.Fail("model bound: more than two silent holdings of one process");
                            return;
                        }
                    }

                    ClearSlot(x, p.Outstanding[s]);
                }
            }
        }

        foreach (var p in _p)
        {
            for (int s = 0; s < Slots; s++)
            {
                if (x.Peek(p.Outstanding[s].Expiry) != 0 && x.Peek(p.Outstanding[s].Expiry) <= t)
                {
                    ClearSlot(x, p.Outstanding[s]);
                }

                if (x.Peek(p.Silent[s].Expiry) != 0 && x.Peek(p.Silent[s].Expiry) <= t)
                {
                    ClearSlot(x, p.Silent[s]);
                }
            }
        }

        x.SetGhost(_decidedAt, t);
        x.SetGhost(_requestDecide, Idle);
        foreach (var p in _p)
        {
            x.SetGhost(p.Withheld, 0);
            x.SetGhost(p.Target, 0);
        }

        if (t < x.Peek(_graceUntil))
        {
            return;
        }

        var members = Enumerable.Range(0, _processes).Where(i => x.Peek(_p[i].Member) == 1).ToArray();
        bool withheld = false;
        for (int k = 0; k < members.Length; k++)
        {
            var p = _p[members[k]];
            int target = 0;
            for (int c = 0; c < _cpus; c++)
            {
                if (c % members.Length == k)
                {
                    target |= 1 << c;
                }
            }

            int grant = target & ~Blocked(x, members[k]);
            withheld |= grant != target;
            x.SetGhost(p.Withheld, target & ~grant);
            x.SetGhost(p.Target, target);
            SendGrant(x, p, grant, t + _lease);
        }

        if (withheld)
        {
            x.SetGhost(_requestDecide, Withholding); // complete the handover when an acknowledgement frees something
        }
    }

    /// <summary>
    /// The code's handover completion: each member something was withheld from, once the handover rule no longer
    /// blocks part of it, gets the last decision's target for it minus what is still blocked, under that decision's
    /// lease (the model completes only in the tick of the decision, so its lease is <c>t + Lease</c>).
    /// </summary>
    private void CompleteHandovers(Execution x, int t)
    {
        HandoversCompleted = true;
        bool withheld = false;
        for (int i = 0; i < _processes; i++)
        {
            var p = _p[i];
            int pending = x.Peek(p.Withheld);
            if (x.Peek(p.Member) == 0 || pending == 0)
            {
                continue;
            }

            int blocked = Blocked(x, i);
            if ((pending & ~blocked) != 0)
            {
                int target = x.Peek(p.Target);
                int grant = target & ~blocked;
                x.SetGhost(p.Withheld, target & ~grant);
                SendGrant(x, p, grant, t + _lease);
            }

            withheld |= x.Peek(p.Withheld) != 0;
        }

        x.SetGhost(_requestDecide, withheld ? Withholding : Idle);
    }

    /// <summary>Sends a grant: recorded as outstanding (the coordinator's account) and put in the process's socket.</summary>
    private static void SendGrant(Execution x, Cells p, int grant, int expiry)
    {
        int epoch = MaxEpoch(x, p) + 1;

        // Grants acknowledged or superseded: keep only what the process may still hold.
        if (!AddSlot(x, p.Outstanding, grant, epoch, expiry))
        {
            // Both slots hold unacknowledged, unexpired grants: drop the older into the same account by
            // merging (conservative: the union stays blocked until the later expiry).
            MergeOldest(x, p.Outstanding);
            AddSlot(x, p.Outstanding, grant, epoch, expiry);
        }

        // The socket keeps the newest two grants in flight.
        if (x.Peek(p.InFlight) == Slots)
        {
            CopySlot(x, p.Mailbox[1], p.Mailbox[0]);
            ClearSlot(x, p.Mailbox[1]);
            x.SetGhost(p.InFlight, Slots - 1);
        }

        int at = x.Peek(p.InFlight);
        x.SetGhost(p.Mailbox[at].Cpus, grant);
        x.SetGhost(p.Mailbox[at].Epoch, epoch);
        x.SetGhost(p.Mailbox[at].Expiry, expiry);
        x.SetGhost(p.InFlight, at + 1);
    }

    /// <summary>Every epoch a process's cells refer to (its grant, its acknowledgement, in flight, outstanding).</summary>
    private static IEnumerable<int> EpochCells(Execution x, Cells p)
    {
        yield return p.GrantEpoch;
        yield return p.AckSeen;
        for (int s = 0; s < Slots; s++)
        {
            yield return p.Mailbox[s].Epoch;
            yield return p.Outstanding[s].Epoch;
            yield return p.Silent[s].Epoch;
        }
    }

    private static int MaxEpoch(Execution x, Cells p) => EpochCells(x, p).Max(x.Peek);

    /// <summary>
    /// Epochs matter only by their order and equality among one process's cells, so they are renumbered 1, 2, ...
    /// after every step (0 stays "none"): runs that differ only in how many decisions came before reach the same
    /// state, which keeps the state space finite and small.
    /// </summary>
    private static void Renumber(Execution x, Cells p)
    {
        var cells = EpochCells(x, p).ToArray();
        var ranks = cells.Select(x.Peek).Where(e => e != 0).Distinct().Order().Select((e, i) => (e, i + 1)).ToDictionary(r => r.e, r => r.Item2);
        foreach (int cell in cells)
        {
            int e = x.Peek(cell);
            if (e != 0)
            {
                x.SetGhost(cell, ranks[e]);
            }
        }
    }

    private static bool AddSlot(Execution x, Slot[] slots, int cpus, int epoch, int expiry)
    {
        foreach (var slot in slots)
        {
            if (x.Peek(slot.Expiry) == 0)
            {
                x.SetGhost(slot.Cpus, cpus);
                x.SetGhost(slot.Epoch, epoch);
                x.SetGhost(slot.Expiry, expiry);
                return true;
            }
        }

        return false;
    }

    private static void MergeOldest(Execution x, Slot[] slots)
    {
        int older = x.Peek(slots[0].Epoch) <= x.Peek(slots[1].Epoch) ? 0 : 1;
        int newer = 1 - older;
        x.SetGhost(slots[newer].Cpus, x.Peek(slots[newer].Cpus) | x.Peek(slots[older].Cpus));
        x.SetGhost(slots[newer].Expiry, Math.Max(x.Peek(slots[newer].Expiry), x.Peek(slots[older].Expiry)));
        // The merged account may be forgotten only once the process acknowledges a grant newer than both.
        x.SetGhost(slots[newer].Epoch, Math.Max(x.Peek(slots[newer].Epoch), x.Peek(slots[older].Epoch)));
        ClearSlot(x, slots[older]);
    }

    private static void ClearSlot(Execution x, Slot slot)
    {
        x.SetGhost(slot.Cpus, 0);
        x.SetGhost(slot.Epoch, 0);
        x.SetGhost(slot.Expiry, 0);
    }

    private static void CopySlot(Execution x, Slot from, Slot to)
    {
        x.SetGhost(to.Cpus, x.Peek(from.Cpus));
        x.SetGhost(to.Epoch, x.Peek(from.Epoch));
        x.SetGhost(to.Expiry, x.Peek(from.Expiry));
    }

    private static void ClearMailbox(Execution x, Cells p)
    {
        foreach (var slot in p.Mailbox)
        {
            ClearSlot(x, slot);
        }

        x.SetGhost(p.InFlight, 0);
    }

    private readonly record struct Slot(int Cpus, int Epoch, int Expiry);

    /// <summary>The cells of one process: its client's state and the coordinator's record of it.</summary>
    private sealed class Cells
    {
        public Cells(DomainModel m, int i)
        {
            string n = $"P{i}";
            Alive = m.Allocate($"{n}.alive", 1);
            Frozen = m.Allocate($"{n}.frozen");
            FrozenUntil = m.Allocate($"{n}.frozen until");
            Connection = m.Allocate($"{n}.connection (generation)");
            HasGrant = m.Allocate($"{n}.has grant");
            Hold = m.Allocate($"{n}.granted CPUs");
            GrantExpiry = m.Allocate($"{n}.grant expiry");
            GrantEpoch = m.Allocate($"{n}.grant epoch");
            InFlight = m.Allocate($"{n}.grants in flight");
            Mailbox = [.. Enumerable.Range(0, Slots).Select(s => NewSlot(m, $"{n}.in flight {s}"))];
            Member = m.Allocate($"{n}.joined (coordinator)");
            ClosedByPeer = m.Allocate($"{n}.connection closed (coordinator to read)");
            LastReport = m.Allocate($"{n}.last report");
            AckSeen = m.Allocate($"{n}.acknowledged epoch");
            Outstanding = [.. Enumerable.Range(0, Slots).Select(s => NewSlot(m, $"{n}.outstanding {s}"))];
            Silent = [.. Enumerable.Range(0, Slots).Select(s => NewSlot(m, $"{n}.silent holding {s}"))];
            Withheld = m.Allocate($"{n}.withheld from it (coordinator)");
            Target = m.Allocate($"{n}.last decision's CPUs for it (coordinator)");
        }

        public int Withheld { get; }

        public int Target { get; }

        public int Alive { get; }

        public int Frozen { get; }

        public int FrozenUntil { get; }

        public int Connection { get; }

        public int HasGrant { get; }

        public int Hold { get; }

        public int GrantExpiry { get; }

        public int GrantEpoch { get; }

        public int InFlight { get; }

        public Slot[] Mailbox { get; }

        public int Member { get; }

        public int ClosedByPeer { get; }

        public int LastReport { get; }

        public int AckSeen { get; }

        public Slot[] Outstanding { get; }

        public Slot[] Silent { get; }

        private static Slot NewSlot(DomainModel m, string name) =>
            new(m.Allocate($"{name}.cpus"), m.Allocate($"{name}.epoch"), m.Allocate($"{name}.expiry"));
    }
}
