namespace DivCon.Harness.Experiments;

/// <summary>One configuration of a sweep: a series (e.g. a program), a parameter value, and how to run it once.</summary>
/// <param name="Series">Series name (one line in the chart).</param>
/// <param name="X">Parameter value (granularity fraction, core count...).</param>
/// <param name="RunOnce">Runs the configuration once; the runner times it.</param>
public sealed record SweepCase(string Series, double X, Func<CancellationToken, Task> RunOnce);
