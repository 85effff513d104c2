namespace DivCon.Schedulers.Tests.ModelChecking;

/// <summary>Deliberate defects that the worker-pool model can carry, to show that the checker finds them.</summary>
[Flags]
internal enum PoolMutation
{
    /// <summary>The protocol as written.</summary>
    None = 0,

    /// <summary>
    /// (a) The sleeper-side fence: <c>AnnounceSleeper</c> without <c>Interlocked.MemoryBarrierProcessWide()</c>
    /// (WorkQueueSet.cs:347), the barrier that stands in for the fence local pushes do not have.
    /// </summary>
    OmitSleeperBarrier = 1,

    /// <summary>(b) The wake: producers publish a task without <c>WakeIfSleepers()</c> (WorkQueueSet.cs:147 and 163).</summary>
    OmitProducerWake = 2,

    /// <summary>
    /// (c) The move's home re-check: <c>Park</c> no longer rereads the CPU's order after announcing (Worker.Park [P3]:
    /// neither its home nor its pending report), the half of the Dekker pair that RequestMove relies on.
    /// </summary>
    OmitParkHomeRecheck = 4,

    /// <summary><c>RequestMove</c> publishes the new order but does not call <c>server.TryWake()</c> (CpuSlot.RequestMove [M2]).</summary>
    OmitMoveWake = 8,

    /// <summary><c>DrainLocalToGlobal</c> re-queues a moving worker's tasks without <c>WakeIfSleepers()</c> (WorkQueueSet.cs:331).</summary>
    OmitDrainWake = 16,

    /// <summary>
    /// <c>RequestMove</c> publishes the order with a plain <c>Volatile.Write</c> instead of Interlocked.Exchange
    /// (CpuSlot.RequestMove [M1]): the mover's half of the Dekker pair loses its fence.
    /// </summary>
    MoveWithoutFence = 32,

    /// <summary>
    /// A retiring worker announces <c>Standby</c> and blocks without its fence and its recheck of the order
    /// (Worker.StandBy [S2] and the first condition of [S3]): the standby's half of the Dekker pair with RequestMove.
    /// </summary>
    OmitStandbyRecheck = 64,

    /// <summary><c>RequestMove</c> does not activate the standby when the server is awake (CpuSlot.RequestMove [M3]).</summary>
    OmitStandbyActivation = 128,

    /// <summary>The standby takes the CPU over with a plain store of the server instead of a CAS (CpuSlot.TryTakeOver [W2]).</summary>
    TakeOverWithoutCas = 256,

    /// <summary>The standby takes over without waking the old server (Worker.TakeOver [W3]), which may have parked in its set.</summary>
    OmitTakeOverWake = 512,

    /// <summary>A retiring worker announces <c>Standby</c> and rechecks the order without the fence between (Worker.StandBy [S2]).</summary>
    OmitStandbyFence = 1024,
}

/// <summary>
/// A small configuration of <see cref="WorkerPoolModel"/>: queue sets (programs), workers with their homes, the
/// work that appears and the moves a rebalancer requests. Sets and workers are numbered from 0; tasks from 1.
/// </summary>
/// <param name="Name">Shown in results.</param>
internal sealed record PoolScenario(string Name)
{
    /// <summary>Queue sets (one per program; a single-set pool is a plain work-stealing scheduler).</summary>
    public int Sets { get; init; } = 1;

    /// <summary>CPUs, each with its first worker (W0, W1, ...) and, with <see cref="Standby"/>, its standby; every worker has one deque slot in every set.</summary>
    public int Workers { get; init; } = 2;

    /// <summary>
    /// Whether every CPU has a standby worker (the standby handover): worker W(c + <see cref="Workers"/>) is CPU c's
    /// standby, serving the pool's idle initial set. Every task then ends (a pending move must resolve).
    /// </summary>
    public bool Standby { get; init; }

    /// <summary>For each CPU, the set it owns and serves at the start; all 0 when empty.</summary>
    public int[] Homes { get; init; } = [];

    /// <summary>Whether the pool has a director (multiprogram): producers may then wake sleepers of other sets.</summary>
    public bool Director { get; init; }

    /// <summary>Whether the director lends idle workers to other sets (EnableLending).</summary>
    public bool Lending { get; init; }

    /// <summary>The worker that starts inside a running task, or -1.</summary>
    public int RunningWorker { get; init; } = -1;

    /// <summary>Tasks that the running task pushes onto its worker's deque (PushLocal), in order.</summary>
    public int[] PushedByRunningTask { get; init; } = [];

    /// <summary>
    /// Whether the running task keeps its worker busy for good after pushing (the worker never takes its own
    /// children back, so only a woken worker can run them); otherwise it returns to the worker loop.
    /// </summary>
    public bool RunningTaskNeverEnds { get; init; }

    /// <summary>Tasks already in a set's global queue at the start.</summary>
    public (int Set, int Task)[] InitialGlobal { get; init; } = [];

    /// <summary>External producers (one thread each): TryEnqueueExternal of a task into a set.</summary>
    public (int Set, int Task)[] External { get; init; } = [];

    /// <summary>Moves requested by one rebalancer thread, in order: CpuSlot.RequestMove of CPU <c>Cpu</c> to a set, with an arrival report.</summary>
    public (int Cpu, int Set)[] Moves { get; init; } = [];

    /// <summary>Spin rounds before parking (the code has 24; each only repeats TryTake).</summary>
    public int SpinRounds { get; init; }

    /// <summary>Slots per deque (the pool model does not grow deques; the deque model checks growth).</summary>
    public int DequeCapacity { get; init; } = 2;

    /// <summary>Slots per global queue (one segment that never wraps).</summary>
    public int GlobalCapacity { get; init; } = 3;

    /// <inheritdoc />
    public override string ToString() => Name;
}
