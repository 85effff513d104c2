using DivCon.Harness.Cyclic;
using DivCon.Harness.Oracle;
using DivCon.Harness.Statistics;

namespace DivCon.Harness.Experiments;

/// <summary>Settings of a <see cref="CyclicExperiment"/>.</summary>
public sealed record CyclicExperimentOptions
{
    /// <summary>Workload name for titles and file contents (e.g. "5-program").</summary>
    public required string Workload { get; init; }

    /// <summary>
    /// How long each scheme's cyclic test restarts programs in all (the thesis used 8 minutes); with
    /// <see cref="Rounds"/> above 1 each round gives every scheme <c>TimeLimit / Rounds</c>.
    /// </summary>
    public required TimeSpan TimeLimit { get; init; }

    /// <summary>
    /// Measured rounds (at least 1). Every round runs the isolated measurement and every scheme once, in an order
    /// rotated by one position per round (<see cref="RoundOrder"/>), so that no scheme always runs first; system
    /// metrics then get intervals across rounds. 1 (the default) is one block per scheme after the isolated runs.
    /// </summary>
    public int Rounds { get; init; } = 1;

    /// <summary>
    /// Length of the uncounted warm-up round's cyclic test per scheme; <see cref="TimeSpan.Zero"/> (the default) for
    /// no warm-up round. The warm-up round runs every program alone (<see cref="WarmupRuns"/> times) and under every
    /// scheme for this long before any measured round, so that no measured block is the first to execute a scheme's
    /// code paths (JIT tiering, dynamic PGO, first-use allocations).
    /// </summary>
    public TimeSpan WarmupTime { get; init; } = TimeSpan.Zero;

    /// <summary>
    /// Whether a full blocking, compacting garbage collection settles the heap after every block (warm-up and
    /// measured), so that no block pays for the garbage of the one before it. True by default.
    /// </summary>
    public bool SettleBetweenBlocks { get; init; } = true;

    /// <summary>Isolated runs per program (C_SP sample), spread over the rounds (at least one per round).</summary>
    public int SingleProgramRuns { get; init; } = SingleProgramTimer.DefaultRepetitions;

    /// <summary>
    /// Unrecorded isolated runs per program: in the warm-up round when there is one, else before the first round's
    /// recorded runs.
    /// </summary>
    public int WarmupRuns { get; init; } = 1;

    /// <summary>Confidence level of every interval.</summary>
    public double ConfidenceLevel { get; init; } = SampleSummary.DefaultConfidenceLevel;

    /// <summary>Per-program speedup tables for the static-partition oracle, or null to skip it.</summary>
    public IReadOnlyList<SpeedupTable>? SpeedupTables { get; init; }

    /// <summary>Cores in the machine (for the oracle and allocation charts).</summary>
    public int Cores { get; init; } = Environment.ProcessorCount;
}
