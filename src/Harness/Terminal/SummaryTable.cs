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
