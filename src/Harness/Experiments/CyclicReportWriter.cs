using System.Globalization;
using DivCon.Harness.Reports;
using DivCon.Harness.Reports.Charts;

namespace DivCon.Harness.Experiments;

/// <summary>
/// Writes a cyclic experiment's files into its results folder (which already holds <c>stamp.json</c>):
/// <list type="bullet">
/// <item><c>runs.csv</c>: every workload run (scheme, program, run index, start, end, duration, counted);</item>
/// <item><c>isolated.csv</c>: every isolated run (program, run index, seconds);</item>
/// <item><c>summary.json</c>: isolated timings, metrics per scheme, oracle; <c>summary.md</c>: the same as tables;</item>
/// <item><c>ntt.svg</c>, <c>np.svg</c>, <c>antt.svg</c>, <c>stp.svg</c>, <c>mntt.svg</c>, and <c>allocation-&lt;scheme&gt;.svg</c> per partitioning scheme.</item>
/// </list>
/// </summary>
public static class CyclicReportWriter
{
    /// <summary>Writes every file.</summary>
    /// <param name="folder">The experiment's folder.</param>
    /// <param name="result">The experiment's result.</param>
    /// <returns>Full paths of the files written (stamp.json excluded).</returns>
    public static IReadOnlyList<string> Write(ResultsFolder folder, CyclicExperimentResult result)
    {
        ArgumentNullException.ThrowIfNull(folder);
        ArgumentNullException.ThrowIfNull(result);
        var files = new List<string>
        {
            WriteRuns(folder, result.Tests),
            WriteIsolated(folder, result.Isolated),
            folder.WriteJson("summary.json", new { result.Workload, result.Isolated, Schemes = result.Metrics, result.Oracle, result.Incomplete }),
            folder.WriteText("summary.md", w => MultiprogramMarkdown.Write(w, $"Cyclic test: {result.Workload} workload", result.Metrics, folder.Stamp, result.Oracle)),
            SvgFile.Save(folder, "ntt.svg", MultiprogramCharts.Ntt(result.Workload, result.Metrics)),
            SvgFile.Save(folder, "np.svg", MultiprogramCharts.Np(result.Workload, result.Metrics)),
            SvgFile.Save(folder, "antt.svg", MultiprogramCharts.Antt(result.Workload, result.Metrics)),
            SvgFile.Save(folder, "stp.svg", MultiprogramCharts.Stp(result.Workload, result.Metrics, result.Oracle)),
            SvgFile.Save(folder, "mntt.svg", MultiprogramCharts.Mntt(result.Workload, result.Metrics)),
        };
        if (result.Incomplete.Count > 0)
        {
            // After the Run table, so that the stamp stays where every summary has it.
            File.AppendAllLines(folder.PathOf("summary.md"),
                ["", "## Schemes without metrics", "", .. result.Incomplete.Select(i => $"- {MarkdownTable.EscapeCell(i.ToString())} (its runs are in runs.csv)."), ""]);
        }

        foreach ((string scheme, AllocationChart chart) in result.Allocations)
        {
            files.Add(SvgFile.Save(folder, $"allocation-{FileNames.Slug(scheme)}.svg", chart));
        }

        return files;
    }

    /// <summary>Writes (or rewrites) <c>runs.csv</c> with the tests finished so far; called after each scheme so
    /// that a run that fails or is cancelled later keeps them.</summary>
    /// <param name="folder">The experiment's folder.</param>
    /// <param name="tests">(scheme, result) of the finished schemes.</param>
    /// <returns>The file's full path.</returns>
    public static string WriteRuns(ResultsFolder folder, IEnumerable<(string Scheme, Cyclic.CyclicTestResult Result)> tests)
    {
        ArgumentNullException.ThrowIfNull(folder);
        ArgumentNullException.ThrowIfNull(tests);
        return folder.WriteText("runs.csv", w => RunRecordsCsv.Write(w, tests));
    }

    /// <summary>Writes <c>isolated.csv</c>: every isolated run (program, run index, seconds).</summary>
    /// <param name="folder">The experiment's folder.</param>
    /// <param name="isolated">The isolated timings.</param>
    /// <returns>The file's full path.</returns>
    public static string WriteIsolated(ResultsFolder folder, IEnumerable<Cyclic.ProgramTimings> isolated)
    {
        ArgumentNullException.ThrowIfNull(folder);
        ArgumentNullException.ThrowIfNull(isolated);
        return folder.WriteText("isolated.csv", w => Csv.Write(w, ["program", "run_index", "seconds"],
            isolated.SelectMany(t => t.Seconds.Select((s, i) => (IReadOnlyList<string>)[t.Program, i.ToString(CultureInfo.InvariantCulture), Csv.Number(s)]))));
    }
}
