namespace DivCon.Harness.Metrics;

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
