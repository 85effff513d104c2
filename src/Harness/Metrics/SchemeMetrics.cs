namespace DivCon.Harness.Metrics;

/// <summary>The metrics of one workload under one multiprogramming scheme.</summary>
/// <param name="Scheme">Scheme name (e.g. "shared", "static-partition").</param>
/// <param name="Metrics">The workload's metrics under it.</param>
public sealed record SchemeMetrics(string Scheme, WorkloadMetrics Metrics)
{
    /// <summary>Warnings about metrics that cannot be true or lack a useful interval (<see cref="MetricFlag.Of"/>);
    /// empty when none.</summary>
    public IReadOnlyList<MetricFlag> Flags { get; init; } = [];
}
