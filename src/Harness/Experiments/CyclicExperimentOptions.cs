using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;

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

    /// <summary>
    /// Whether C_SP is measured around every scheme block instead of once per round: an isolated block runs before the
    /// first scheme block and after every scheme block, and each block's NTTs use the isolated runs just before and
    /// just after it (pooled). A machine whose speed drifts over minutes (a shared virtual machine: the same program
    /// alone took 1.07 s in one round and 1.25 s in the next, while two runs a second apart agreed within 1%) then
    /// biases no scheme by how far its block ran from the round's isolated block. The pooled metrics scale each
    /// block's runs by the program's pooled C_SP over the C_SP around that block (<see cref="CyclicExperiment"/>).
    /// False by default (one isolated block per round).
    /// </summary>
    public bool Bracketed { get; init; }

    /// <summary>
    /// Isolated runs per program (C_SP sample), spread over the isolated blocks (at least one per block): one block per
    /// round, or with <see cref="Bracketed"/> one more than there are scheme blocks.
    /// </summary>
    public int SingleProgramRuns { get; init; } = SingleProgramTimer.DefaultRepetitions;

    /// <summary>
    /// Unrecorded isolated runs per program at the start of every isolated block (the warm-up round's, when there is
    /// one, runs at least one): each block opens a fresh session, whose first run pays for its data's first touch, so
    /// C_SP counts only runs after it.
    /// </summary>
    public int WarmupRuns { get; init; } = 1;

    /// <summary>Confidence level of every interval.</summary>
    public double ConfidenceLevel { get; init; } = SampleSummary.DefaultConfidenceLevel;

    /// <summary>Per-program speedup tables for the static-partition oracle, or null to skip it.</summary>
    public IReadOnlyList<SpeedupTable>? SpeedupTables { get; init; }

    /// <summary>Cores in the machine (for the oracle and allocation charts).</summary>
    public int Cores { get; init; } = Environment.ProcessorCount;
}

/// <summary>What every experiment gets from its caller: where to write, where to report, and the clock.</summary>
/// <param name="Output">The experiment's results folder (already stamped).</param>
/// <param name="Progress">Progress sink (<see cref="NullProgressSink.Instance"/> for none).</param>
/// <param name="Time">Clock (<see cref="TimeProvider.System"/> outside tests).</param>
public sealed record ExperimentContext(ResultsFolder Output, IProgressSink Progress, TimeProvider Time);

/// <summary>
/// The order of the blocks of one round of a <see cref="CyclicExperiment"/>: slot 0 is the isolated measurement
/// (C_SP), slot i the i-th scheme. Round r starts at slot <c>r mod n</c> and goes round, so over n rounds every block
/// runs once in every position and after every other block's predecessor changes; round 0 is the natural order.
/// </summary>
public static class RoundOrder
{
    /// <summary>The slots of round <paramref name="round"/> in the order they run.</summary>
    /// <param name="slots">Blocks per round (the isolated measurement and the schemes); at least 1.</param>
    /// <param name="round">0-based round index; not negative.</param>
    /// <returns>A permutation of 0..slots-1.</returns>
    /// <exception cref="ArgumentOutOfRangeException">A count is out of range.</exception>
    public static IReadOnlyList<int> Rotated(int slots, int round)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(slots, 1);
        ArgumentOutOfRangeException.ThrowIfNegative(round);
        int first = round % slots;
        return [.. Enumerable.Range(0, slots).Select(i => (first + i) % slots)];
    }

    /// <summary>
    /// The slots of round <paramref name="round"/> when C_SP brackets every scheme block
    /// (<see cref="CyclicExperimentOptions.Bracketed"/>): the schemes (slots 1..n) in the rotated order of
    /// <see cref="Rotated"/>, each followed by an isolated block (slot 0); round 0 also starts with one, so every scheme
    /// block has an isolated block right before and right after it (a round's last one is the next round's first).
    /// </summary>
    /// <param name="schemes">Scheme blocks per round; at least 1.</param>
    /// <param name="round">0-based round index; not negative.</param>
    /// <returns>The slots, 0 for an isolated block.</returns>
    /// <exception cref="ArgumentOutOfRangeException">A count is out of range.</exception>
    public static IReadOnlyList<int> Bracketed(int schemes, int round)
    {
        IReadOnlyList<int> rotated = Rotated(schemes, round);
        var order = new List<int>((2 * schemes) + 1);
        if (round == 0)
        {
            order.Add(0);
        }

        foreach (int scheme in rotated)
        {
            order.Add(scheme + 1);
            order.Add(0);
        }

        return order;
    }
}
