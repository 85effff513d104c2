using DivCon.Programs;
using DivCon.Schedulers;

namespace DivCon.Harness.Wiring;

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
