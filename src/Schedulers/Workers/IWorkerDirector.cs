namespace DivCon.Schedulers.Workers;

/// <summary>
/// What a multiprogram scheduler tells idle workers: where else there is work (lending) and when every set is done
/// (exit at stop); and, at task boundaries, where a burst goes first. Called on worker threads, never while a task runs.
/// </summary>
internal interface IWorkerDirector
{
    /// <summary>
    /// A set other than the worker's home that has queued tasks, for an idle worker to serve lent; or
    /// <see langword="null"/> when none has (or lending is off and the pool is not stopping).
    /// </summary>
    /// <param name="worker">The idle worker (its home looked empty after spinning).</param>
    /// <returns>The set to serve, or <see langword="null"/>.</returns>
    WorkQueueSet? FindWork(Worker worker);

    /// <summary>
    /// A lent worker at a task boundary (or spinning) whose home still looks empty: whether it stays lent. True for a
    /// worker lent within its process; for a guest (a CPU withheld from the process, lent across processes) only
    /// while the CPU's holder is idle. A false answer for a guest counts a hand-back.
    /// </summary>
    /// <param name="worker">The lent worker.</param>
    /// <returns>Whether it may take another task of the set it serves.</returns>
    bool KeepsLoan(Worker worker);

    /// <summary>
    /// Bursts first ([B1]), asked by the server at every task boundary: the set to serve from this boundary instead of
    /// <paramref name="serving"/>, when <paramref name="serving"/> is a program that yields to bursts and a bursty
    /// program has queued tasks; otherwise <see langword="null"/> (the common case: one read when no program has a
    /// part).
    /// </summary>
    /// <param name="serving">The set the worker serves now.</param>
    /// <returns>A bursty program's set with queued tasks, or <see langword="null"/>.</returns>
    WorkQueueSet? BurstFor(WorkQueueSet serving);

    /// <summary>
    /// Bursts first ([B2]): whether a worker lent from <paramref name="home"/> keeps serving <paramref name="serving"/>
    /// although its home has queued tasks: the home yields to bursts, and <paramref name="serving"/> is a bursty
    /// program that still has queued tasks.
    /// </summary>
    /// <param name="home">The home the worker is lent from.</param>
    /// <param name="serving">The set it serves.</param>
    /// <returns>Whether the loan outlasts the home's own work for now.</returns>
    bool StaysForBurst(WorkQueueSet home, WorkQueueSet serving);

    /// <summary>The server of a CPU is about to block at home (<paramref name="asleep"/>) or has just woken from it.</summary>
    /// <param name="worker">The server.</param>
    /// <param name="asleep">Whether it is about to block.</param>
    void Parking(Worker worker, bool asleep);

    /// <summary>Whether a stopping worker may exit: every set it could serve is closed and empty.</summary>
    /// <returns><see langword="true"/> when nothing accepted is left to start anywhere.</returns>
    bool AllQuiescent();
}
