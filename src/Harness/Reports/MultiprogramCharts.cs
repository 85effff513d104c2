using DivCon.Harness.Measurement;

namespace DivCon.Harness.Reports;

/// <summary>
/// The standard charts of a multiprogram experiment, built from metrics per scheme: NTT and NP per program
/// and scheme, and ANTT, STP and MNTT per scheme, all with confidence-interval error bars; move latency percentiles
/// per partitioning scheme.
/// </summary>
public static class MultiprogramCharts
{
    /// <summary>NTT per program (groups) and scheme (bars); a dashed line at 1 (no slowdown).</summary>
    /// <param name="workload">Workload name for the title.</param>
    /// <param name="schemes">Metrics per scheme (at least one).</param>
    /// <returns>The chart.</returns>
    public static GroupedBarChart Ntt(string workload, IReadOnlyList<SchemeMetrics> schemes) =>
        PerProgram($"NTT, {workload} (lower is better)", "Normalized turnaround time", schemes,
            p => (p.NormalizedTurnaroundTime, p.Ntt.ConfidenceHalfWidth));

    /// <summary>NP per program (groups) and scheme (bars); a dashed line at 1 (isolated speed).</summary>
    /// <param name="workload">Workload name for the title.</param>
    /// <param name="schemes">Metrics per scheme (at least one).</param>
    /// <returns>The chart.</returns>
    public static GroupedBarChart Np(string workload, IReadOnlyList<SchemeMetrics> schemes) =>
        PerProgram($"NP, {workload} (higher is better)", "Normalized progress", schemes,
            p => (p.NormalizedProgress, p.NormalizedProgressHalfWidth));

    /// <summary>ANTT per scheme; a dashed line at 1 (ideal).</summary>
    /// <param name="workload">Workload name for the title.</param>
    /// <param name="schemes">Metrics per scheme (at least one).</param>
    /// <returns>The chart.</returns>
    public static GroupedBarChart Antt(string workload, IReadOnlyList<SchemeMetrics> schemes) =>
        PerScheme($"ANTT, {workload} (lower is better)", "ANTT", schemes, m => (m.Antt, m.AnttHalfWidth), 1);

    /// <summary>STP per scheme; a dashed line at the oracle's STP when given.</summary>
    /// <param name="workload">Workload name for the title.</param>
    /// <param name="schemes">Metrics per scheme (at least one).</param>
    /// <param name="oracle">The best static partition, or null.</param>
    /// <returns>The chart.</returns>
    public static GroupedBarChart Stp(string workload, IReadOnlyList<SchemeMetrics> schemes, OracleResult? oracle = null) =>
        PerScheme(oracle is null ? $"STP, {workload} (higher is better)" : $"STP, {workload} (higher is better; dashed: static oracle)",
            "STP", schemes, m => (m.Stp, m.StpHalfWidth), oracle?.Stp);

    /// <summary>MNTT per scheme (the symmetric tests' metric); a dashed line at 1.</summary>
    /// <param name="workload">Workload name for the title.</param>
    /// <param name="schemes">Metrics per scheme (at least one).</param>
    /// <returns>The chart.</returns>
    public static GroupedBarChart Mntt(string workload, IReadOnlyList<SchemeMetrics> schemes) =>
        PerScheme($"MNTT, {workload} (lower is better)", "MNTT", schemes, m => (m.Mntt, double.NaN), 1);

    /// <summary>
    /// Move latency per partitioning scheme (groups): p50, p95, p99 and max (bars), in milliseconds on a log10 axis,
    /// since the tail is often decades above the median. A scheme whose moves never arrived has no bars; a percentile
    /// of 0 ms (below the clock's resolution) has none either, as a logarithmic axis cannot show it.
    /// </summary>
    /// <param name="workload">Workload name for the title.</param>
    /// <param name="latencies">One summary per scheme (at least one).</param>
    /// <returns>The chart.</returns>
    /// <exception cref="ArgumentException">No summaries.</exception>
    public static GroupedBarChart MoveLatency(string workload, IReadOnlyList<MoveLatencySummary> latencies)
    {
        ArgumentNullException.ThrowIfNull(latencies);
        if (latencies.Count == 0)
        {
            throw new ArgumentException("At least one scheme's move latencies are needed.", nameof(latencies));
        }

        static double Shown(double ms) => ms > 0 ? ms : double.NaN;
        BarSeries Percentile(string name, Func<MoveLatencySummary, double> select) =>
            new(name, latencies.Select(m => Shown(select(m))).ToArray());
        return new GroupedBarChart($"Move latency, {workload} (decision to a worker serving the new owner)", "Latency (ms)",
            latencies.Select(m => m.Scheme).ToArray(),
            [Percentile("p50", m => m.P50Ms), Percentile("p95", m => m.P95Ms), Percentile("p99", m => m.P99Ms), Percentile("max", m => m.MaxMs)],
            "Scheme", yScale: AxisScale.Log10);
    }

    private static GroupedBarChart PerProgram(string title, string yLabel, IReadOnlyList<SchemeMetrics> schemes, Func<ProgramMetrics, (double Value, double HalfWidth)> select)
    {
        RequireSchemes(schemes);
        string[] programs = schemes.SelectMany(s => s.Metrics.Programs.Select(p => p.Program)).Distinct(StringComparer.Ordinal).ToArray();
        var series = schemes.Select(s =>
        {
            var values = new double[programs.Length];
            var halfWidths = new double[programs.Length];
            for (int i = 0; i < programs.Length; i++)
            {
                ProgramMetrics? p = s.Metrics.Programs.FirstOrDefault(m => m.Program == programs[i]);
                (values[i], halfWidths[i]) = p is null ? (double.NaN, double.NaN) : select(p);
            }

            return new BarSeries(s.Scheme, values, halfWidths);
        }).ToArray();
        return new GroupedBarChart(title, yLabel, programs, series, "Program", referenceLine: 1);
    }

    private static GroupedBarChart PerScheme(string title, string yLabel, IReadOnlyList<SchemeMetrics> schemes, Func<WorkloadMetrics, (double Value, double HalfWidth)> select, double? reference)
    {
        RequireSchemes(schemes);
        (double Value, double HalfWidth)[] points = schemes.Select(s => select(s.Metrics)).ToArray();
        return new GroupedBarChart(title, yLabel, schemes.Select(s => s.Scheme).ToArray(),
            [new BarSeries(yLabel, points.Select(p => p.Value).ToArray(), points.Select(p => p.HalfWidth).ToArray())],
            "Scheme", reference, colorByCategory: true);
    }

    private static void RequireSchemes(IReadOnlyList<SchemeMetrics> schemes)
    {
        ArgumentNullException.ThrowIfNull(schemes);
        if (schemes.Count == 0)
        {
            throw new ArgumentException("At least one scheme is needed.", nameof(schemes));
        }
    }
}
