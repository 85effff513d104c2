namespace DivCon.Harness.Workload;

/// <summary>A workload running under a scheme: its programs, ready to run, and optionally its allocations.</summary>
public interface IWorkloadSession : IAsyncDisposable
{
    /// <summary>The workload's programs bound to the scheme's schedulers.</summary>
    IReadOnlyList<WorkloadProgram> Programs { get; }

    /// <summary>Where a partitioning scheme records cores per program over time; null for other schemes.</summary>
    AllocationTrace? Allocations { get; }
}
