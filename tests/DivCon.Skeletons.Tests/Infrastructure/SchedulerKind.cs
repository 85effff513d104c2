namespace DivCon.Skeletons.Tests.Infrastructure;

/// <summary>The schedulers the grid tests run on.</summary>
public enum SchedulerKind
{
    Default,
    OneThread,
    TwoThreads,
}
