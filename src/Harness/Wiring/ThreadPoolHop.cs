using System.Runtime.CompilerServices;

namespace DivCon.Harness.Wiring;

/// <summary>
/// <c>await ThreadPoolHop.Now;</c> always continues on a thread-pool thread. After awaiting a run, code resumes on
/// the thread that finished it, often a worker of the run's scheduler; code that then disposes that scheduler must
/// not run there (a scheduler cannot wait for its own worker). <c>Task.Yield</c> is no substitute: it posts to the
/// current <see cref="TaskScheduler"/>, which on such a worker is the scheduler itself.
/// </summary>
public readonly struct ThreadPoolHop : INotifyCompletion
{
    /// <summary>The awaitable.</summary>
    public static ThreadPoolHop Now => default;

    /// <summary>Never completed: the continuation is always queued.</summary>
    public bool IsCompleted => false;

    /// <summary>The awaiter (this).</summary>
    /// <returns>This.</returns>
    public ThreadPoolHop GetAwaiter() => this;

    /// <summary>Queues the continuation to the thread pool.</summary>
    /// <param name="continuation">The rest of the awaiting method.</param>
    public void OnCompleted(Action continuation)
    {
        ArgumentNullException.ThrowIfNull(continuation);
        ThreadPool.QueueUserWorkItem(static c => c(), continuation, preferLocal: false);
    }

    /// <summary>Nothing to return.</summary>
    public void GetResult()
    {
    }
}
