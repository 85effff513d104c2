using System.Diagnostics;

namespace DivCon.Harness.Measurement;
/// <summary>
/// Computes the multiprogram metrics of Eyerman and Eeckhout (NTT, NP, ANTT, STP, MNTT) from raw timings.
/// </summary>
/// <remarks>
/// <para>
/// Per program: <c>C_SP</c> = mean isolated time, <c>C_MP</c> = mean workload time, <c>NTT = C_MP/C_SP</c>,
/// <c>NP = 1/NTT</c>. System: <c>ANTT</c> = mean NTT, <c>STP</c> = Σ NP, <c>MNTT</c> = max NTT.
/// </para>
/// <para>
/// Intervals within one test. Programs run concurrently but their per-run samples are treated as
/// independent, and <c>C_SP</c> as a constant. The variance of program i's mean NTT is <c>s_i²/k_i</c>
/// (s_i the standard deviation of its per-run NTTs, k_i its run count). ANTT's variance is
/// <c>Σ (s_i²/k_i) / n²</c>; STP's, by the delta method (<c>NP = 1/NTT</c>), is <c>Σ (s_i²/k_i) / NTT_i⁴</c>.
/// Both use Student-t with Welch-Satterthwaite degrees of freedom (<see cref="WelchSatterthwaite"/>). When
/// a program has a single counted run the system half-widths are NaN. MNTT gets no interval (a maximum is not
/// a mean). For rigorous intervals on system metrics, repeat the whole test and summarise the repetitions
/// with <see cref="SummarizeRepetitions"/>, which is what the thesis did.
/// </para>
/// </remarks>
public static class MultiprogramMetrics
{
    /// <summary>Computes per-program and system metrics.</summary>
    /// <param name="programs">Timings per program (at least one; names unique; every sample non-empty and positive).</param>
    /// <param name="confidenceLevel">Two-sided confidence level for every interval.</param>
    /// <returns>The workload metrics.</returns>
    /// <exception cref="ArgumentException">No programs, a duplicate name, an empty sample, or a non-positive time.</exception>
    public static WorkloadMetrics Compute(IReadOnlyList<ProgramMeasurements> programs, double confidenceLevel = SampleSummary.DefaultConfidenceLevel)
    {
        ArgumentNullException.ThrowIfNull(programs);
        StudentT.ValidateConfidenceLevel(confidenceLevel);
        if (programs.Count == 0)
        {
            throw new ArgumentException("A workload needs at least one program.", nameof(programs));
        }

        var names = new HashSet<string>(StringComparer.Ordinal);
        var metrics = new List<ProgramMetrics>(programs.Count);
        foreach (ProgramMeasurements program in programs)
        {
            ArgumentNullException.ThrowIfNull(program, nameof(programs));
            if (!names.Add(program.Program))
            {
                throw new ArgumentException($"Program '{program.Program}' appears twice.", nameof(programs));
            }

            metrics.Add(ForProgram(program, confidenceLevel));
        }

        int n = metrics.Count;
        double antt = metrics.Average(m => m.NormalizedTurnaroundTime);
        double stp = metrics.Sum(m => m.NormalizedProgress);
        ProgramMetrics worst = metrics.MaxBy(m => m.NormalizedTurnaroundTime)!;

        var anttTerms = new VarianceTerm[n];
        var stpTerms = new VarianceTerm[n];
        for (int i = 0; i < n; i++)
        {
            SampleSummary ntt = metrics[i].Ntt;
            double meanVariance = ntt.StandardDeviation * ntt.StandardDeviation / ntt.Count;
            double df = ntt.Count - 1;
            anttTerms[i] = new VarianceTerm(meanVariance / ((double)n * n), df);
            stpTerms[i] = new VarianceTerm(meanVariance / Math.Pow(ntt.Mean, 4), df);
        }

        return new WorkloadMetrics(
            metrics,
            antt,
            WelchSatterthwaite.HalfWidth(anttTerms, confidenceLevel),
            stp,
            WelchSatterthwaite.HalfWidth(stpTerms, confidenceLevel),
            worst.NormalizedTurnaroundTime,
            worst.Program,
            confidenceLevel);
    }

    /// <summary>Metrics of one program.</summary>
    /// <param name="program">Its timings.</param>
    /// <param name="confidenceLevel">Two-sided confidence level.</param>
    /// <returns>The program's metrics.</returns>
    /// <exception cref="ArgumentException">An empty sample or a non-positive time.</exception>
    public static ProgramMetrics ForProgram(ProgramMeasurements program, double confidenceLevel = SampleSummary.DefaultConfidenceLevel)
    {
        ArgumentNullException.ThrowIfNull(program);
        RequirePositive(program.SingleProgramSeconds, program.Program, "single-program");
        RequirePositive(program.MultiprogramSeconds, program.Program, "multiprogram");

        SampleSummary single = SampleSummary.Of(program.SingleProgramSeconds, confidenceLevel);
        SampleSummary multi = SampleSummary.Of(program.MultiprogramSeconds, confidenceLevel);
        double cSp = single.Mean;
        SampleSummary ntt = SampleSummary.Of(program.MultiprogramSeconds.Select(t => t / cSp), confidenceLevel);
        Debug.Assert(Math.Abs(ntt.Mean - (multi.Mean / cSp)) <= 1e-9 * Math.Max(1, ntt.Mean), "mean of ratios to a constant is the ratio of the mean");

        double np = 1.0 / ntt.Mean;
        double npHalfWidth = ntt.ConfidenceHalfWidth / (ntt.Mean * ntt.Mean);
        return new ProgramMetrics(program.Program, single, multi, ntt, np, npHalfWidth);
    }

    /// <summary>
    /// Summarises repeated runs of the same test (the same workload and scheme run several times): one ANTT,
    /// STP and MNTT per repetition, with ordinary Student-t intervals across repetitions.
    /// </summary>
    /// <param name="repetitions">One <see cref="WorkloadMetrics"/> per repetition (at least one).</param>
    /// <param name="confidenceLevel">Two-sided confidence level.</param>
    /// <returns>Summaries of ANTT, STP and MNTT across repetitions.</returns>
    /// <exception cref="ArgumentException"><paramref name="repetitions"/> is empty.</exception>
    public static RepeatedWorkloadSummary SummarizeRepetitions(IReadOnlyList<WorkloadMetrics> repetitions, double confidenceLevel = SampleSummary.DefaultConfidenceLevel)
    {
        ArgumentNullException.ThrowIfNull(repetitions);
        if (repetitions.Count == 0)
        {
            throw new ArgumentException("At least one repetition is needed.", nameof(repetitions));
        }

        return new RepeatedWorkloadSummary(
            SampleSummary.Of(repetitions.Select(r => r.Antt), confidenceLevel),
            SampleSummary.Of(repetitions.Select(r => r.Stp), confidenceLevel),
            SampleSummary.Of(repetitions.Select(r => r.Mntt), confidenceLevel));
    }

    private static void RequirePositive(IReadOnlyList<double> sample, string program, string mode)
    {
        if (sample is null || sample.Count == 0)
        {
            throw new ArgumentException($"Program '{program}' has no {mode} timings.", nameof(program));
        }

        foreach (double seconds in sample)
        {
            if (!(seconds > 0) || double.IsInfinity(seconds))
            {
                throw new ArgumentException($"Program '{program}' has a {mode} time of {seconds} s; times must be positive and finite.", nameof(program));
            }
        }
    }
}
