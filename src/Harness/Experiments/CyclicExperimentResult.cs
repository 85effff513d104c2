using DivCon.Harness.Cyclic;
using DivCon.Harness.Metrics;
using DivCon.Harness.Oracle;
using DivCon.Harness.Reports.Charts;

namespace DivCon.Harness.Experiments;

/// <summary>Everything a cyclic experiment measured and derived.</summary>
/// <param name="Workload">Workload name.</param>
/// <param name="Isolated">Isolated timings per program (C_SP samples).</param>
/// <param name="Tests">Each scheme's cyclic test.</param>
/// <param name="Metrics">Each scheme's metrics.</param>
/// <param name="Allocations">Allocation charts of the schemes that recorded allocations.</param>
/// <param name="Oracle">The static-partition oracle, if speedup tables were given.</param>
public sealed record CyclicExperimentResult(
    string Workload,
    IReadOnlyList<ProgramTimings> Isolated,
    IReadOnlyList<(string Scheme, CyclicTestResult Result)> Tests,
    IReadOnlyList<SchemeMetrics> Metrics,
    IReadOnlyList<(string Scheme, AllocationChart Chart)> Allocations,
    OracleResult? Oracle)
{
    /// <summary>Schemes without metrics because some program finished no run within the time limit.</summary>
    public IReadOnlyList<IncompleteScheme> Incomplete { get; init; } = [];

    /// <summary>The practical move latency of each scheme that recorded allocations (partitioning schemes).</summary>
    public IReadOnlyList<MoveLatencySummary> MoveLatencies { get; init; } = [];

    /// <summary>Every move of those schemes, in decision order (the raw data of <see cref="MoveLatencies"/>).</summary>
    public IReadOnlyList<(string Scheme, MoveSample Move)> MoveSamples { get; init; } = [];
}
