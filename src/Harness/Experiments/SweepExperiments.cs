using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;

namespace DivCon.Harness.Experiments;

/// <summary>
/// The granularity experiment: each program alone on the whole machine at granularities from the whole
/// problem down to small fractions of it (X = fraction of the problem per leaf), timed repeatedly; writes
/// <c>runs.csv</c>, <c>summary.json</c>, <c>summary.md</c> and <c>time-vs-granularity.svg</c>.
/// </summary>
/// <param name="runner">How each case is timed (repetitions, warm-up, confidence).</param>
public sealed class GranularityExperiment(SweepRunner runner)
{
    private readonly SweepRunner _runner = runner ?? throw new ArgumentNullException(nameof(runner));

    /// <summary>Runs the cases, writes the files and shows the table.</summary>
    /// <param name="cases">One case per (program, granularity fraction in (0, 1]).</param>
    /// <param name="context">Output, progress, console.</param>
    /// <param name="cancellationToken">Cancels the sweep.</param>
    /// <returns>The measurements.</returns>
    public async Task<SweepResult> RunAsync(IReadOnlyList<SweepCase> cases, ExperimentContext context, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(cases);
        ArgumentNullException.ThrowIfNull(context);
        if (cases.Any(c => !(c.X > 0 && c.X <= 1)))
        {
            throw new ArgumentException("Granularity fractions must lie in (0, 1].", nameof(cases));
        }

        SweepResult result = await _runner.RunAsync("granularity", cases, cancellationToken).ConfigureAwait(false);
        SweepReportWriter.Write(context.Output, result, "Granularity", [("time-vs-granularity.svg", SweepCharts.TimeVsGranularity(result))]);
        return result;
    }
}

/// <summary>
/// The scalability experiment: each program alone on 1..N pinned cores (per allocation strategy, e.g. series
/// "quicksort" and "quicksort (dispersed)"), timed repeatedly; speedups against the sequential time. Writes
/// <c>runs.csv</c>, <c>summary.json</c>, <c>summary.md</c>, <c>speedup-vs-cores.svg</c> and
/// <c>speedup-tables.json</c> (the scalability profiles the oracle and the partitioning policies reuse).
/// </summary>
/// <param name="runner">How each case is timed.</param>
public sealed class ScalabilityExperiment(SweepRunner runner)
{
    private readonly SweepRunner _runner = runner ?? throw new ArgumentNullException(nameof(runner));

    /// <summary>Runs the cases, writes the files and shows the table.</summary>
    /// <param name="cases">One case per (series, core count ≥ 1).</param>
    /// <param name="sequentialSeconds">Sequential time per series (the speedup baseline).</param>
    /// <param name="context">Output, progress, console.</param>
    /// <param name="cancellationToken">Cancels the sweep.</param>
    /// <returns>The measurements and the speedup table per series.</returns>
    public async Task<(SweepResult Sweep, IReadOnlyList<SpeedupTable> Speedups)> RunAsync(
        IReadOnlyList<SweepCase> cases, IReadOnlyDictionary<string, double> sequentialSeconds, ExperimentContext context, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(cases);
        ArgumentNullException.ThrowIfNull(sequentialSeconds);
        ArgumentNullException.ThrowIfNull(context);
        if (cases.Any(c => c.X < 1 || c.X != Math.Floor(c.X)))
        {
            throw new ArgumentException("Core counts must be whole numbers ≥ 1.", nameof(cases));
        }

        SweepResult result = await _runner.RunAsync("scalability", cases, cancellationToken).ConfigureAwait(false);
        IReadOnlyList<SpeedupTable> speedups = result.SpeedupSeries(sequentialSeconds)
            .Select(s => new SpeedupTable(s.Name, s.Points.ToDictionary(p => (int)p.X, p => p.Y)))
            .ToArray();
        SweepReportWriter.Write(context.Output, result, "Cores", [("speedup-vs-cores.svg", SweepCharts.SpeedupVsCores(result, sequentialSeconds))]);
        context.Output.WriteJson("speedup-tables.json", SpeedupTableFile.ToData(speedups));
        return (result, speedups);
    }
}
