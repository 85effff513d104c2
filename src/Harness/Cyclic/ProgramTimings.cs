namespace DivCon.Harness.Cyclic;

/// <summary>Repeated timings of one program, in seconds (e.g. its isolated runs: the C_SP sample).</summary>
/// <param name="Program">Program name.</param>
/// <param name="Seconds">Run durations in run order.</param>
public sealed record ProgramTimings(string Program, IReadOnlyList<double> Seconds);
