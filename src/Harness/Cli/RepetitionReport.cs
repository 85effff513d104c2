using System.Globalization;
using DivCon.Harness.Experiments;
using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using Spectre.Console;

namespace DivCon.Harness.Cli;

/// <summary>
/// Combines repetitions of one cyclic test: ANTT, STP and MNTT per scheme with ordinary Student-t intervals across
/// repetitions (<see cref="MultiprogramMetrics.SummarizeRepetitions"/>), the defensible way to compare schemes'
/// system metrics. Writes <c>repetitions.csv</c>, <c>summary.json</c>, <c>summary.md</c> and <c>stp.svg</c>.
/// </summary>
public static class RepetitionReport
{
    /// <summary>Summary of one scheme across the repetitions that gave it metrics.</summary>
    /// <param name="Scheme">The scheme.</param>
    /// <param name="Repetitions">How many repetitions had metrics for it.</param>
    /// <param name="Summary">ANTT, STP and MNTT across them.</param>
    /// <param name="Flags">Flags of the repetitions' metrics, and too few repetitions (<see cref="MetricFlag.OfRepetitions"/>).</param>
    public sealed record SchemeSummary(string Scheme, int Repetitions, RepeatedWorkloadSummary Summary, IReadOnlyList<MetricFlag> Flags);

    /// <summary>Summarises the repetitions per scheme.</summary>
    /// <param name="repetitions">The experiments, one per repetition.</param>
    /// <returns>One summary per scheme with metrics in at least one repetition, in scheme order.</returns>
    public static IReadOnlyList<SchemeSummary> Summarize(IReadOnlyList<CyclicExperimentResult> repetitions)
    {
        ArgumentNullException.ThrowIfNull(repetitions);
        string[] schemes = repetitions.SelectMany(r => r.Tests.Select(t => t.Scheme)).Distinct(StringComparer.Ordinal).ToArray();
        return schemes
            .Select(s => (Scheme: s, Metrics: repetitions.SelectMany(r => r.Metrics.Where(m => m.Scheme == s)).ToArray()))
            .Where(x => x.Metrics.Length > 0)
            .Select(x => new SchemeSummary(x.Scheme, x.Metrics.Length, MultiprogramMetrics.SummarizeRepetitions(x.Metrics.Select(m => m.Metrics).ToArray()),
                MetricFlag.OfRepetitions(x.Metrics.Length, x.Metrics.SelectMany(m => m.Flags))))
            .ToArray();
    }

    /// <summary>Writes the files.</summary>
    /// <param name="folder">The combined folder.</param>
    /// <param name="workload">Workload name.</param>
    /// <param name="repetitions">The experiments, one per repetition.</param>
    /// <returns>The summaries.</returns>
    public static IReadOnlyList<SchemeSummary> Write(ResultsFolder folder, string workload, IReadOnlyList<CyclicExperimentResult> repetitions)
    {
        ArgumentNullException.ThrowIfNull(folder);
        ArgumentNullException.ThrowIfNull(repetitions);
        IReadOnlyList<SchemeSummary> summaries = Summarize(repetitions);
        folder.WriteText("repetitions.csv", w => Csv.Write(w, ["repetition", "scheme", "antt", "stp", "mntt", "flags"],
            repetitions.SelectMany((r, i) => r.Metrics.Select(m => (IReadOnlyList<string>)
                [(i + 1).ToString(CultureInfo.InvariantCulture), m.Scheme, Csv.Number(m.Metrics.Antt), Csv.Number(m.Metrics.Stp), Csv.Number(m.Metrics.Mntt), MetricFlag.Codes(m.Flags)]))));
        folder.WriteJson("summary.json", new { Workload = workload, Repetitions = repetitions.Count, Schemes = summaries });
        folder.WriteText("summary.md", w =>
        {
            w.WriteLine(string.Create(CultureInfo.InvariantCulture, $"# Cyclic test: {workload} workload, {repetitions.Count} repetitions"));
            w.WriteLine();
            w.WriteLine("One ANTT, STP and MNTT per repetition; `±` is the half-width of the 99% Student-t interval across repetitions. Each repetition's details are in its own folder.");
            w.WriteLine();
            var table = new MarkdownTable(["Scheme", "Repetitions", "ANTT (lower is better)", "STP (higher is better)", "MNTT", "Flags"]);
            foreach (SchemeSummary s in summaries)
            {
                table.AddRow(s.Scheme, s.Repetitions.ToString(CultureInfo.InvariantCulture),
                    NumberText.WithInterval(s.Summary.Antt), NumberText.WithInterval(s.Summary.Stp), NumberText.WithInterval(s.Summary.Mntt), MetricFlag.Codes(s.Flags));
            }

            table.WriteTo(w);
            foreach (SchemeSummary s in summaries)
            {
                foreach (MetricFlag flag in s.Flags)
                {
                    w.WriteLine($"- **{MarkdownTable.EscapeCell(s.Scheme)}** ({flag.Code}): {MarkdownTable.EscapeCell(flag.Detail)}");
                }
            }

            if (summaries.Any(s => s.Flags.Count > 0))
            {
                w.WriteLine();
            }

            MarkdownStamp.Write(w, folder.Stamp);
        });
        SvgFile.Save(folder, "stp.svg", new GroupedBarChart(
            $"STP across repetitions, {workload} (higher is better)", "System throughput", summaries.Select(s => s.Scheme).ToArray(),
            [new BarSeries("STP", summaries.Select(s => s.Summary.Stp.Mean).ToArray(), summaries.Select(s => NanToZero(s.Summary.Stp.ConfidenceHalfWidth)).ToArray())],
            xLabel: "Scheme", colorByCategory: true));
        return summaries;
    }

    /// <summary>The console table.</summary>
    /// <param name="summaries">The summaries.</param>
    /// <returns>The table.</returns>
    public static Table Table(IReadOnlyList<SchemeSummary> summaries)
    {
        ArgumentNullException.ThrowIfNull(summaries);
        var table = new Table().Title("System metrics across repetitions")
            .AddColumn("Scheme").AddColumn(new TableColumn("Reps").RightAligned())
            .AddColumn(new TableColumn("ANTT").RightAligned()).AddColumn(new TableColumn("STP").RightAligned()).AddColumn(new TableColumn("MNTT").RightAligned())
            .AddColumn("Flags");
        foreach (SchemeSummary s in summaries)
        {
            table.AddRow(Markup.Escape(s.Scheme), s.Repetitions.ToString(CultureInfo.InvariantCulture),
                Markup.Escape(NumberText.WithInterval(s.Summary.Antt)), Markup.Escape(NumberText.WithInterval(s.Summary.Stp)), Markup.Escape(NumberText.WithInterval(s.Summary.Mntt)),
                Markup.Escape(MetricFlag.Codes(s.Flags)));
        }

        return table;
    }

    private static double NanToZero(double value) => double.IsNaN(value) ? 0 : value;
}
