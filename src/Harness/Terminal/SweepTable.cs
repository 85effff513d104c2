using System.Globalization;
using DivCon.Harness.Experiments;
using DivCon.Harness.Reports;
using Spectre.Console;

namespace DivCon.Harness.Terminal;

/// <summary>Console table of a sweep: mean time with its interval and RSD per series and parameter value.</summary>
public static class SweepTable
{
    /// <summary>Builds the table.</summary>
    /// <param name="result">The sweep.</param>
    /// <param name="xLabel">What the parameter is ("Granularity", "Cores").</param>
    /// <returns>The table.</returns>
    public static Table Build(SweepResult result, string xLabel)
    {
        ArgumentNullException.ThrowIfNull(result);
        var table = new Table().Title(Markup.Escape(result.Name))
            .AddColumn("Series")
            .AddColumn(new TableColumn(Markup.Escape(xLabel)).RightAligned())
            .AddColumn(new TableColumn("Time (s)").RightAligned())
            .AddColumn(new TableColumn("RSD").RightAligned());
        foreach (SweepMeasurement p in result.Points)
        {
            table.AddRow(Markup.Escape(p.Series), p.X.ToString("G6", CultureInfo.InvariantCulture),
                Markup.Escape(NumberText.WithInterval(p.Time, 4)), NumberText.Percent(p.Time.RelativeStandardDeviation));
        }

        return table;
    }
}
