using System.Globalization;
using DivCon.Harness.Reports;
using DivCon.Harness.Reports.Charts;

namespace DivCon.Harness.Performance;

/// <summary>Reports of the performance model: where the thread time went, per configuration.</summary>
public static class PerformanceReport
{
    /// <summary>
    /// A stacked bar of thread time (P·T_P, seconds) per configuration: sequential work, inflation, overhead,
    /// idle, unaccounted. Negative inflation (parallel work faster than sequential) shows as zero inflation with
    /// the smaller work; a negative remainder shows as zero.
    /// </summary>
    /// <param name="title">Chart title.</param>
    /// <param name="runs">(label, breakdown) pairs (at least one).</param>
    /// <returns>The chart.</returns>
    public static StackedBarChart Chart(string title, IReadOnlyList<(string Label, PerformanceBreakdown Breakdown)> runs)
    {
        ArgumentNullException.ThrowIfNull(runs);
        double[] Layer(Func<PerformanceBreakdown, double> select) => runs.Select(r => Math.Max(0, select(r.Breakdown))).ToArray();
        return new StackedBarChart(title, "Configuration", "Thread time, P × T_P (s)", runs.Select(r => r.Label).ToArray(),
            [
                new StackSeries("sequential work", Layer(b => Math.Min(b.Work.TotalSeconds, b.SequentialWork.TotalSeconds))),
                new StackSeries("work inflation", Layer(b => b.WorkInflation.TotalSeconds)),
                new StackSeries("overhead", Layer(b => b.Overhead.TotalSeconds)),
                new StackSeries("idle", Layer(b => b.Idle.TotalSeconds)),
                new StackSeries("unaccounted", Layer(b => b.Unaccounted.TotalSeconds)),
            ]);
    }

    /// <summary>A Markdown table: shares, inflation ratio, speedup, bound and bound efficiency per configuration.</summary>
    /// <param name="writer">Destination.</param>
    /// <param name="runs">(label, breakdown) pairs.</param>
    public static void WriteMarkdown(TextWriter writer, IReadOnlyList<(string Label, PerformanceBreakdown Breakdown)> runs)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(runs);
        var table = new MarkdownTable(["Configuration", "P", "T_P (s)", "Work", "Overhead", "Idle", "Unaccounted", "Inflation r", "Speedup", "max(T_S/P, T_∞) (s)", "Bound / T_P"]);
        foreach ((string label, PerformanceBreakdown b) in runs)
        {
            table.AddRow(label, b.Workers.ToString(CultureInfo.InvariantCulture), NumberText.Fixed(b.Elapsed.TotalSeconds, 4),
                NumberText.Percent(b.WorkShare), NumberText.Percent(b.OverheadShare), NumberText.Percent(b.IdleShare), NumberText.Percent(b.UnaccountedShare),
                NumberText.Fixed(b.InflationRatio, 3), NumberText.Fixed(b.Speedup, 2), NumberText.Fixed(b.LowerBound.TotalSeconds, 4), NumberText.Percent(b.BoundEfficiency));
        }

        table.WriteTo(writer);
    }
}
