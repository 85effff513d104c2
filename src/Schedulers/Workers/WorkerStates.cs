using System.Diagnostics;

namespace DivCon.Schedulers.Workers;

/// <summary>The value of a worker's state word (<see cref="StateWord"/>); Workers/README.md, "States".</summary>
internal enum ParkState
{
    /// <summary>Running, spinning, or between a recheck and its outcome: nobody may release the semaphore.</summary>
    Awake = 0,

    /// <summary>Parked (or announcing) as a sleeper of the set it serves; producers and movers claim it.</summary>
    Sleeping = 1,

    /// <summary>Parked (or announcing) as its CPU's standby; only a mover or stop claims it, never a producer.</summary>
    Standby = 2,
}

/// <summary>
/// A worker's state word: the only way it changes. The worker itself announces (<see cref="Announce"/>) and cancels
/// (<see cref="TryCancel"/>); anyone else claims (<see cref="TryClaim"/>). Whoever moves the word out of a parked
/// state by CAS owns the one release of the worker's semaphore for that park, so a semaphore is released at most
/// once per park and a parked worker is never woken by a stale release.
/// </summary>
/// <remarks>A mutable struct held in a field of its worker: always called on that field, never copied.</remarks>
internal struct StateWord
{
    private int _value;

    /// <summary>The current state (volatile: read by wakers, movers and tests on other threads).</summary>
    public ParkState Read() => (ParkState)Volatile.Read(ref _value);

    /// <summary>
    /// The worker's own thread, awake: announces that it is about to park as <paramref name="state"/>. A release
    /// store only; the caller adds the full fence its protocol needs before its recheck ([P2], [S2]).
    /// </summary>
    /// <param name="state"><see cref="ParkState.Sleeping"/> or <see cref="ParkState.Standby"/>.</param>
    public void Announce(ParkState state)
    {
        Debug.Assert(state != ParkState.Awake, "Announce a parked state; Awake is reached by a claim or a cancel.");
        Debug.Assert(Read() == ParkState.Awake, "Only an awake worker announces.");
        Volatile.Write(ref _value, (int)state);
    }

    /// <summary>
    /// Another thread: moves the word from <paramref name="from"/> to <see cref="ParkState.Awake"/>. The winner (at
    /// most one per announcement: the worker's own cancel and every other claimer race on the same CAS) must release
    /// the worker's semaphore.
    /// </summary>
    /// <param name="from">The parked state the claimer is entitled to end.</param>
    /// <returns>Whether this call won the claim.</returns>
    public bool TryClaim(ParkState from) =>
        // The plain read first keeps a claimer that would lose anyway off the cache line (producers scan often).
        Read() == from && Interlocked.CompareExchange(ref _value, (int)ParkState.Awake, (int)from) == (int)from;

    /// <summary>
    /// The worker's own thread, after a recheck that saw a reason not to block: takes its announcement back. False
    /// means a claimer won first and has released (or is about to release) the semaphore, which the worker must then
    /// consume with one wait.
    /// </summary>
    /// <param name="from">The state it announced.</param>
    /// <returns>Whether the worker cancelled its own announcement.</returns>
    public bool TryCancel(ParkState from) =>
        Interlocked.CompareExchange(ref _value, (int)ParkState.Awake, (int)from) == (int)from;
}

/// <summary>What the server does at the top of its loop (<see cref="WorkerTransitions.AtBoundary"/>); a worker that is not the server retires before it gets there.</summary>
internal enum BoundaryStep
{
    /// <summary>Serves a set that is not its home and is not staying lent: <b>go home</b> (a move, or a return).</summary>
    GoHome,

    /// <summary>Serve the set it serves now (its home, or the set it is lent to while the home stays empty).</summary>
    Serve,
}

/// <summary>What a serving worker does when a scan and its spin found nothing (<see cref="WorkerTransitions.WhenIdle"/>).</summary>
internal enum IdleStep
{
    /// <summary>Lent and the borrower ran dry: <b>return</b> (the next boundary goes home).</summary>
    Return,

