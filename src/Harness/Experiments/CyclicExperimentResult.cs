using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;

namespace DivCon.Harness.Experiments;

/// <summary>Everything a cyclic experiment measured and derived.</summary>
/// <param name="Workload">Workload name.</param>
/// <param name="Isolated">Isolated timings per program (C_SP samples), every round's runs pooled.</param>
/// <param name="Tests">Each scheme's cyclic test; with several rounds, all its rounds' runs pooled (run indices
/// renumbered per program in round order, times relative to the start of their own round's test).</param>
/// <param name="Metrics">Each scheme's metrics from the pooled runs (per-run intervals).</param>
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

    /// <summary>The measured rounds, in order (one when the experiment ran a single round).</summary>
    public IReadOnlyList<CyclicRound> Rounds { get; init; } = [];

    /// <summary>Each scheme's ANTT, STP and MNTT with intervals across rounds; empty with a single round.</summary>
    public IReadOnlyList<AcrossRounds> AcrossRounds { get; init; } = [];

    /// <summary>The pairs of schemes whose across-round intervals separate; empty when none do or with a single round.</summary>
    public IReadOnlyList<RankingStatement> Ranking { get; init; } = [];

    /// <summary>Whether C_SP bracketed every scheme block (<see cref="CyclicExperimentOptions.Bracketed"/>): the rounds carry brackets.</summary>
    public bool Bracketed => Rounds.Any(r => r.Brackets.Count > 0);

    /// <summary>What the runtime did in every block, the warm-up round's (round 0) included.</summary>
    public IReadOnlyList<BlockDiagnostics> Blocks { get; init; } = [];
    /// <summary>The practical move latency of each scheme that recorded allocations (partitioning schemes).</summary>
    public IReadOnlyList<MoveLatencySummary> MoveLatencies { get; init; } = [];

    /// <summary>Every move of those schemes, in decision order (the raw data of <see cref="MoveLatencies"/>).</summary>
    public IReadOnlyList<(string Scheme, MoveSample Move)> MoveSamples { get; init; } = [];
}

/// <summary>One measured round of a <see cref="CyclicExperiment"/>: the isolated runs and every scheme's cyclic test.</summary>
/// <param name="Round">1-based round number.</param>
/// <param name="Order">The blocks in the order they ran ("isolated" and the scheme names).</param>
/// <param name="Isolated">This round's isolated timings per program (its C_SP sample; with bracketing, every isolated
/// block that ran in this round).</param>
/// <param name="Tests">Each scheme's cyclic test in this round (times from the start of that test).</param>
/// <param name="Metrics">Each scheme's metrics from this round alone (C_SP of this round); a scheme under which some
/// program finished no counted run in this round has none.</param>
public sealed record CyclicRound(
    int Round,
    IReadOnlyList<string> Order,
    IReadOnlyList<ProgramTimings> Isolated,
    IReadOnlyList<(string Scheme, CyclicTestResult Result)> Tests,
    IReadOnlyList<SchemeMetrics> Metrics)
{
    /// <summary>
    /// With bracketing (<see cref="CyclicExperimentOptions.Bracketed"/>), each scheme's C_SP sample in this round: the
    /// isolated runs just before and just after its block, pooled; empty otherwise.
    /// </summary>
    public IReadOnlyList<(string Scheme, IReadOnlyList<ProgramTimings> Isolated)> Brackets { get; init; } = [];

    /// <summary>The C_SP sample this round's block of <paramref name="scheme"/> is normalised by: its bracket, or the round's isolated runs.</summary>
    /// <param name="scheme">A scheme of this round.</param>
    /// <returns>Isolated timings per program.</returns>
    public IReadOnlyList<ProgramTimings> IsolatedFor(string scheme)
    {
        foreach ((string name, IReadOnlyList<ProgramTimings> isolated) in Brackets)
        {
            if (name == scheme)
            {
                return isolated;
            }
        }

        return Isolated;
    }
}

/// <summary>A scheme of a cyclic experiment that has no metrics because some programs finished no run in time.</summary>
/// <param name="Scheme">The scheme.</param>
/// <param name="ProgramsWithoutRuns">The programs with no counted run.</param>
public sealed record IncompleteScheme(string Scheme, IReadOnlyList<string> ProgramsWithoutRuns)
{
    /// <inheritdoc/>
    public override string ToString() =>
        $"under '{Scheme}', {string.Join(", ", ProgramsWithoutRuns)} finished no run within the time limit";
}
