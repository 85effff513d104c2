using System.Globalization;
using DivCon.Harness.Measurement;

namespace DivCon.Harness.Reports;
/// <summary>
/// The performance model's tables and charts, one row (or bar) per program and worker count:
/// <c>performance.csv</c>, a Markdown section, <c>performance.svg</c> (where the thread time went) and
/// <c>time-vs-bound.svg</c> (T_P next to T_1/P and T_∞).
/// </summary>
public static class PerformanceReport
{
    /// <summary>The label of a row: "quicksort, P=4".</summary>
    /// <param name="program">Program name.</param>
    /// <param name="breakdown">Its breakdown.</param>
    /// <returns>The label.</returns>
    public static string Label(string program, PerformanceBreakdown breakdown)
    {
        ArgumentNullException.ThrowIfNull(breakdown);
        return string.Create(CultureInfo.InvariantCulture, $"{program}, P={breakdown.Workers}");
    }

    /// <summary>Thread time P·T_P per run, stacked: one-worker work, work inflation, overhead, idle, unaccounted.</summary>
    /// <param name="title">Title.</param>
    /// <param name="runs">Labelled breakdowns.</param>
    /// <returns>The chart (negative components show as 0).</returns>
    public static StackedBarChart Chart(string title, IReadOnlyList<(string Label, PerformanceBreakdown Breakdown)> runs)
    {
        ArgumentNullException.ThrowIfNull(runs);
        double[] Layer(Func<PerformanceBreakdown, double> select) => runs.Select(r => Math.Max(0, select(r.Breakdown))).ToArray();
        return new StackedBarChart(title, "Program and workers", "Thread time, P × T_P (s)", runs.Select(r => r.Label).ToArray(),
            [
                new StackSeries("work", Layer(b => Math.Min(b.Work.TotalSeconds, b.OneWorkerWork.TotalSeconds))),
                new StackSeries("work inflation", Layer(b => b.WorkInflation.TotalSeconds)),
                new StackSeries("overhead", Layer(b => b.Overhead.TotalSeconds)),
                new StackSeries("idle", Layer(b => b.Idle.TotalSeconds)),
                new StackSeries("unaccounted", Layer(b => b.Unaccounted.TotalSeconds)),
            ]);
    }

    /// <summary>T_P next to the two terms of its lower bound, T_1/P and T_∞, per run.</summary>
    /// <param name="title">Title.</param>
    /// <param name="runs">Labelled breakdowns.</param>
    /// <returns>The chart.</returns>
    public static GroupedBarChart BoundChart(string title, IReadOnlyList<(string Label, PerformanceBreakdown Breakdown)> runs)
    {
        ArgumentNullException.ThrowIfNull(runs);
        return new GroupedBarChart(title, "Time (s)", runs.Select(r => r.Label).ToArray(),
            [
                new BarSeries("T_P (measured)", runs.Select(r => r.Breakdown.Elapsed.TotalSeconds).ToArray()),
                new BarSeries("T_1 / P", runs.Select(r => r.Breakdown.PerfectDivision.TotalSeconds).ToArray()),
                new BarSeries("T_∞ (span)", runs.Select(r => r.Breakdown.Span.TotalSeconds).ToArray()),
            ], xLabel: "Program and workers");
    }

    /// <summary>Writes <c>performance.csv</c>: one row per program and worker count, times in seconds.</summary>
    /// <param name="writer">Destination.</param>
    /// <param name="rows">(program, breakdown) pairs.</param>
    public static void WriteCsv(TextWriter writer, IReadOnlyList<(string Program, PerformanceBreakdown Breakdown)> rows)
    {
        ArgumentNullException.ThrowIfNull(rows);
        Csv.Write(writer,
            ["program", "workers", "t_p_s", "t_1_s", "t_1_over_p_s", "span_s", "bound_s", "bound_over_t_p", "speedup",
             "work_s", "work_1_s", "inflation_ratio", "overhead_s", "idle_s", "unaccounted_s", "flags"],
            rows.Select(r => (IReadOnlyList<string>)
            [
                r.Program, r.Breakdown.Workers.ToString(CultureInfo.InvariantCulture), Csv.Number(r.Breakdown.Elapsed.TotalSeconds),
                Csv.Number(r.Breakdown.OneWorkerElapsed.TotalSeconds), Csv.Number(r.Breakdown.PerfectDivision.TotalSeconds),
                Csv.Number(r.Breakdown.Span.TotalSeconds), Csv.Number(r.Breakdown.LowerBound.TotalSeconds), Csv.Number(r.Breakdown.BoundEfficiency),
                Csv.Number(r.Breakdown.Speedup), Csv.Number(r.Breakdown.Work.TotalSeconds), Csv.Number(r.Breakdown.OneWorkerWork.TotalSeconds),
                Csv.Number(r.Breakdown.InflationRatio), Csv.Number(r.Breakdown.Overhead.TotalSeconds), Csv.Number(r.Breakdown.Idle.TotalSeconds),
                Csv.Number(r.Breakdown.Unaccounted.TotalSeconds), MetricFlag.Codes(r.Breakdown.Flags),
            ]));
    }