    /// <summary>At home, but a standby took the CPU over meanwhile: back to the top, which retires.</summary>
    Retire,

    /// <summary>At home and still the server: ask the director for a set to <b>lend</b> itself to.</summary>
    TryLend,
}

/// <summary>What a stopping or idle server at home does when there is nothing to lend itself to.</summary>
internal enum RestStep
{
    /// <summary>Stopping and every set it could serve is quiescent: leave the loop.</summary>
    Exit,

    /// <summary>Stopping but not quiescent: yield and scan again (a refused producer wakes nobody, so never park).</summary>
    Yield,

    /// <summary>Not stopping: <b>park</b> as a sleeper of its home.</summary>
    Park,
}

/// <summary>What an activated standby does (<see cref="WorkerTransitions.AfterStandby"/>).</summary>
internal enum StandbyStep
{
    /// <summary>It was made the server again (a swap back): serve.</summary>
    Serve,

    /// <summary>Stopping: exit at once (a standby holds no task).</summary>
    Exit,

    /// <summary><b>Watch</b> the CPU's pending move.</summary>
    Watch,
}

/// <summary>One look of a watching standby at its CPU (<see cref="WorkerTransitions.Watch"/>).</summary>
internal enum WatchStep
{
    /// <summary>No move is pending (the server arrived, or a newer order has nothing to report): stand by again.</summary>
    Done,

    /// <summary>The server is inside a task of the order's home (a move back): report the arrival for it, stand by.</summary>
    ArriveForServer,

    /// <summary>The server has been inside one task for the threshold: <b>take over</b>.</summary>
    TakeOver,

    /// <summary>Look again after a sleep (the server is between tasks, or its task is younger than the threshold).</summary>
    Sleep,
}

/// <summary>
/// The worker's state machine as pure functions of what it observed: each names the transition the mechanism
/// (<see cref="Worker"/>, <see cref="CpuSlot"/>) performs next. The observations are plain values read by the
/// caller in the order Workers/README.md gives; the functions add no reads of their own, so the table is tested
/// on plain data and the mechanism's memory ordering stays where the reads happen.
/// </summary>
internal static class WorkerTransitions
{
    /// <summary>
    /// The server at the top of its loop (a task boundary). A worker that is not the server retires first (it reads
    /// the server before the order, [W0]), so this is only asked of the server.
    /// </summary>
    /// <param name="servesHome">Whether the set it serves is its CPU's home.</param>
    /// <param name="staysLent">Whether it is lent from that very home and the home still looks empty.</param>
    /// <returns>The step.</returns>
    public static BoundaryStep AtBoundary(bool servesHome, bool staysLent) =>
        !servesHome && !staysLent ? BoundaryStep.GoHome : BoundaryStep.Serve;

    /// <summary>
    /// Whether a serving worker reports the CPU's pending order as arrived at this boundary: it serves the order's
    /// home now, or it stays lent because that home has nothing queued (a move back to the home it is lent from).
    /// </summary>
    /// <param name="orderPending">Whether the order's arrival is unreported.</param>
    /// <param name="servesHome">Whether it serves the order's home (after going home, if it did).</param>
    /// <param name="staysLent">Whether it stays lent from that home.</param>
    /// <returns>Whether to call <see cref="MoveOrder.Arrive"/>.</returns>
    public static bool Arrives(bool orderPending, bool servesHome, bool staysLent) =>
        orderPending && (servesHome || staysLent);

    /// <summary>A serving worker that found no task.</summary>
    /// <param name="servesHome">Whether it serves its home (false: it is lent).</param>
    /// <param name="isServer">Whether it is still the server.</param>
    /// <returns>The step.</returns>
    public static IdleStep WhenIdle(bool servesHome, bool isServer) =>
        !servesHome ? IdleStep.Return
        : !isServer ? IdleStep.Retire
        : IdleStep.TryLend;

