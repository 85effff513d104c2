using DivCon.Harness.Terminal;

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
        context.Console?.Write(SweepTable.Build(result, "Granularity"));
        return result;
    }
}
