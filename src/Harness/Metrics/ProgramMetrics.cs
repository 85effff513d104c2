using DivCon.Harness.Statistics;

namespace DivCon.Harness.Metrics;

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
