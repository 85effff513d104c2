using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using DivCon.Skeletons;

namespace DivCon.Harness.Experiments;

/// <summary>
/// The D&amp;C phases experiment: each program runs a few times on each worker count with the skeleton's observer
/// on. The cumulative split/execute/merge time per recursion level on the largest worker count is averaged over the
/// runs; with a one-worker count as well, the performance model compares every count with it (work, overhead,
/// idle, work inflation, T_P against max(T_1/P, T_∞)). Writes <c>phases.csv</c>, <c>summary.md</c>,
/// <c>phases-&lt;program&gt;.svg</c> per program and, with the model, <c>performance.csv</c>,
/// <c>performance.svg</c> and <c>time-vs-bound.svg</c>.
/// </summary>
public sealed class PhasesExperiment
{
    /// <summary>Creates the experiment.</summary>
    /// <param name="runs">Observed runs per program and worker count (≥ 1); the reported times are their average.</param>
    /// <param name="workerCounts">Worker counts to observe, each ≥ 1 (default: 1 only); include 1 for the performance model.</param>
    public PhasesExperiment(int runs = 3, IReadOnlyList<int>? workerCounts = null)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(runs, 1);
        int[] counts = (workerCounts ?? [1]).Distinct().Order().ToArray();
        if (counts.Length == 0 || counts[0] < 1)
        {
            throw new ArgumentException($"Worker counts must be at least 1 (got [{string.Join(", ", workerCounts ?? [])}]).", nameof(workerCounts));
        }

        Runs = runs;
        WorkerCounts = counts;
    }

    /// <summary>Observed runs per program and worker count.</summary>
    public int Runs { get; }

    /// <summary>The worker counts observed, ascending.</summary>
    public IReadOnlyList<int> WorkerCounts { get; }

    /// <summary>Runs every program and writes the files.</summary>
    /// <param name="cases">One case per program (names unique).</param>
    /// <param name="context">Output, progress and the clock.</param>
    /// <param name="cancellationToken">Cancels the experiment.</param>
    /// <returns>Per program: the mean levels on the largest worker count, and the model per worker count.</returns>
    public async Task<IReadOnlyList<PhasesResult>> RunAsync(IReadOnlyList<PhaseCase> cases, ExperimentContext context, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(cases);
        ArgumentNullException.ThrowIfNull(context);
        if (cases.Count == 0 || cases.Select(c => c.Program).Distinct(StringComparer.Ordinal).Count() != cases.Count)
        {
            throw new ArgumentException("At least one program is needed, and names must be unique.", nameof(cases));
        }

        var results = new List<PhasesResult>();
        const string Phase = "phases";
        context.Progress.BeginPhase(Phase, cases.Count * Runs * WorkerCounts.Count);
        try
        {
            int done = 0;
            foreach (PhaseCase c in cases)
            {
                var observed = new List<RunObservation>();
                foreach (int workers in WorkerCounts)
                {
                    var runs = new List<RunObservation>();
                    for (int run = 0; run < Runs; run++)
                    {
                        runs.Add(await RunObservation.ObserveAsync(workers, (observer, ct) => c.RunObserved(workers, observer, ct), context.Time, cancellationToken).ConfigureAwait(false));
                        context.Progress.Report(Phase, ++done, $"{c.Program} on {workers} worker(s), run {run}");
                    }

                    observed.Add(RunObservation.Mean(runs));
                }

                RunObservation? one = observed.Find(o => o.Workers == 1);
                PerformanceBreakdown[] model = one is null || one.Work <= TimeSpan.Zero
                    ? []
                    : observed.Select(o => PerformanceModel.Analyze(o, one)).ToArray();
                results.Add(new PhasesResult(c.Program, observed[^1].Levels, observed, model));
                context.Output.WriteText("phases.csv", w => PhaseReport.WriteCsv(w, results.Select(r => (r.Program, r.Levels)).ToArray())); // the finished programs, kept should a later one fail
            }
        }
        finally
        {
            context.Progress.EndPhase(Phase);
        }

        ResultsFolder folder = context.Output;
        var levels = results.Select(r => (r.Program, r.Levels)).ToArray();
        var performance = results.SelectMany(r => r.Performance.Select(b => (r.Program, b))).ToArray();
        folder.WriteText("phases.csv", w => PhaseReport.WriteCsv(w, levels));
        folder.WriteText("summary.md", w => PhaseReport.WriteMarkdown(w, levels, folder.Stamp, performance));
        foreach (PhasesResult result in results.Where(r => r.Levels.Count > 0))
        {
            SvgFile.Save(folder, $"phases-{FileNames.Slug(result.Program)}.svg", PhaseReport.Chart(result.Program, result.Levels));
        }

        PerformanceReport.WriteFiles(folder, performance);
        return results;
    }
}

/// <summary>What the phases experiment found for one program.</summary>
/// <param name="Program">Program name.</param>
/// <param name="Levels">Mean per-level phase times on the largest worker count.</param>
/// <param name="Observations">Mean observation per worker count, ascending.</param>
/// <param name="Performance">The model per worker count (empty without a one-worker observation).</param>
public sealed record PhasesResult(string Program, IReadOnlyList<PhaseLevelTimes> Levels, IReadOnlyList<RunObservation> Observations, IReadOnlyList<PerformanceBreakdown> Performance);

/// <summary>One program of the phases experiment.</summary>
/// <param name="Program">Program name.</param>
/// <param name="RunObserved">Runs the program once on the given number of workers (one of the experiment's
/// <see cref="PhasesExperiment.WorkerCounts"/>), reporting every split/execute/merge to the observer.</param>
public sealed record PhaseCase(string Program, Func<int, IDivideAndConquerObserver, CancellationToken, Task> RunObserved);
