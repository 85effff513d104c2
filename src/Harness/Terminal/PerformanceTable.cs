using System.Globalization;
using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using Spectre.Console;

namespace DivCon.Harness.Terminal;

/// <summary>The performance model on the console: one row per program and worker count.</summary>
public static class PerformanceTable
{
    /// <summary>Builds the table.</summary>
    /// <param name="rows">(program, breakdown) pairs.</param>
    /// <returns>The table (with a note instead of rows when there are none).</returns>
    public static Table Build(IReadOnlyList<(string Program, PerformanceBreakdown Breakdown)> rows)
    {
        ArgumentNullException.ThrowIfNull(rows);
        var table = new Table().Title("Performance model: T_P against max(T_1/P, T_∞); where P × T_P went")
            .AddColumn("Program").AddColumn(new TableColumn("P").RightAligned())
            .AddColumn(new TableColumn("T_P (s)").RightAligned()).AddColumn(new TableColumn("T_1/P (s)").RightAligned())
            .AddColumn(new TableColumn("T_∞ (s)").RightAligned()).AddColumn(new TableColumn("Bound/T_P").RightAligned())
            .AddColumn(new TableColumn("Work").RightAligned()).AddColumn(new TableColumn("Overhead").RightAligned())
            .AddColumn(new TableColumn("Idle").RightAligned()).AddColumn(new TableColumn("Inflation r").RightAligned());
        foreach ((string program, PerformanceBreakdown b) in rows)
        {
            table.AddRow(Markup.Escape(program), b.Workers.ToString(CultureInfo.InvariantCulture), NumberText.Fixed(b.Elapsed.TotalSeconds, 4),
                NumberText.Fixed(b.PerfectDivision.TotalSeconds, 4), NumberText.Fixed(b.Span.TotalSeconds, 4), NumberText.Percent(b.BoundEfficiency),
                NumberText.Percent(b.WorkShare), NumberText.Percent(b.OverheadShare), NumberText.Percent(b.IdleShare), NumberText.Fixed(b.InflationRatio, 3));
        }

        if (rows.Count == 0)
        {
            table.Caption("No one-worker observation: the model needs T_1.");
        }

        return table;
    }
}
