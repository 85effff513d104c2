namespace DivCon.Harness.Metrics;

/// <summary>
/// The raw timings of one program in one multiprogram test: its isolated runs (single-program mode, the
/// whole machine to itself) and its counted runs inside the workload (multiprogram mode), in seconds.
/// </summary>
/// <param name="Program">Program name, unique within the workload.</param>
/// <param name="SingleProgramSeconds">Durations of the isolated runs (C_SP sample).</param>
/// <param name="MultiprogramSeconds">Durations of the counted workload runs (C_MP sample).</param>
public sealed record ProgramMeasurements(
    string Program,
    IReadOnlyList<double> SingleProgramSeconds,
    IReadOnlyList<double> MultiprogramSeconds);
