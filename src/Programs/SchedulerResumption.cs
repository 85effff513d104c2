using System.Runtime.CompilerServices;

namespace DivCon.Programs;

/// <summary>
/// Awaiting a task so that the awaiting method resumes as a task of a named scheduler: the run's, whatever the
/// caller's <see cref="SynchronizationContext"/> or <see cref="TaskScheduler.Current"/>.
/// </summary>
/// <remarks>
/// <para><b>Why.</b> A skeleton run's task completes its awaiters asynchronously, so <c>ConfigureAwait(false)</c>
/// resumes on the .NET thread pool: a program on the multiprogram scheduler would then run part of its code on a
/// thread that is not one of its workers (outside its share of the cores). A plain <c>await</c> would capture the
/// caller's context instead, which for a run started outside its scheduler is not the run's either.</para>
/// <para><b>How.</b> When the task is still pending, the resumption is a continuation task on the scheduler, queued by
/// the thread that completes the task (a worker, for a skeleton run: its own queue). Its state is the resumption
/// delegate, like the TPL's own await continuations, so a multiprogram program that closed meanwhile still resumes
/// the method (see its late resumptions). Any other scheduler that refuses it (disposed) faults the continuation
/// task; the method then resumes on the .NET thread pool, so that it ends (anything it queues on the closed scheduler
/// is refused and faults it) rather than waiting for ever. When the task is already complete the method goes on where
/// it is, like any await.</para>
/// </remarks>
internal static class SchedulerResumption
{
    /// <summary>Awaits <paramref name="task"/>, resuming on <paramref name="scheduler"/>.</summary>
    /// <param name="task">The awaited task.</param>
    /// <param name="scheduler">Where the method resumes.</param>
    /// <returns>The awaitable.</returns>
    public static ResumeOnAwaitable ResumeOn(this Task task, TaskScheduler scheduler) => new(task, scheduler);

    /// <summary>Awaits <paramref name="task"/>, resuming on <paramref name="scheduler"/>.</summary>
    /// <typeparam name="T">The task's result.</typeparam>
    /// <param name="task">The awaited task.</param>
    /// <param name="scheduler">Where the method resumes.</param>
    /// <returns>The awaitable.</returns>
    public static ResumeOnAwaitable<T> ResumeOn<T>(this Task<T> task, TaskScheduler scheduler) => new(task, scheduler);

    /// <summary>
    /// A task that completes like <paramref name="task"/>, but on <paramref name="scheduler"/>: for a nested run's task
    /// handed to the engine, whose own wait for it would otherwise pass through the .NET thread pool (the run's task
    /// completes its awaiters asynchronously) before queueing the node's resumption.
    /// </summary>
    /// <typeparam name="T">The task's result.</typeparam>
    /// <param name="task">The nested run's task.</param>
    /// <param name="scheduler">The run's scheduler.</param>
    /// <returns>The task completing on <paramref name="scheduler"/>.</returns>
    public static async Task<T> CompletingOn<T>(this Task<T> task, TaskScheduler scheduler) => await task.ResumeOn(scheduler);

    /// <summary>Queues <paramref name="continuation"/> on <paramref name="scheduler"/> once <paramref name="task"/> completes.</summary>
    internal static void ResumeAfter(Task task, TaskScheduler scheduler, Action continuation)
    {
        // TaskContinuationOptions.None: the continuation's creation options stay None and its state is the
        // resumption delegate, the shape a closed multiprogram program recognises as an await's resumption.
        Task resumed = task.ContinueWith(s_resume, continuation, CancellationToken.None, TaskContinuationOptions.None, scheduler);
        resumed.ContinueWith(
            s_refused,
            continuation,
            CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously | TaskContinuationOptions.OnlyOnFaulted,
            TaskScheduler.Default);
    }

    private static readonly Action<Task, object?> s_resume = static (_, state) => ((Action)state!)();

    // Only a refusal faults the resumption: an async method's resumption delegate never throws (the method's own
    // exceptions fault the method's task).
    private static readonly Action<Task, object?> s_refused = static (resumed, state) =>
    {
        _ = resumed.Exception; // Observed: the refusal is not an unobserved task exception.
        ThreadPool.UnsafeQueueUserWorkItem(static s => ((Action)s!)(), state);
    };
}

/// <summary>The awaitable of <see cref="SchedulerResumption.ResumeOn(Task, TaskScheduler)"/>.</summary>
/// <param name="task">The awaited task.</param>
/// <param name="scheduler">Where the method resumes.</param>
internal readonly struct ResumeOnAwaitable(Task task, TaskScheduler scheduler) : ICriticalNotifyCompletion
{
    /// <summary>Whether the task has completed (the method then goes on synchronously).</summary>
    public bool IsCompleted => task.IsCompleted;

    /// <summary>This value: the awaitable is its own awaiter.</summary>
    /// <returns>The awaiter.</returns>
    public ResumeOnAwaitable GetAwaiter() => this;

    /// <summary>Ends the await: throws the task's exception, if any.</summary>
    public void GetResult() => task.GetAwaiter().GetResult();

    /// <inheritdoc/>
    public void OnCompleted(Action continuation) => SchedulerResumption.ResumeAfter(task, scheduler, continuation);

    /// <inheritdoc/>
    public void UnsafeOnCompleted(Action continuation) => SchedulerResumption.ResumeAfter(task, scheduler, continuation);
}

/// <summary>The awaitable of <see cref="SchedulerResumption.ResumeOn{T}(Task{T}, TaskScheduler)"/>.</summary>
/// <typeparam name="T">The task's result.</typeparam>
/// <param name="task">The awaited task.</param>
/// <param name="scheduler">Where the method resumes.</param>
internal readonly struct ResumeOnAwaitable<T>(Task<T> task, TaskScheduler scheduler) : ICriticalNotifyCompletion
{
    /// <summary>Whether the task has completed (the method then goes on synchronously).</summary>
    public bool IsCompleted => task.IsCompleted;

    /// <summary>This value: the awaitable is its own awaiter.</summary>
    /// <returns>The awaiter.</returns>
    public ResumeOnAwaitable<T> GetAwaiter() => this;

    /// <summary>Ends the await: the task's result, or its exception.</summary>
    /// <returns>The result.</returns>
    public T GetResult() => task.GetAwaiter().GetResult();

    /// <inheritdoc/>
    public void OnCompleted(Action continuation) => SchedulerResumption.ResumeAfter(task, scheduler, continuation);

    /// <inheritdoc/>
    public void UnsafeOnCompleted(Action continuation) => SchedulerResumption.ResumeAfter(task, scheduler, continuation);
}
