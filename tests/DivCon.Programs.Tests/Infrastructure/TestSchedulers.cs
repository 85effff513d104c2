namespace DivCon.Programs.Tests.Infrastructure;

/// <summary>The schedulers the tests run programs on.</summary>
public enum SchedulerKind
{
    /// <summary>The .NET thread pool.</summary>
    Default,

    /// <summary>A scheduler with one worker.</summary>
    OneWorker,

    /// <summary>A scheduler with two workers.</summary>
    TwoWorkers,
}

/// <summary>
/// Creates the fixed-size schedulers of the tests. The one place to switch to DivCon.Schedulers: replace the body of
/// <see cref="CreateFixed"/> with <c>new WorkStealingTaskScheduler(workers)</c>.
/// </summary>
public static class TestSchedulers
{
    public static TaskScheduler CreateFixed(int workers) => new DedicatedThreadTaskScheduler(workers);
}

/// <summary>Owns the scheduler of a <see cref="SchedulerKind"/> for one test and disposes it.</summary>
public sealed class SchedulerLease : IDisposable
{
    private readonly TaskScheduler? _owned;

    public SchedulerLease(SchedulerKind kind)
    {
        _owned = kind switch
        {
            SchedulerKind.OneWorker => TestSchedulers.CreateFixed(1),
            SchedulerKind.TwoWorkers => TestSchedulers.CreateFixed(2),
            _ => null,
        };
        Scheduler = _owned ?? TaskScheduler.Default;
    }

    public TaskScheduler Scheduler { get; }

    public void Dispose() => (_owned as IDisposable)?.Dispose();
}