    /// <summary>A server at home with nothing to lend itself to.</summary>
    /// <param name="stopRequested">Whether the pool is stopping.</param>
    /// <param name="quiescent">Whether every set it could serve is closed and empty (the caller asks only when stopping).</param>
    /// <returns>The step.</returns>
    public static RestStep AtRest(bool stopRequested, bool quiescent) =>
        !stopRequested ? RestStep.Park
        : quiescent ? RestStep.Exit
        : RestStep.Yield;

    /// <summary>[P3] The parking server's recheck after announcing: whether it cancels instead of blocking.</summary>
    /// <param name="setLooksEmpty">Whether every queue of its set looks empty.</param>
    /// <param name="stopRequested">Whether the pool is stopping.</param>
    /// <param name="orderIsForThisSet">Whether the CPU's order names the set it serves.</param>
    /// <param name="orderPending">Whether that order's arrival is unreported (even for this set: go round to report it).</param>
    /// <param name="isServer">Whether it is still the server (a take-over retires it).</param>
    /// <returns>Whether to cancel the announcement.</returns>
    public static bool ParkCancels(bool setLooksEmpty, bool stopRequested, bool orderIsForThisSet, bool orderPending, bool isServer) =>
        !setLooksEmpty || stopRequested || !orderIsForThisSet || orderPending || !isServer;

    /// <summary>[S3] The retiring worker's recheck after announcing standby: whether it cancels instead of blocking.</summary>
    /// <param name="orderPending">Whether the CPU's order is pending (watch it).</param>
    /// <param name="stopRequested">Whether the pool is stopping (exit).</param>
    /// <param name="isServer">Whether it was made the server again (a swap back).</param>
    /// <returns>Whether to cancel the announcement.</returns>
    public static bool StandbyCancels(bool orderPending, bool stopRequested, bool isServer) =>
        orderPending || stopRequested || isServer;

    /// <summary>A standby that is awake again (cancelled, activated, or released by stop). The order of the checks matters: a swap back wins over stop (the worker may hold the CPU's deque) and over a pending order.</summary>
    /// <param name="isServer">Whether it is the server.</param>
    /// <param name="stopRequested">Whether the pool is stopping.</param>
    /// <returns>The step.</returns>
    public static StandbyStep AfterStandby(bool isServer, bool stopRequested) =>
        isServer ? StandbyStep.Serve
        : stopRequested ? StandbyStep.Exit
        : StandbyStep.Watch;

    /// <summary>[W1] One look of a watching standby.</summary>
    /// <param name="orderPending">Whether the CPU's order is pending.</param>
    /// <param name="serverInTask">Whether the server's task serial is odd (inside a task taken from a queue).</param>
    /// <param name="serverServesOrderHome">Whether the server serves the order's home (read only inside a task).</param>
    /// <param name="ran">Stopwatch ticks the server's task has run (read only inside a task).</param>
    /// <param name="threshold">The CPU's handover threshold in Stopwatch ticks.</param>
    /// <returns>The step.</returns>
    public static WatchStep Watch(bool orderPending, bool serverInTask, bool serverServesOrderHome, long ran, long threshold) =>
        !orderPending ? WatchStep.Done
        : !serverInTask ? WatchStep.Sleep
        : serverServesOrderHome ? WatchStep.ArriveForServer
        : ran >= threshold ? WatchStep.TakeOver
        : WatchStep.Sleep;

    /// <summary>How long a watching standby sleeps before its next look, in milliseconds (1 to 1000).</summary>
    /// <param name="serverInTask">Whether the server is inside a task.</param>
    /// <param name="ran">Stopwatch ticks that task has run.</param>
    /// <param name="threshold">The handover threshold in Stopwatch ticks.</param>
    /// <param name="frequency">Stopwatch ticks per second.</param>
    /// <returns>The sleep: the rest of the threshold inside a task, one threshold between tasks.</returns>
    public static int WatchSleepMilliseconds(bool serverInTask, long ran, long threshold, long frequency)
    {
        long wait = serverInTask ? threshold - ran : threshold;
        return (int)Math.Clamp(wait * 1000 / frequency, 1, 1000);
    }
}
