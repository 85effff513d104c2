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

    /// <summary>Whether a stopping worker may exit: every set it could serve is closed and empty.</summary>
    /// <returns><see langword="true"/> when nothing accepted is left to start anywhere.</returns>
    bool AllQuiescent();
}
