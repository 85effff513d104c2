using DivCon.Harness.Cyclic;
using DivCon.Harness.Metrics;

namespace DivCon.Harness.Experiments;

/// <summary>One measured round of a <see cref="CyclicExperiment"/>: the isolated runs and every scheme's cyclic test.</summary>
/// <param name="Round">1-based round number.</param>
/// <param name="Order">The blocks in the order they ran ("isolated" and the scheme names).</param>
/// <param name="Isolated">This round's isolated timings per program (its C_SP sample).</param>
/// <param name="Tests">Each scheme's cyclic test in this round (times from the start of that test).</param>
/// <param name="Metrics">Each scheme's metrics from this round alone (C_SP of this round); a scheme under which some
/// program finished no counted run in this round has none.</param>
public sealed record CyclicRound(
    int Round,
    IReadOnlyList<string> Order,
    IReadOnlyList<ProgramTimings> Isolated,
    IReadOnlyList<(string Scheme, CyclicTestResult Result)> Tests,
    IReadOnlyList<SchemeMetrics> Metrics);
