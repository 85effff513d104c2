using System.Globalization;
using DivCon.Harness.Machine;
using DivCon.Harness.Measurement;

namespace DivCon.Harness.Reports;
/// <summary>Reports of the D&amp;C phases experiment: cumulative split/execute/merge time per recursion level.</summary>
public static class PhaseReport
{
    /// <summary>A stacked bar per level (split, execute, merge), in milliseconds.</summary>
    /// <param name="program">Program name for the title.</param>
    /// <param name="levels">The program's profile levels (at least one).</param>
    /// <returns>The chart.</returns>
    public static StackedBarChart Chart(string program, IReadOnlyList<PhaseLevelTimes> levels)
    {
        ArgumentNullException.ThrowIfNull(levels);
        return new StackedBarChart($"Phases of {program}: cumulative time per recursion level", "Recursion level", "Cumulative time over all tasks (ms)",
            levels.Select(l => l.Level.ToString(CultureInfo.InvariantCulture)).ToArray(),
            [
                new StackSeries("split", levels.Select(l => l.Split.TotalMilliseconds).ToArray()),
                new StackSeries("execute", levels.Select(l => l.Execute.TotalMilliseconds).ToArray()),
                new StackSeries("merge", levels.Select(l => l.Merge.TotalMilliseconds).ToArray()),
            ]);
    }

    /// <summary>The raw CSV: program, level, split_ms, execute_ms, merge_ms, count.</summary>
    /// <param name="writer">Destination.</param>
    /// <param name="programs">(program, levels) pairs.</param>
    public static void WriteCsv(TextWriter writer, IReadOnlyList<(string Program, IReadOnlyList<PhaseLevelTimes> Levels)> programs)
    {
        ArgumentNullException.ThrowIfNull(programs);
        Csv.Write(writer, ["program", "level", "split_ms", "execute_ms", "merge_ms", "count"],
            programs.SelectMany(p => p.Levels.Select(l => (IReadOnlyList<string>)
            [
                p.Program, l.Level.ToString(CultureInfo.InvariantCulture), Csv.Number(l.Split.TotalMilliseconds),
                Csv.Number(l.Execute.TotalMilliseconds), Csv.Number(l.Merge.TotalMilliseconds), l.Count.ToString(CultureInfo.InvariantCulture),
            ])));
    }

    /// <summary>Markdown: per program, a table of levels with each phase's time and its share of the program's total.</summary>
    /// <param name="writer">Destination.</param>
    /// <param name="programs">(program, levels) pairs.</param>
    /// <param name="stamp">The run's stamp.</param>
    /// <param name="performance">The performance model's rows, written as a section before the stamp; none when null or empty.</param>
    public static void WriteMarkdown(
        TextWriter writer, IReadOnlyList<(string Program, IReadOnlyList<PhaseLevelTimes> Levels)> programs, RunStamp stamp,
        IReadOnlyList<(string Program, PerformanceBreakdown Breakdown)>? performance = null)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(programs);
        writer.WriteLine("# D&C phases");
        writer.WriteLine();
        foreach ((string program, IReadOnlyList<PhaseLevelTimes> levels) in programs)
        {
            double total = levels.Sum(l => (l.Split + l.Execute + l.Merge).TotalMilliseconds);
            writer.WriteLine($"## {program}");
            writer.WriteLine();
            writer.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"Split {NumberText.Percent(levels.Sum(l => l.Split.TotalMilliseconds) / total)}, execute {NumberText.Percent(levels.Sum(l => l.Execute.TotalMilliseconds) / total)}, merge {NumberText.Percent(levels.Sum(l => l.Merge.TotalMilliseconds) / total)} of {total:F1} ms."));
            writer.WriteLine();
            var table = new MarkdownTable(["Level", "Split (ms)", "Execute (ms)", "Merge (ms)", "Share of total", "Invocations"]);
            foreach (PhaseLevelTimes l in levels)
            {
                table.AddRow(l.Level.ToString(CultureInfo.InvariantCulture), NumberText.Fixed(l.Split.TotalMilliseconds, 2), NumberText.Fixed(l.Execute.TotalMilliseconds, 2),
                    NumberText.Fixed(l.Merge.TotalMilliseconds, 2), NumberText.Percent((l.Split + l.Execute + l.Merge).TotalMilliseconds / total), l.Count.ToString(CultureInfo.InvariantCulture));
            }

            table.WriteTo(writer);
        }

        if (performance is { Count: > 0 })
        {
            writer.WriteLine();
            PerformanceReport.WriteMarkdown(writer, performance);
        }

        MarkdownStamp.Write(writer, stamp);
    }
}
