namespace DivCon.Schedulers.Workers;

/// <summary>
/// What a multiprogram scheduler tells idle workers: where else there is work (lending) and when every set is done
/// (exit at stop). Called on worker threads, only on the idle path, never while a task runs.
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

    /// <summary>The server of a CPU is about to block at home (<paramref name="asleep"/>) or has just woken from it.</summary>
    /// <param name="worker">The server.</param>
    /// <param name="asleep">Whether it is about to block.</param>
    void Parking(Worker worker, bool asleep);

    /// <summary>Whether a stopping worker may exit: every set it could serve is closed and empty.</summary>
    /// <returns><see langword="true"/> when nothing accepted is left to start anywhere.</returns>
    bool AllQuiescent();
}
