using DivCon.Harness.Statistics;

namespace DivCon.Harness.Metrics;

/// <summary>System metrics summarised across repetitions of the same multiprogram test.</summary>
/// <param name="Antt">ANTT across repetitions.</param>
/// <param name="Stp">STP across repetitions.</param>
/// <param name="Mntt">MNTT across repetitions.</param>
public sealed record RepeatedWorkloadSummary(SampleSummary Antt, SampleSummary Stp, SampleSummary Mntt);
