using System.Diagnostics;

namespace DivCon.Schedulers.Workers;

/// <summary>
/// One CPU of a <see cref="WorkerPool"/>: its owner (<see cref="Home"/>, with the report of the move that made it
/// the owner), its worker threads (one, or two with a standby), and which of them is the <see cref="Server"/>, the
/// only one that takes new tasks for the CPU.
/// </summary>
/// <remarks>
/// The standby handover protocol is described in <c>Multiprogram/README.md</c> ("Standby handover"). In short: a
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
        // Full fence: the order is visible before we read the workers' states (Dekker pairs with Worker.Park, which
        // stores Sleeping and rereads the order, and with Worker.Standby, which stores Standby and rereads it).
        var order = new MoveOrder(home, onArrival);
        Interlocked.Exchange(ref _order, order);
        Worker server = Server;
        if (server.TryWake() || !HasStandby)
        {
            return;
        }

        // The server is awake: between tasks it moves itself; inside a long task the standby takes over.
        Worker partner = PartnerOf(server);
        if (partner.TryActivate())
        {
            return;
        }

        // No standby: the partner is still finishing a task from before a handover. When that task belongs to the
        // new owner (a move back), the partner serves it already: make it the server again (it stays at its next
        // boundary instead of retiring, and the current server retires at its own).
        if (partner.IsInTask && ReferenceEquals(partner.Queues, home) &&
            Interlocked.CompareExchange(ref _server, partner, server) == server)
        {
            // Full fence (the CAS): the partner, retiring concurrently, rechecks the server after announcing Standby.
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
        // CAS: a swap succeeds only against the server we observed; the full fence orders it before our reads of the
        // order and before the old server's wake-up.
        if (Interlocked.CompareExchange(ref _server, standby, server) != server)
        {
            return false;
        }

        Interlocked.Increment(ref _handovers); // Interlocked: read by monitors and tests.
        return true;
    }
}
