namespace DivCon.Skeletons;

/// <summary>How a run turns the divide-and-conquer recursion into tasks.</summary>
public enum ExecutionEngine
{
    /// <summary>
    /// The non-blocking engine (the default). A node splits, starts one task per child and returns; the child
    /// that completes last schedules the merge as a new task. No thread ever waits, so the run makes progress on
    /// any scheduler, including one with a single worker.
    /// </summary>
    Continuation = 0,

    /// <summary>
    /// The blocking recursion: a node starts its children and waits for them before merging. Kept to compare with
    /// the continuation engine; it can starve a scheduler with a fixed number of workers (see
    /// <see cref="DivideAndConquer{TProblem, TResult}"/>).
    /// </summary>
    ForkJoin = 1,
}
