using System.Diagnostics;

namespace DivCon.Schedulers.Workers;

/// <summary>
/// One CPU of a <see cref="WorkerPool"/>: its owner (<see cref="Home"/>, with the report of the move that made it
/// the owner), its worker threads (one, or two with a standby), and which of them is the <see cref="Server"/>, the
/// only one that takes new tasks for the CPU.
/// </summary>
/// <remarks>
/// The state machine and its named stores and fences ([M1] ... [M4], [W2]) are in <c>Workers/README.md</c>; the
/// handover as a feature in <c>Multiprogram/README.md</c> ("Standby handover"). In short: a
/// move that finds the server inside a task wakes the CPU's standby; once that task has run for
/// <see cref="HandoverThreshold"/>, the standby makes itself the server (one CAS) and serves the new owner while the
/// old server finishes its task (the operating system time-slices the two), then retires and becomes the standby.
/// </remarks>
internal sealed class CpuSlot
{
    private readonly Worker[] _workers;
    private MoveOrder _order;
    private Worker _server;
    private long _handovers;

    /// <summary>Creates the CPU's workers (their threads are started by the pool).</summary>
    /// <param name="pool">The pool.</param>
    /// <param name="index">The CPU's index in the pool.</param>
    /// <param name="cpuCount">The pool's CPU count (a standby's slot is <paramref name="index"/> + this).</param>
    /// <param name="initial">The set every worker serves first.</param>
    /// <param name="handoverThreshold">Stopwatch ticks a task must have run before a standby takes the CPU over;
    /// null: no standby.</param>
    public CpuSlot(WorkerPool pool, int index, int cpuCount, WorkQueueSet initial, long? handoverThreshold)
    {
        Index = index;
        HandoverThreshold = handoverThreshold ?? long.MaxValue;
        _order = new MoveOrder(initial, null);
        _workers = handoverThreshold is null
            ? [new Worker(pool, this, index, initial)]
            : [new Worker(pool, this, index, initial), new Worker(pool, this, index + cpuCount, initial)];
        _server = _workers[0];
    }

    /// <summary>The CPU's index in the pool (also the slot of its first worker in every queue set).</summary>
    public int Index { get; }

    /// <summary>The CPU's worker threads: one, or the first worker and its standby.</summary>
    public IReadOnlyList<Worker> Workers => _workers;

    /// <summary>Whether the CPU has a standby worker.</summary>
    public bool HasStandby => _workers.Length > 1;

    /// <summary>Stopwatch ticks a task must have run before the standby takes over (long.MaxValue: never).</summary>
    public long HandoverThreshold { get; }

    /// <summary>The current move order: the owner and the pending arrival report.</summary>
    public MoveOrder Order => Volatile.Read(ref _order); // Acquire: pairs with RequestMove's interlocked store.

    /// <summary>The set that owns the CPU.</summary>
    public WorkQueueSet Home => Order.Home;

    /// <summary>The worker that takes new tasks for this CPU.</summary>
    public Worker Server => Volatile.Read(ref _server); // Acquire: pairs with TryTakeOver's CAS.

    /// <summary>The set the CPU's server serves now (its owner, a program it is lent to, or the old owner until it moves).</summary>
    public WorkQueueSet Queues => Server.Queues;

    /// <summary>How many times a standby took this CPU over from a server inside a long task.</summary>
    public long Handovers => Interlocked.Read(ref _handovers); // Atomic 64-bit read on every platform.

    /// <summary>
    /// Any thread (the decision lock serialises callers): makes <paramref name="home"/> the owner. The server moves at
    /// its next task boundary; a parked server is woken to move; a server inside a task has the standby watch it.
    /// </summary>
    /// <param name="home">The new owner.</param>
    /// <param name="onArrival">Called once when a worker of this CPU first serves <paramref name="home"/>; null: nothing to report.</param>
    public void RequestMove(WorkQueueSet home, Action? onArrival)
    {
        // [M1] Publish the order with a full fence, so that it is visible before [M2]/[M3] read the workers' states:
        // the Dekker pairs with Worker.Park ([P1] Sleeping, [P2] fence, [P3] rereads the order) and with
        // Worker.StandBy ([S1] Standby, [S2] fence, [S3] rereads it). Whichever side reads second sees the other.
        var order = new MoveOrder(home, onArrival);
        Interlocked.Exchange(ref _order, order);
        // [M2] Wake a parked server: it goes home at the boundary after its wait. Without a standby an awake server
        // reads the order at its next boundary by itself.
        Worker server = Server;
        if (server.TryWake() || !HasStandby)
        {
            return;
        }

        // [M3] Activate: the server is awake; between tasks it moves itself, inside a long task the standby takes over.
        Worker partner = PartnerOf(server);
        if (partner.TryActivate())
        {
            return;
        }

        TrySwapBack(order, server, partner);
    }

    /// <summary>
    /// [M4] Swap back. Guard: the partner is not standing by because it is still finishing a task from before a
    /// handover, and that task belongs to the new owner (a move back): the partner serves the owner already, so it is
    /// made the server again (it stays at its next boundary instead of retiring) and the current server retires at
    /// its own. Otherwise the first of the two to reach a boundary serves the move (the one that retires finds the
    /// order pending at [S3] and watches).
    /// </summary>
    private void TrySwapBack(MoveOrder order, Worker server, Worker partner)
    {
        if (partner.IsInTask && ReferenceEquals(partner.Queues, order.Home) &&
            Interlocked.CompareExchange(ref _server, partner, server) == server)
        {
            // Full fence (the CAS): the partner, retiring concurrently, rechecks the server at [S3] after announcing
            // Standby; activate it in case it already blocked, wake the current server in case it parked (its [P3]
            // rechecks the server), and report: the CPU is running the new owner's task.
            partner.TryActivate();
            server.TryWake();
            order.Arrive();
        }
    }

    /// <summary>The other worker of this CPU (only with a standby).</summary>
    /// <param name="worker">One of the CPU's workers.</param>
    /// <returns>The other one.</returns>
    public Worker PartnerOf(Worker worker)
    {
        Debug.Assert(HasStandby, "Only a CPU with a standby has a partner.");
        return ReferenceEquals(_workers[0], worker) ? _workers[1] : _workers[0];
    }

    /// <summary>
    /// Standby thread only: becomes the server in place of <paramref name="server"/> if it is still the server (the
    /// other writer of the server field is <see cref="RequestMove"/>, under the decision lock, for a move back).
    /// </summary>
    /// <param name="standby">The calling worker.</param>
    /// <param name="server">The server it observed inside a long task.</param>
    /// <returns>Whether the caller is now the server.</returns>
    public bool TryTakeOver(Worker standby, Worker server)
    {
        // [W2] CAS: a take-over succeeds only against the server we observed; the full fence orders it before our reads of the
        // order and before the old server's wake-up.
        if (Interlocked.CompareExchange(ref _server, standby, server) != server)
        {
            return false;
        }

        Interlocked.Increment(ref _handovers); // Interlocked: read by monitors and tests.
        return true;
    }
}
