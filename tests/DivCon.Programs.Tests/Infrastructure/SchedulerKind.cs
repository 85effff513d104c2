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