    /// <summary>Writes the model's Markdown section: a heading, how to read it, and one table row per run.</summary>
    /// <param name="writer">Destination.</param>
    /// <param name="rows">(program, breakdown) pairs.</param>
    public static void WriteMarkdown(TextWriter writer, IReadOnlyList<(string Program, PerformanceBreakdown Breakdown)> rows)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(rows);
        writer.WriteLine("## Performance model");
        writer.WriteLine();
        writer.WriteLine("Thread time P × T_P split into work (time in split/execute/merge), overhead (other CPU time of the process) and idle");
        writer.WriteLine("(thread time without CPU); inflation r = work on P workers / work on 1 worker; the bound is max(T_1/P, T_∞), with the");
        writer.WriteLine("span T_∞ estimated from the one-worker phase profile (mean task per level, balanced tree).");
        writer.WriteLine();
        var table = new MarkdownTable(["Program", "P", "T_P (s)", "T_1/P (s)", "T_∞ (s)", "Bound / T_P", "Speedup", "Work", "Overhead", "Idle", "Unaccounted", "Inflation r", "Flags"]);
        foreach ((string program, PerformanceBreakdown b) in rows)
        {
            table.AddRow(program, b.Workers.ToString(CultureInfo.InvariantCulture), NumberText.Fixed(b.Elapsed.TotalSeconds, 4),
                NumberText.Fixed(b.PerfectDivision.TotalSeconds, 4), NumberText.Fixed(b.Span.TotalSeconds, 4), NumberText.Percent(b.BoundEfficiency),
                NumberText.Fixed(b.Speedup, 2), NumberText.Percent(b.WorkShare), NumberText.Percent(b.OverheadShare), NumberText.Percent(b.IdleShare),
                NumberText.Percent(b.UnaccountedShare), NumberText.Fixed(b.InflationRatio, 3), MetricFlag.Codes(b.Flags));
        }

        table.WriteTo(writer);
        writer.WriteLine();
        foreach ((string program, PerformanceBreakdown b) in rows)
        {
            foreach (MetricFlag flag in b.Flags)
            {
                writer.WriteLine($"- **{flag.Code}** {program}: {flag.Detail}");
            }
        }

        if (rows.Any(r => r.Breakdown.Flags.Count > 0))
        {
            writer.WriteLine();
        }
    }

    /// <summary>Writes <c>performance.csv</c>, <c>performance.svg</c> and <c>time-vs-bound.svg</c> into a results folder.</summary>
    /// <param name="folder">The experiment's folder.</param>
    /// <param name="rows">(program, breakdown) pairs; nothing is written when empty.</param>
    /// <returns>The files written.</returns>
    public static IReadOnlyList<string> WriteFiles(ResultsFolder folder, IReadOnlyList<(string Program, PerformanceBreakdown Breakdown)> rows)
    {
        ArgumentNullException.ThrowIfNull(folder);
        ArgumentNullException.ThrowIfNull(rows);
        if (rows.Count == 0)
        {
            return [];
        }

        (string, PerformanceBreakdown)[] labelled = rows.Select(r => (Label(r.Program, r.Breakdown), r.Breakdown)).ToArray();
        return
        [
            folder.WriteText("performance.csv", w => WriteCsv(w, rows)),
            SvgFile.Save(folder, "performance.svg", Chart("Where the thread time went: work, inflation, overhead, idle", labelled)),
            SvgFile.Save(folder, "time-vs-bound.svg", BoundChart("Measured T_P next to the bound max(T_1/P, T_∞)", labelled)),
        ];
    }
}
