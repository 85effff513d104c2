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
    /// The blocking recursion: a node starts its children and waits for them (<see cref="Task.WaitAll(Task[])"/>)
    /// before merging. Kept to compare with the continuation engine; it starves a scheduler with a fixed number of
    /// workers when all of them block while the children they wait for sit in the queue (for example one worker that
    /// does not inline, or any run with a cancellable token, whose waits TPL never inlines). See the warnings on
    /// <see cref="DivideAndConquer{TProblem, TResult}"/>. One weaker guarantee than the continuation engine: when
    /// cancellation releases a wait on an unfinished asynchronous split or merge, that operation of the program is
    /// abandoned and may still finish after the run's task has completed.
    /// </summary>
    ForkJoin = 1,
}
