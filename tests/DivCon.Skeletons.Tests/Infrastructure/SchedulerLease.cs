namespace DivCon.Skeletons.Tests.Infrastructure;

/// <summary>Creates the scheduler of a <see cref="SchedulerKind"/> and disposes it with the lease.</summary>
public sealed class SchedulerLease : IDisposable
{
    private readonly CountingTaskScheduler? _owned;

    public SchedulerLease(SchedulerKind kind)
    {
        _owned = kind switch
        {
            SchedulerKind.OneThread => new CountingTaskScheduler(1, allowInlining: true, "one"),
            SchedulerKind.TwoThreads => new CountingTaskScheduler(2, allowInlining: true, "two"),
            _ => null,
        };
        Scheduler = _owned ?? TaskScheduler.Default;
    }

    public TaskScheduler Scheduler { get; }

    public void Dispose() => _owned?.Dispose();
}
