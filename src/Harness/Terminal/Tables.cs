using System.Globalization;
using DivCon.Harness.Experiments;
using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using Spectre.Console;

namespace DivCon.Harness.Terminal;

/// <summary>
/// Console tables for multiprogram results: NTT per program and scheme (with confidence intervals), and
/// ANTT / STP / MNTT per scheme.
/// </summary>
public static class SummaryTable
{
    /// <summary>The per-program NTT table: one row per program, one column per scheme.</summary>
    /// <param name="schemes">Metrics per scheme (at least one).</param>
    /// <returns>The table.</returns>
    /// <exception cref="ArgumentException">No schemes.</exception>
    public static Table BuildProgramTable(IReadOnlyList<SchemeMetrics> schemes)
    {
        RequireSchemes(schemes);
        var table = new Table().Title("NTT per program (lower is better)").AddColumn("Program");
        foreach (SchemeMetrics scheme in schemes)
        {
            table.AddColumn(new TableColumn(Markup.Escape(scheme.Scheme)).RightAligned());
        }

        foreach (string program in schemes.SelectMany(s => s.Metrics.Programs.Select(p => p.Program)).Distinct(StringComparer.Ordinal))
        {
            var cells = new List<string> { Markup.Escape(program) };
            foreach (SchemeMetrics scheme in schemes)
            {
                ProgramMetrics? metrics = scheme.Metrics.Programs.FirstOrDefault(p => p.Program == program);
                cells.Add(Markup.Escape(metrics is null ? NumberText.Undefined : NumberText.WithInterval(metrics.Ntt)));
            }

            table.AddRow(cells.ToArray());
        }

        return table;
    }

    /// <summary>The system table: one row per scheme with ANTT, STP (with intervals) and MNTT.</summary>
    /// <param name="schemes">Metrics per scheme (at least one).</param>
    /// <returns>The table.</returns>
    /// <exception cref="ArgumentException">No schemes.</exception>
    public static Table BuildSystemTable(IReadOnlyList<SchemeMetrics> schemes)
    {
        RequireSchemes(schemes);
        var table = new Table().Title("System metrics")
            .AddColumn("Scheme")
            .AddColumn(new TableColumn("ANTT (lower is better)").RightAligned())
            .AddColumn(new TableColumn("STP (higher is better)").RightAligned())
            .AddColumn(new TableColumn("MNTT").RightAligned())
            .AddColumn("Worst program");
        bool flagged = schemes.Any(s => s.Flags.Count > 0);
        if (flagged)
        {
            table.AddColumn("Flags");
        }

        foreach (SchemeMetrics scheme in schemes)
        {
            WorkloadMetrics m = scheme.Metrics;
            var cells = new List<string>
            {
                Markup.Escape(scheme.Scheme),
                Markup.Escape(NumberText.WithInterval(m.Antt, m.AnttHalfWidth)),
                Markup.Escape(NumberText.WithInterval(m.Stp, m.StpHalfWidth)),
                Markup.Escape(NumberText.Fixed(m.Mntt)),
                Markup.Escape(m.MnttProgram),
            };
            if (flagged)
            {
                cells.Add(Markup.Escape(MetricFlag.Codes(scheme.Flags)));
            }

            table.AddRow(cells.ToArray());
        }

        return table;
    }

    /// <summary>Writes both tables to the console.</summary>
    /// <param name="console">The console.</param>
    /// <param name="schemes">Metrics per scheme (at least one).</param>
    public static void Render(IAnsiConsole console, IReadOnlyList<SchemeMetrics> schemes)
    {
        ArgumentNullException.ThrowIfNull(console);
        console.Write(BuildProgramTable(schemes));
        console.Write(BuildSystemTable(schemes));
        foreach (SchemeMetrics scheme in schemes)
        {
            foreach (MetricFlag flag in scheme.Flags)
            {
                console.MarkupLine($"[yellow]flag[/] {Markup.Escape(scheme.Scheme)}: {Markup.Escape(flag.Detail)}");
            }
        }
    }

    private static void RequireSchemes(IReadOnlyList<SchemeMetrics> schemes)
    {
        ArgumentNullException.ThrowIfNull(schemes);
        if (schemes.Count == 0)
        {
            throw new ArgumentException("At least one scheme is needed.", nameof(schemes));
        }
    }
}

/// <summary>The across-round console table of a cyclic experiment and its ranking statements.</summary>
public static class RoundsTable
{
    /// <summary>Writes the across-round table and the ranking to the console (nothing with a single round).</summary>
    /// <param name="console">The console.</param>
    /// <param name="result">The experiment.</param>
    public static void Render(IAnsiConsole console, CyclicExperimentResult result)
    {
        ArgumentNullException.ThrowIfNull(console);
        ArgumentNullException.ThrowIfNull(result);
        if (result.Rounds.Count < 2)
        {
            return;
        }

        var table = new Table().Title(string.Create(CultureInfo.InvariantCulture, $"System metrics across {result.Rounds.Count} rounds"))
            .AddColumn("Scheme").AddColumn(new TableColumn("Rounds").RightAligned())
            .AddColumn(new TableColumn("ANTT").RightAligned()).AddColumn(new TableColumn("STP").RightAligned()).AddColumn(new TableColumn("MNTT").RightAligned());
        foreach (AcrossRounds s in result.AcrossRounds)
        {
            table.AddRow(Markup.Escape(s.Scheme), s.Rounds.ToString(CultureInfo.InvariantCulture), Markup.Escape(NumberText.WithInterval(s.Summary.Antt)),
                Markup.Escape(NumberText.WithInterval(s.Summary.Stp)), Markup.Escape(NumberText.WithInterval(s.Summary.Mntt)));
        }

        console.Write(table);
        if (result.Ranking.Count == 0)
        {
            console.WriteLine("No ranking: the schemes' intervals across rounds overlap.");
        }
        else
        {
            foreach (RankingStatement statement in result.Ranking)
            {
                console.WriteLine(statement.Text);
            }
        }
    }
}

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
