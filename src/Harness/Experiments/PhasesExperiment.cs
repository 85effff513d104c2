using DivCon.Harness.Performance;
using DivCon.Harness.Reports;
using DivCon.Harness.Reports.Charts;

namespace DivCon.Harness.Experiments;

/// <summary>
/// The D&amp;C phases experiment: each program runs a few times with the skeleton's observer on; the
/// cumulative split/execute/merge time per recursion level is averaged over the runs. Writes
/// <c>phases.csv</c>, <c>summary.md</c> and <c>phases-&lt;program&gt;.svg</c> per program.
/// </summary>
public sealed class PhasesExperiment
{
    /// <summary>Creates the experiment.</summary>
    /// <param name="runs">Observed runs per program (≥ 1); the reported times are their average.</param>
    public PhasesExperiment(int runs = 3)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(runs, 1);
        Runs = runs;
    }

    /// <summary>Observed runs per program.</summary>
    public int Runs { get; }

    /// <summary>Runs every program and writes the files.</summary>
    /// <param name="cases">One case per program (names unique).</param>
    /// <param name="context">Output and progress.</param>
    /// <param name="cancellationToken">Cancels the experiment.</param>
    /// <returns>Average per-level times per program.</returns>
    public async Task<IReadOnlyList<(string Program, IReadOnlyList<PhaseLevelTimes> Levels)>> RunAsync(
        IReadOnlyList<PhaseCase> cases, ExperimentContext context, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(cases);
        ArgumentNullException.ThrowIfNull(context);
        if (cases.Count == 0 || cases.Select(c => c.Program).Distinct(StringComparer.Ordinal).Count() != cases.Count)
        {
            throw new ArgumentException("At least one program is needed, and names must be unique.", nameof(cases));
        }

        var results = new List<(string, IReadOnlyList<PhaseLevelTimes>)>();
        const string Phase = "phases";
        context.Progress.BeginPhase(Phase, cases.Count * Runs);
        try
        {
            int done = 0;
            foreach (PhaseCase c in cases)
            {
                var profile = new PhaseProfile();
                for (int run = 0; run < Runs; run++)
                {
                    await c.RunObserved(profile, cancellationToken).ConfigureAwait(false);
                    context.Progress.Report(Phase, ++done, $"{c.Program} run {run}");
                }

                results.Add((c.Program, profile.Levels().Select(l => new PhaseLevelTimes(l.Level, l.Split / Runs, l.Execute / Runs, l.Merge / Runs, l.Count / Runs)).ToArray()));
                context.Output.WriteText("phases.csv", w => PhaseReport.WriteCsv(w, results)); // the finished programs, kept should a later one fail
            }
        }
        finally
        {
            context.Progress.EndPhase(Phase);
        }

        ResultsFolder folder = context.Output;
        folder.WriteText("phases.csv", w => PhaseReport.WriteCsv(w, results));
        folder.WriteText("summary.md", w => PhaseReport.WriteMarkdown(w, results, folder.Stamp));
        foreach ((string program, IReadOnlyList<PhaseLevelTimes> levels) in results)
        {
            if (levels.Count > 0)
            {
                SvgFile.Save(folder, $"phases-{FileNames.Slug(program)}.svg", PhaseReport.Chart(program, levels));
            }
        }

        return results;
    }
}
