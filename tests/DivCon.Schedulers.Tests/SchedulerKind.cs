namespace DivCon.Schedulers.Tests;

/// <summary>The schedulers the conformance tests run on.</summary>
public enum SchedulerKind
{
    WorkStealing,
    Affinity,
}
