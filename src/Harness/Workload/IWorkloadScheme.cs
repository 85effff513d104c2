namespace DivCon.Harness.Workload;

/// <summary>
/// A multiprogramming scheme bound to a workload, as the harness sees it: it opens a session in which the
/// workload's programs are ready to run under the scheme (oversubscribed, shared scheduler, static or
/// dynamic partitioning, .NET default, or "isolated": each program with the whole machine).
/// </summary>
/// <remarks>
/// The CLI builds one per (scheme, workload) from the real schedulers and programs; tests use fakes. The
/// harness never touches schedulers directly, so every scheme (and every future policy) plugs in here.
/// </remarks>
public interface IWorkloadScheme
{
    /// <summary>Scheme name used in reports (e.g. "shared", "static-partition").</summary>
    string Name { get; }

    /// <summary>Creates the schedulers and binds the programs to them.</summary>
    /// <param name="cancellationToken">Cancels opening.</param>
    /// <returns>The session; dispose it to release the schedulers.</returns>
    ValueTask<IWorkloadSession> OpenAsync(CancellationToken cancellationToken);
}

/// <summary>A workload running under a scheme: its programs, ready to run, and optionally its allocations.</summary>
public interface IWorkloadSession : IAsyncDisposable
{
    /// <summary>The workload's programs bound to the scheme's schedulers.</summary>
    IReadOnlyList<WorkloadProgram> Programs { get; }

    /// <summary>Where a partitioning scheme records cores per program over time; null for other schemes.</summary>
    AllocationTrace? Allocations { get; }
}
