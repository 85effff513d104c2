using System.Globalization;
using DivCon.Harness.Machine;
using DivCon.Harness.Measurement;

namespace DivCon.Harness.Reports;

/// <summary>
/// The Markdown summary of a multiprogram experiment: NTT and NP per program and scheme, system metrics
/// per scheme (ANTT, STP, MNTT, and STP as a fraction of the static-partition oracle when one is given),
/// the raw times, and the run's stamp.
/// </summary>
public static class MultiprogramMarkdown
{
    /// <summary>Writes the summary.</summary>
    /// <param name="writer">Destination.</param>
    /// <param name="title">Document title (e.g. "Cyclic test: 5-program workload").</param>
    /// <param name="schemes">Metrics per scheme (at least one).</param>
    /// <param name="stamp">The run's stamp.</param>
    /// <param name="oracle">The best static partition of the workload, if computed.</param>
    /// <exception cref="ArgumentException">No schemes.</exception>
    public static void Write(TextWriter writer, string title, IReadOnlyList<SchemeMetrics> schemes, RunStamp stamp, OracleResult? oracle = null)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(schemes);
        ArgumentNullException.ThrowIfNull(stamp);
        if (schemes.Count == 0)
        {
            throw new ArgumentException("At least one scheme is needed.", nameof(schemes));
        }

        double confidence = schemes[0].Metrics.ConfidenceLevel;
        string[] programs = schemes.SelectMany(s => s.Metrics.Programs.Select(p => p.Program)).Distinct(StringComparer.Ordinal).ToArray();
        string[] schemeNames = schemes.Select(s => s.Scheme).ToArray();

        writer.WriteLine($"# {title}");
        writer.WriteLine();
        writer.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"Values are means; `±` gives the half-width of the two-sided {confidence * 100:0.##}% Student-t confidence interval (absent when a program ran once)."));
        writer.WriteLine();

        writer.WriteLine("## Normalized turnaround time (NTT = C_MP / C_SP, lower is better)");
        writer.WriteLine();
        WriteProgramTable(writer, programs, schemeNames, schemes, p => NumberText.WithInterval(p.Ntt));

        writer.WriteLine("## Normalized progress (NP = C_SP / C_MP, higher is better)");
        writer.WriteLine();
        WriteProgramTable(writer, programs, schemeNames, schemes, p => NumberText.WithInterval(p.NormalizedProgress, p.NormalizedProgressHalfWidth));

        writer.WriteLine("## System metrics");
        writer.WriteLine();
        bool flagged = schemes.Any(s => s.Flags.Count > 0);
        string[] systemHeaders = oracle is null
            ? ["Scheme", "ANTT (lower is better)", "STP (higher is better)", "MNTT", "Worst program"]
            : ["Scheme", "ANTT (lower is better)", "STP (higher is better)", "MNTT", "Worst program", "STP / oracle"];
        if (flagged)
        {
            systemHeaders = [.. systemHeaders, "Flags"];
        }

        var system = new MarkdownTable(systemHeaders, systemHeaders.Select(h => h is "Scheme" or "Worst program" or "Flags" ? ColumnAlignment.Left : ColumnAlignment.Right).ToArray());
        foreach (SchemeMetrics scheme in schemes)
        {
            WorkloadMetrics m = scheme.Metrics;
            var row = new List<string>
            {
                scheme.Scheme,
                NumberText.WithInterval(m.Antt, m.AnttHalfWidth),
                NumberText.WithInterval(m.Stp, m.StpHalfWidth),
                NumberText.Fixed(m.Mntt),
                m.MnttProgram,
            };
            if (oracle is not null)
            {
                row.Add(NumberText.Percent(oracle.FractionOfOracle(m.Stp)));
            }

            if (flagged)
            {
                row.Add(MetricFlag.Codes(scheme.Flags));
            }

            system.AddRow(row);
        }

        system.WriteTo(writer);
        if (flagged)
        {
            writer.WriteLine("Flags (values that cannot be true, or samples too small for a useful interval):");
            writer.WriteLine();
            foreach (SchemeMetrics scheme in schemes)
            {
                foreach (MetricFlag flag in scheme.Flags)
                {
                    writer.WriteLine($"- **{MarkdownTable.EscapeCell(scheme.Scheme)}** ({flag.Code}): {MarkdownTable.EscapeCell(flag.Detail)}");
                }
            }

            writer.WriteLine();
        }

        if (oracle is not null)
        {
            writer.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"Oracle (best static partition of {oracle.Cores} cores): STP {oracle.Stp:F3} with {string.Join(", ", oracle.Shares.Select(s => $"{s.Program} {s.Cores}"))}."));
            writer.WriteLine();
        }

        writer.WriteLine("## Times (seconds)");
        writer.WriteLine();
        var times = new MarkdownTable(
            ["Scheme", "Program", "C_SP", "C_MP", "Counted runs", "RSD of C_MP"],
            [ColumnAlignment.Left, ColumnAlignment.Left, ColumnAlignment.Right, ColumnAlignment.Right, ColumnAlignment.Right, ColumnAlignment.Right]);
        foreach (SchemeMetrics scheme in schemes)
        {
            foreach (ProgramMetrics p in scheme.Metrics.Programs)
            {
                times.AddRow(
                    scheme.Scheme,
                    p.Program,
                    NumberText.WithInterval(p.SingleProgram),
                    NumberText.WithInterval(p.Multiprogram),
                    p.Multiprogram.Count.ToString(CultureInfo.InvariantCulture),
                    NumberText.Percent(p.Multiprogram.RelativeStandardDeviation));
            }
        }

        times.WriteTo(writer);
        MarkdownStamp.Write(writer, stamp);
    }

    private static void WriteProgramTable(
        TextWriter writer, string[] programs, string[] schemeNames, IReadOnlyList<SchemeMetrics> schemes, Func<ProgramMetrics, string> cell)
    {
        var table = new MarkdownTable(["Program", .. schemeNames]);
        foreach (string program in programs)
        {
            var row = new List<string> { program };
            foreach (SchemeMetrics scheme in schemes)
            {
                ProgramMetrics? metrics = scheme.Metrics.Programs.FirstOrDefault(p => p.Program == program);
                row.Add(metrics is null ? NumberText.Undefined : cell(metrics));
            }

            table.AddRow(row);
        }

        table.WriteTo(writer);
    }
}
