namespace DivCon.Harness.Measurement;

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

/// <summary>
/// Per-program multiprogram metrics: single- and multi-program times, normalized turnaround time (NTT) and
/// normalized progress (NP).
/// </summary>
/// <remarks>
/// <c>C_SP</c> is the mean isolated time and <c>C_MP</c> the mean time inside the workload;
/// <c>NTT = C_MP / C_SP</c> (lower is better, 1 means no slowdown) and <c>NP = 1 / NTT</c>.
/// <see cref="Ntt"/> summarises the per-run ratios <c>C_MP,k / C_SP</c>; its mean equals <c>C_MP / C_SP</c>
/// exactly, and its interval treats <c>C_SP</c> as a constant (the isolated runs are few but usually steady;
/// their own spread is reported in <see cref="SingleProgram"/>). The NP half-width is the delta-method
/// transform of the NTT half-width, <c>h_NP = h_NTT / NTT²</c>.
/// </remarks>
/// <param name="Program">Program name.</param>
/// <param name="SingleProgram">Summary of the isolated run times in seconds (its mean is C_SP).</param>
/// <param name="Multiprogram">Summary of the workload run times in seconds (its mean is C_MP).</param>
/// <param name="Ntt">Summary of the per-run normalized turnaround times (its mean is NTT).</param>
/// <param name="NormalizedProgress">NP = C_SP / C_MP.</param>
/// <param name="NormalizedProgressHalfWidth">Approximate half-width of NP's interval; NaN when unknown.</param>
public sealed record ProgramMetrics(
    string Program,
    SampleSummary SingleProgram,
    SampleSummary Multiprogram,
    SampleSummary Ntt,
    double NormalizedProgress,
    double NormalizedProgressHalfWidth)
{
    /// <summary>C_SP: mean isolated time in seconds.</summary>
    public double SingleProgramSeconds => SingleProgram.Mean;

    /// <summary>C_MP: mean time inside the workload in seconds.</summary>
    public double MultiprogramSeconds => Multiprogram.Mean;

    /// <summary>NTT = C_MP / C_SP.</summary>
    public double NormalizedTurnaroundTime => Ntt.Mean;
}

/// <summary>
/// System-level metrics of one multiprogram workload under one scheme: ANTT, STP and MNTT with the
/// per-program metrics they came from.
/// </summary>
/// <remarks>
/// <c>ANTT = (1/n) Σ NTT_i</c> (lower is better, between 1 and about n), <c>STP = Σ NP_i</c> (higher is
/// better, between about 1 and n), <c>MNTT = max NTT_i</c>. See <see cref="MultiprogramMetrics"/> for how the
/// half-widths are obtained.
/// </remarks>
/// <param name="Programs">Per-program metrics, in input order.</param>
/// <param name="Antt">Average normalized turnaround time.</param>
/// <param name="AnttHalfWidth">Half-width of ANTT's interval; NaN when some program has fewer than two runs.</param>
/// <param name="Stp">System throughput.</param>
/// <param name="StpHalfWidth">Half-width of STP's interval; NaN when some program has fewer than two runs.</param>
/// <param name="Mntt">Maximum normalized turnaround time.</param>
/// <param name="MnttProgram">The program with the largest NTT.</param>
/// <param name="ConfidenceLevel">Confidence level of every half-width here.</param>
public sealed record WorkloadMetrics(
    IReadOnlyList<ProgramMetrics> Programs,
    double Antt,
    double AnttHalfWidth,
    double Stp,
    double StpHalfWidth,
    double Mntt,
    string MnttProgram,
    double ConfidenceLevel);

/// <summary>The metrics of one workload under one multiprogramming scheme.</summary>
/// <param name="Scheme">Scheme name (e.g. "shared", "static-partition").</param>
/// <param name="Metrics">The workload's metrics under it.</param>
public sealed record SchemeMetrics(string Scheme, WorkloadMetrics Metrics)
{
    /// <summary>Warnings about metrics that cannot be true or lack a useful interval (<see cref="MetricFlag.Of"/>);
    /// empty when none.</summary>
    public IReadOnlyList<MetricFlag> Flags { get; init; } = [];
}

/// <summary>System metrics summarised across repetitions of the same multiprogram test.</summary>
/// <param name="Antt">ANTT across repetitions.</param>
/// <param name="Stp">STP across repetitions.</param>
/// <param name="Mntt">MNTT across repetitions.</param>
public sealed record RepeatedWorkloadSummary(SampleSummary Antt, SampleSummary Stp, SampleSummary Mntt);
