namespace DivCon.Programs.Tests.Infrastructure;

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
