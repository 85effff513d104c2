using DivCon.Harness.Cyclic;
using DivCon.Harness.Oracle;
using DivCon.Harness.Statistics;

namespace DivCon.Harness.Experiments;

/// <summary>Settings of a <see cref="CyclicExperiment"/>.</summary>
public sealed record CyclicExperimentOptions
{
    /// <summary>Workload name for titles and file contents (e.g. "5-program").</summary>
    public required string Workload { get; init; }

    /// <summary>How long each scheme's cyclic test restarts programs (the thesis used 8 minutes).</summary>
    public required TimeSpan TimeLimit { get; init; }

    /// <summary>Isolated runs per program (C_SP sample).</summary>
    public int SingleProgramRuns { get; init; } = SingleProgramTimer.DefaultRepetitions;

    /// <summary>Unrecorded isolated runs per program before the recorded ones.</summary>
    public int WarmupRuns { get; init; } = 1;

    /// <summary>Confidence level of every interval.</summary>
    public double ConfidenceLevel { get; init; } = SampleSummary.DefaultConfidenceLevel;

    /// <summary>Per-program speedup tables for the static-partition oracle, or null to skip it.</summary>
    public IReadOnlyList<SpeedupTable>? SpeedupTables { get; init; }

    /// <summary>Cores in the machine (for the oracle and allocation charts).</summary>
    public int Cores { get; init; } = Environment.ProcessorCount;
}
