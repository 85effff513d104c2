using System.Globalization;
using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;

namespace DivCon.Harness.Experiments;

/// <summary>
/// Writes a cyclic experiment's files into its results folder (which already holds <c>stamp.json</c>):
/// <list type="bullet">
/// <item><c>runs.csv</c>: every workload run (scheme, program, run index, start, end, duration, counted, round);
/// times are from the start of the run's own cyclic test (its scheme's block in its round);</item>
/// <item><c>rounds.csv</c> and <c>blocks.csv</c>: per round and block, see <see cref="RoundsReport"/>;</item>
/// <item><c>isolated.csv</c>: every isolated run (program, run index, seconds, round);</item>
/// <item><c>summary.json</c>: isolated timings, metrics per scheme, oracle; <c>summary.md</c>: the same as tables;</item>
/// <item><c>move-latency.csv</c> and a "Move latency" section in <c>summary.md</c>: per partitioning scheme, the
/// p50 / p95 / p99 / max time from a decision to a worker serving the moved core's new owner; <c>moves.csv</c>: every
/// move (scheme, decision time, what moved, latency; empty when it did not arrive); <c>move-latency.svg</c>: the
/// percentiles per scheme as bars on a log10 millisecond axis;</item>
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
            result.Rounds.Count > 0
                ? folder.WriteText("runs.csv", w => RoundsReport.WriteRuns(w, result))
                : folder.WriteText("runs.csv", w => RunRecordsCsv.Write(w, result.Tests)),
            folder.WriteText("isolated.csv", w => Csv.Write(w, ["program", "run_index", "seconds", "round"], IsolatedRows(result))),
            folder.WriteText("rounds.csv", w => RoundsReport.WriteRounds(w, result)),
            folder.WriteText("blocks.csv", w => RoundsReport.WriteBlocks(w, result)),
            folder.WriteJson("summary.json", new
            {
                result.Workload,
                result.Isolated,
                Schemes = result.Metrics,
                result.Oracle,
                result.Incomplete,
                Rounds = result.Rounds.Select(r => new { r.Round, r.Order, r.Isolated, Schemes = r.Metrics }),
                result.AcrossRounds,
                Ranking = result.Ranking.Select(s => s.Text),
                result.Blocks,
                result.MoveLatencies,
            }),
            folder.WriteText("summary.md", w => MultiprogramMarkdown.Write(w, $"Cyclic test: {result.Workload} workload", result.Metrics, folder.Stamp, result.Oracle)),
            SvgFile.Save(folder, "ntt.svg", MultiprogramCharts.Ntt(result.Workload, result.Metrics)),
            SvgFile.Save(folder, "np.svg", MultiprogramCharts.Np(result.Workload, result.Metrics)),
            SvgFile.Save(folder, "antt.svg", MultiprogramCharts.Antt(result.Workload, result.Metrics)),
            SvgFile.Save(folder, "stp.svg", MultiprogramCharts.Stp(result.Workload, result.Metrics, result.Oracle)),
            SvgFile.Save(folder, "mntt.svg", MultiprogramCharts.Mntt(result.Workload, result.Metrics)),
        };
        if (result.Rounds.Count > 1)
        {
            // After the Run table, so that the stamp stays where every summary has it.
            using (StreamWriter writer = File.AppendText(folder.PathOf("summary.md")))
            {
                RoundsReport.WriteMarkdown(writer, result);
            }
        }

        if (result.Bracketed)
        {
            // After the Run table, so that the stamp stays where every summary has it.
            File.AppendAllLines(folder.PathOf("summary.md"),
            [
                "", "## C_SP around every block", "",
                "An isolated block ran before the first scheme block and after every scheme block. The pooled tables above express every block's runs "
                + "at the pooled C_SP's machine speed: a run of program p counts as its duration x C_SP(p) / C_SP around its block(p), so each block is "
                + "normalised by the isolated runs just before and after it, and a machine whose speed drifts between blocks biases no scheme "
                + "(runs.csv keeps the measured durations).",
                "",
            ]);
        }

        if (result.Incomplete.Count > 0)
        {
            // After the Run table, so that the stamp stays where every summary has it.
            File.AppendAllLines(folder.PathOf("summary.md"),
                ["", "## Schemes without metrics", "", .. result.Incomplete.Select(i => $"- {MarkdownTable.EscapeCell(i.ToString())} (its runs are in runs.csv)."), ""]);
        }

        if (result.MoveLatencies.Count > 0)
        {
            files.Add(folder.WriteText("move-latency.csv", w => Csv.Write(w, ["scheme", "moves", "arrived", "p50_ms", "p95_ms", "p99_ms", "max_ms"],
                result.MoveLatencies.Select(m => (IReadOnlyList<string>)[m.Scheme, m.Moves.ToString(CultureInfo.InvariantCulture),
                    m.Arrived.ToString(CultureInfo.InvariantCulture), Csv.Number(m.P50Ms), Csv.Number(m.P95Ms), Csv.Number(m.P99Ms), Csv.Number(m.MaxMs)]))));
            files.Add(folder.WriteText("moves.csv", w => Csv.Write(w, ["scheme", "decided_s", "move", "latency_ms"],
                result.MoveSamples.Select(m => (IReadOnlyList<string>)[m.Scheme, Csv.Number(m.Move.DecidedAt.TotalSeconds), m.Move.Label,
                    m.Move.Latency is { } latency ? Csv.Number(latency.TotalMilliseconds) : string.Empty]))));
            File.AppendAllLines(folder.PathOf("summary.md"), MoveLatencyMarkdown(result.MoveLatencies));
            files.Add(SvgFile.Save(folder, "move-latency.svg", MultiprogramCharts.MoveLatency(result.Workload, result.MoveLatencies)));
        }

        foreach ((string scheme, AllocationChart chart) in result.Allocations)
        {
            files.Add(SvgFile.Save(folder, $"allocation-{FileNames.Slug(scheme)}.svg", chart));
        }

        return files;
    }

    private static IEnumerable<IReadOnlyList<string>> IsolatedRows(CyclicExperimentResult result)
    {
        if (result.Rounds.Count == 0)
        {
            return result.Isolated.SelectMany(t => t.Seconds.Select((s, i) => (IReadOnlyList<string>)[t.Program, Int(i), Csv.Number(s), "1"]));
        }

        // Run indices continue across rounds, as in the pooled C_SP sample.
        return result.Isolated.SelectMany(t => result.Rounds
            .SelectMany(r => r.Isolated.Where(x => x.Program == t.Program).SelectMany(x => x.Seconds.Select(s => (Seconds: s, r.Round))))
            .Select((x, i) => (IReadOnlyList<string>)[t.Program, Int(i), Csv.Number(x.Seconds), Int(x.Round)]));
    }

    private static string Int(int value) => value.ToString(CultureInfo.InvariantCulture);

    /// <summary>The "Move latency" section of the summary.</summary>
    /// <param name="latencies">One summary per scheme.</param>
    /// <returns>The lines.</returns>
    internal static IEnumerable<string> MoveLatencyMarkdown(IReadOnlyList<MoveLatencySummary> latencies)
    {
        var table = new MarkdownTable(["Scheme", "Moves", "Arrived", "p50 (ms)", "p95 (ms)", "p99 (ms)", "max (ms)"]);
        foreach (MoveLatencySummary m in latencies)
        {
            table.AddRow(m.Scheme, m.Moves.ToString(CultureInfo.InvariantCulture), m.Arrived.ToString(CultureInfo.InvariantCulture),
                Ms(m.P50Ms), Ms(m.P95Ms), Ms(m.P99Ms), Ms(m.MaxMs));
        }

        var text = new StringWriter(CultureInfo.InvariantCulture);
        table.WriteTo(text);
        return ["", "## Move latency (decision to a worker serving the new owner)", "", .. text.ToString().TrimEnd().Split('\n').Select(l => l.TrimEnd('\r')), ""];
    }

    private static string Ms(double value) => double.IsNaN(value) ? "-" : value.ToString("0.###", CultureInfo.InvariantCulture);

    /// <summary>Writes (or rewrites) <c>runs.csv</c> with the tests finished so far; called after each scheme so
    /// that a run that fails or is cancelled later keeps them.</summary>
    /// <param name="folder">The experiment's folder.</param>
    /// <param name="tests">(scheme, result) of the finished schemes.</param>
    /// <returns>The file's full path.</returns>
    public static string WriteRuns(ResultsFolder folder, IEnumerable<(string Scheme, CyclicTestResult Result)> tests)
    {
        ArgumentNullException.ThrowIfNull(folder);
        ArgumentNullException.ThrowIfNull(tests);
        return folder.WriteText("runs.csv", w => RunRecordsCsv.Write(w, tests));
    }

    /// <summary>Writes <c>isolated.csv</c>: every isolated run (program, run index, seconds).</summary>
    /// <param name="folder">The experiment's folder.</param>
    /// <param name="isolated">The isolated timings.</param>
    /// <returns>The file's full path.</returns>
    public static string WriteIsolated(ResultsFolder folder, IEnumerable<ProgramTimings> isolated)
    {
        ArgumentNullException.ThrowIfNull(folder);
        ArgumentNullException.ThrowIfNull(isolated);
        return folder.WriteText("isolated.csv", w => Csv.Write(w, ["program", "run_index", "seconds"],
            isolated.SelectMany(t => t.Seconds.Select((s, i) => (IReadOnlyList<string>)[t.Program, i.ToString(CultureInfo.InvariantCulture), Csv.Number(s)]))));
    }
}
