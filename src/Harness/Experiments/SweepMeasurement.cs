using DivCon.Harness.Statistics;

namespace DivCon.Harness.Experiments;

/// <summary>The timings of one sweep configuration.</summary>
/// <param name="Series">Series name.</param>
/// <param name="X">Parameter value.</param>
/// <param name="Seconds">Recorded run times.</param>
/// <param name="Time">Their summary (mean, deviation, interval).</param>
public sealed record SweepMeasurement(string Series, double X, IReadOnlyList<double> Seconds, SampleSummary Time);
