using DivCon.Harness.Machine;
using DivCon.Programs;
using DivCon.Schedulers;

namespace DivCon.Harness.Workload;

/// <summary>The stand-alone schedulers of the sweeps and profiles: pinned where the platform allows, unpinned otherwise.</summary>
public static class SchedulerFactory
{
    /// <summary>
    /// An <see cref="AffinityTaskScheduler"/> pinned to <paramref name="cpus"/>, or, where pinning is unsupported, a
    /// <see cref="WorkStealingTaskScheduler"/> with as many workers.
    /// </summary>
    /// <param name="machine">The machine.</param>
    /// <param name="cpus">The CPUs (at least one).</param>
    /// <returns>The scheduler; the caller disposes it.</returns>
    public static WorkerPoolTaskScheduler Create(HarnessMachine machine, IReadOnlyList<int> cpus)
    {
        ArgumentNullException.ThrowIfNull(machine);
        ArgumentNullException.ThrowIfNull(cpus);
        return machine.PinningSupported
            ? new AffinityTaskScheduler(machine.Topology, cpus)
            : new WorkStealingTaskScheduler(cpus.Count);
    }

    /// <summary>
    /// Runs <paramref name="program"/> sequentially (one execute of the whole problem) as a single task on
    /// <paramref name="singleWorker"/>, so that the baseline runs on one (pinned) core like the parallel runs.
    /// </summary>
    /// <param name="program">The program.</param>
    /// <param name="singleWorker">A one-worker scheduler.</param>
    /// <param name="cancellationToken">Cancels before the run starts.</param>
    /// <returns>The run.</returns>
    public static Task RunSequentialAsync(BenchmarkProgram program, TaskScheduler singleWorker, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(program);
        ArgumentNullException.ThrowIfNull(singleWorker);
        return Task.Factory.StartNew(program.RunSequential, cancellationToken, TaskCreationOptions.DenyChildAttach, singleWorker);
    }

    /// <summary>
    /// Disposes <paramref name="scheduler"/> on a thread-pool thread. After an awaited run the caller may be resuming
    /// on one of the scheduler's own workers, and a scheduler cannot wait for its own worker to exit.
    /// </summary>
    /// <param name="scheduler">The scheduler (or anything owning workers).</param>
    /// <returns>A task that completes when it is disposed.</returns>
    public static Task DisposeOffWorkersAsync(IDisposable scheduler)
    {
        ArgumentNullException.ThrowIfNull(scheduler);
        return Task.Run(scheduler.Dispose, CancellationToken.None);
    }
}

/// <summary>
/// Holds at most one scheduler at a time for a sweep whose cases need different schedulers (1, 2, .. N cores):
/// asking for another key disposes the current scheduler and creates the next, so a 64-core sweep never holds
/// thousands of idle threads.
/// </summary>
/// <remarks>
/// Not thread-safe: the sweep asks from one logical flow. Call <see cref="Get"/> from a thread-pool thread (not from a
/// worker of the held scheduler, which could not wait for its own exit): the sweep cases do so through
/// <see cref="Task.Run(Func{Task})"/>.
/// </remarks>
public sealed class SchedulerSlot : IDisposable
{
    private string? _key;
    private WorkerPoolTaskScheduler? _scheduler;

    /// <summary>The scheduler for <paramref name="key"/>, creating it (and disposing the previous one) when the key changes.</summary>
    /// <param name="key">Identifies the configuration (e.g. "4 contiguous").</param>
    /// <param name="create">Creates the scheduler for the key.</param>
    /// <returns>The scheduler.</returns>
    public TaskScheduler Get(string key, Func<WorkerPoolTaskScheduler> create)
    {
        ArgumentNullException.ThrowIfNull(key);
        ArgumentNullException.ThrowIfNull(create);
        ObjectDisposedException.ThrowIf(_key == DisposedKey, this);
        if (_scheduler is not null && string.Equals(_key, key, StringComparison.Ordinal))
        {
            return _scheduler;
        }

        _scheduler?.Dispose();
        _scheduler = null;
        _scheduler = create();
        _key = key;
        return _scheduler;
    }

    /// <summary>Disposes the held scheduler.</summary>
    public void Dispose()
    {
        _scheduler?.Dispose();
        _scheduler = null;
        _key = DisposedKey;
    }

    private const string DisposedKey = "\0disposed";
}
