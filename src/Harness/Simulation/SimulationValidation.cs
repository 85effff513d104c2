using System.Globalization;
using System.Text.Json;
using DivCon.Harness.Experiments;
using DivCon.Harness.Reports;
using DivCon.Simulator;

namespace DivCon.Harness.Simulation;

/// <summary>One simulated figure next to the measured one it should predict.</summary>
/// <param name="Experiment">The measured results folder (e.g. <c>scalability</c>, <c>cyclic-5-thesis</c>).</param>
/// <param name="Scheme">The scheme (empty for alone runs).</param>
/// <param name="Program">The program (empty for workload metrics).</param>
/// <param name="Metric">What is compared: <c>time_s@c</c>, <c>speedup@c</c>, <c>antt</c>, <c>stp</c> or <c>ntt</c>.</param>
/// <param name="Simulated">The simulated value.</param>
/// <param name="Measured">The measured value.</param>
public sealed record ValidationRow(string Experiment, string Scheme, string Program, string Metric, double Simulated, double Measured)
{
    /// <summary>Half-width of the measured value's confidence interval, where the measured results give one (else NaN).</summary>
    public double MeasuredHalfWidth { get; init; } = double.NaN;

    /// <summary>(simulated - measured) / measured; NaN when the measured value is zero or missing.</summary>
    public double RelativeError => Measured == 0 || !double.IsFinite(Measured) ? double.NaN : (Simulated - Measured) / Measured;
}

/// <summary>Whether the simulation orders the schemes of one experiment as the measurement does.</summary>
/// <param name="Experiment">The measured results folder.</param>
/// <param name="Metric"><c>antt</c> (ascending: best first) or <c>stp</c> (descending: best first).</param>
/// <param name="Simulated">Schemes, best first, by the simulated metric.</param>
/// <param name="Measured">Schemes, best first, by the measured metric.</param>
/// <param name="SeparatedPairs">Pairs of schemes whose measured confidence intervals do not overlap (a measured order).</param>
/// <param name="AgreeingPairs">Of those, the pairs the simulation orders the same way.</param>
public sealed record OrderingCheck(string Experiment, string Metric, IReadOnlyList<string> Simulated, IReadOnlyList<string> Measured, int SeparatedPairs, int AgreeingPairs)
{
    /// <summary>The two orders are identical (ties broken by name, so schemes the measurement cannot tell apart may differ).</summary>
    public bool Matches => Simulated.SequenceEqual(Measured, StringComparer.Ordinal);
}

/// <summary>The validation's rows and ordering checks.</summary>
/// <param name="Rows">Every compared figure.</param>
/// <param name="Orderings">Per cyclic experiment and metric, the scheme orders.</param>
public sealed record ValidationReport(IReadOnlyList<ValidationRow> Rows, IReadOnlyList<OrderingCheck> Orderings);

/// <summary>
/// Simulated against measured: reads the measured results folders (CSV and JSON the harness wrote), simulates the
/// same experiments from recorded traces on the simulator's core count (the measuring machine's), and compares
/// speedups and alone times (<c>scalability/runs.csv</c>, 1 and 2 cores) and, per cyclic or symmetric folder, ANTT
/// and STP per scheme and NTT per program, with the relative error and whether the scheme order agrees.
/// </summary>
public static class SimulationValidation
{
    /// <summary>
    /// The measured folders compared by default: the current record of each cyclic and symmetric test on the 2-CPU
    /// machine (the thesis's mixes measured with C_SP around every block, so that the machine's drift between blocks is
    /// not read as a scheme's effect; older folders measured C_SP once per round, ran the task-availability policy as
    /// <c>dynamic</c>, or counted a cold first run in C_SP).
    /// </summary>
    public static IReadOnlyList<string> DefaultFolders { get; } =
        ["cyclic-3-thesis-bracketed", "cyclic-5-thesis-bracketed", "symmetric-quicksort", "symmetric-mergesort", "symmetric-pi"];

    /// <summary>The folder of the alone runs compared by default (under the measured root).</summary>
    public const string DefaultScalabilityFolder = "scalability";

    /// <summary>The worker count the measured experiments ran on (<c>data.workers</c> of the first folder's <c>setup.json</c>).</summary>
    /// <param name="measuredRoot">The measured results root.</param>
    /// <param name="folders">The folders to compare (at least one).</param>
    /// <returns>The worker count: the core count to simulate.</returns>
    /// <exception cref="InvalidDataException">The file is missing or has no worker count.</exception>
    public static int MeasuredWorkers(string measuredRoot, IReadOnlyList<string> folders)
    {
        ArgumentNullException.ThrowIfNull(folders);
        string path = Path.Combine(measuredRoot, folders.Count > 0 ? folders[0] : DefaultFolders[0]);
        using var doc = Json(Path.Combine(path, "setup.json"));
        if (!doc.RootElement.TryGetProperty("data", out var data) || !data.TryGetProperty("workers", out var workers) || !workers.TryGetInt32(out int count) || count < 1)
        {
            throw new InvalidDataException($"'{path}/setup.json' has no data.workers (the measured core count).");
        }

        return count;
    }

    /// <summary>Runs the validation.</summary>
    /// <param name="simulator">The simulator (its core count should be the measuring machine's).</param>
    /// <param name="measuredRoot">The measured results root (holds the alone runs' folder and the cyclic folders).</param>
    /// <param name="loadProgram">Loads a program's simulated graph by program name (from the trace folder).</param>
    /// <param name="folders">The cyclic or symmetric folders to compare (each with <c>setup.json</c> and <c>summary.json</c>).</param>
    /// <param name="scalabilityFolder">The alone runs' folder under <paramref name="measuredRoot"/> (a <c>scalability</c>
    /// command's output; <see cref="DefaultScalabilityFolder"/> unless another window's runs are compared).</param>
    /// <param name="context">Progress.</param>
    /// <param name="cancellationToken">Stops the simulation.</param>
    /// <returns>The rows and ordering checks.</returns>
    /// <exception cref="InvalidDataException">A measured folder or file is missing or unreadable; the message names it.</exception>
    public static ValidationReport Run(
        WorkloadSimulator simulator, string measuredRoot, Func<string, SimulatedProgram> loadProgram, IReadOnlyList<string> folders, string scalabilityFolder,
        ExperimentContext context, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(simulator);
        ArgumentException.ThrowIfNullOrWhiteSpace(measuredRoot);
        ArgumentException.ThrowIfNullOrWhiteSpace(scalabilityFolder);
        ArgumentNullException.ThrowIfNull(loadProgram);
        ArgumentNullException.ThrowIfNull(folders);
        ArgumentNullException.ThrowIfNull(context);
        var rows = new List<ValidationRow>();
        var orderings = new List<OrderingCheck>();

        // Alone runs: measured mean time per program and core count (the plain series, not the dispersed ones).
        var measured = ReadScalability(Path.Combine(measuredRoot, scalabilityFolder, "runs.csv"));
        int[] counts = [1, 2];
        foreach (string program in measured.Select(m => m.Program).Distinct(StringComparer.Ordinal))
        {
            var simulated = SimulatedExperiments.RunScalability(simulator, [loadProgram(program)], counts, cancellationToken);
            double one = measured.Single(m => m.Program == program && m.Cores == 1).Seconds;
            foreach (int c in counts)
            {
                var m = measured.SingleOrDefault(x => x.Program == program && x.Cores == c);
                if (m == default)
                {
                    continue;
                }

                var s = simulated.Single(x => x.Cores == c);
                rows.Add(new ValidationRow("scalability", string.Empty, program, Metric("time_s", c), s.Seconds, m.Seconds));
                rows.Add(new ValidationRow("scalability", string.Empty, program, Metric("speedup", c), s.Speedup, one / m.Seconds));
            }
        }

        foreach (string folder in folders)
        {
            string path = Path.Combine(measuredRoot, folder);
            var setup = ReadSetup(path);
            var measuredMetrics = ReadMetrics(path);
            SimulatedScheme[] schemes = [.. setup.Schemes.Where(IsSimulated).Select(SimulatedSchemes.Parse)];
            var programs = setup.Workload.Select(w => new SimulatedProgram(w.Name, loadProgram(w.Program).Graph)).ToList();
            var (result, _, _) = SimulatedExperiments.SimulateCyclic(simulator, programs, schemes, TimeSpan.FromSeconds(setup.TimeLimitSeconds), folder, context, cancellationToken);
            var compared = new List<string>();
            foreach (var sim in result.Metrics)
            {
                if (!measuredMetrics.TryGetValue(sim.Scheme, out var mes))
                {
                    continue;
                }

                compared.Add(sim.Scheme);
                rows.Add(new ValidationRow(folder, sim.Scheme, string.Empty, "antt", sim.Metrics.Antt, mes.Antt) { MeasuredHalfWidth = mes.AnttHalfWidth });
                rows.Add(new ValidationRow(folder, sim.Scheme, string.Empty, "stp", sim.Metrics.Stp, mes.Stp) { MeasuredHalfWidth = mes.StpHalfWidth });
                foreach (var p in sim.Metrics.Programs)
                {
                    if (mes.Ntt.TryGetValue(p.Program, out double ntt))
                    {
                        rows.Add(new ValidationRow(folder, sim.Scheme, p.Program, "ntt", p.NormalizedTurnaroundTime, ntt));
                    }
                }
            }

            if (compared.Count > 1)
            {
                orderings.Add(Order(folder, "antt", rows, compared, descending: false));
                orderings.Add(Order(folder, "stp", rows, compared, descending: true));
            }
        }

        return new ValidationReport(rows, orderings);
    }

    /// <summary>Writes <c>validation.csv</c>, <c>ordering.csv</c> and <c>validation.md</c>.</summary>
    /// <param name="folder">The results folder.</param>
    /// <param name="report">The report.</param>
    /// <param name="title">The heading's description (options, traces).</param>
    public static void Write(ResultsFolder folder, ValidationReport report, string title)
    {
        ArgumentNullException.ThrowIfNull(folder);
        ArgumentNullException.ThrowIfNull(report);
        folder.WriteText("validation.csv", w => Csv.Write(w, ["experiment", "scheme", "program", "metric", "simulated", "measured", "relative_error"],
            report.Rows.Select(r => (IReadOnlyList<string>)[r.Experiment, r.Scheme, r.Program, r.Metric, Csv.Number(r.Simulated), Csv.Number(r.Measured), Csv.Number(r.RelativeError)])));
        folder.WriteText("ordering.csv", w => Csv.Write(w, ["experiment", "metric", "simulated_order", "measured_order", "matches", "separated_pairs", "agreeing_pairs"],
            report.Orderings.Select(o => (IReadOnlyList<string>)[o.Experiment, o.Metric, string.Join(' ', o.Simulated), string.Join(' ', o.Measured), o.Matches ? "yes" : "no",
                Int(o.SeparatedPairs), Int(o.AgreeingPairs)])));
        folder.WriteText("validation.md", w => WriteMarkdown(w, report, title));
    }

    /// <summary>The report as markdown: every row, the orderings, and the mean absolute relative error per experiment and metric.</summary>
    /// <param name="writer">Destination.</param>
    /// <param name="report">The report.</param>
    /// <param name="title">The heading's description.</param>
    public static void WriteMarkdown(TextWriter writer, ValidationReport report, string title)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(report);
        writer.WriteLine("# Validation: SIMULATED against measured");
        writer.WriteLine();
        writer.WriteLine(title);
        writer.WriteLine();
        writer.WriteLine("Relative error = (simulated - measured) / measured.");
        writer.WriteLine();
        var summary = new MarkdownTable(["experiment", "metric", "rows", "mean |rel. error|", "max |rel. error|"]);
        foreach (var g in report.Rows.GroupBy(r => (r.Experiment, Kind: r.Metric)))
        {
            double[] errors = [.. g.Select(r => Math.Abs(r.RelativeError)).Where(double.IsFinite)];
            summary.AddRow(g.Key.Experiment, g.Key.Kind, g.Count().ToString(CultureInfo.InvariantCulture),
                errors.Length == 0 ? "-" : Magnitude(errors.Average()), errors.Length == 0 ? "-" : Magnitude(errors.Max()));
        }

        summary.WriteTo(writer);
        writer.WriteLine();
        writer.WriteLine("## Scheme order (best first)");
        writer.WriteLine();
        writer.WriteLine("\"Separated pairs\": pairs of schemes whose measured 99% intervals do not overlap; \"agree\": how many of them the simulation orders the same way.");
        writer.WriteLine();
        var order = new MarkdownTable(["experiment", "metric", "simulated", "measured", "same order", "separated pairs agree"]);
        foreach (var o in report.Orderings)
        {
            order.AddRow(o.Experiment, o.Metric, string.Join(", ", o.Simulated), string.Join(", ", o.Measured), o.Matches ? "yes" : "no",
                string.Create(CultureInfo.InvariantCulture, $"{o.AgreeingPairs} / {o.SeparatedPairs}"));
        }

        order.WriteTo(writer);
        writer.WriteLine();
        writer.WriteLine("## Every figure");
        writer.WriteLine();
        var all = new MarkdownTable(["experiment", "scheme", "program", "metric", "simulated", "measured", "rel. error"]);
        foreach (var r in report.Rows)
        {
            all.AddRow(r.Experiment, r.Scheme, r.Program, r.Metric, NumberText.Fixed(r.Simulated, 3), NumberText.Fixed(r.Measured, 3),
                double.IsFinite(r.RelativeError) ? Percent(r.RelativeError) : "-");
        }

        all.WriteTo(writer);
    }

    private static string Percent(double fraction) => (fraction * 100).ToString("+0.0;-0.0;0.0", CultureInfo.InvariantCulture) + "%";

    private static string Magnitude(double fraction) => (fraction * 100).ToString("0.0", CultureInfo.InvariantCulture) + "%";

    private static string Int(int value) => value.ToString(CultureInfo.InvariantCulture);

    private static string Metric(string name, int cores) => string.Create(CultureInfo.InvariantCulture, $"{name}@{cores}");

    private static bool IsSimulated(string scheme) => SimulatedSchemes.All.Any(s => string.Equals(s.Name(), scheme, StringComparison.OrdinalIgnoreCase));

    private static OrderingCheck Order(string experiment, string metric, List<ValidationRow> rows, List<string> schemes, bool descending)
    {
        var these = rows.Where(r => r.Experiment == experiment && r.Metric == metric && schemes.Contains(r.Scheme)).ToList();
        IEnumerable<string> By(Func<ValidationRow, double> value) =>
            (descending ? these.OrderByDescending(value) : these.OrderBy(value)).ThenBy(r => r.Scheme, StringComparer.Ordinal).Select(r => r.Scheme);
        int separated = 0, agreeing = 0;
        for (int i = 0; i < these.Count; i++)
        {
            for (int j = i + 1; j < these.Count; j++)
            {
                var (a, b) = (these[i], these[j]);
                double gap = Math.Abs(a.Measured - b.Measured);
                double widths = (double.IsFinite(a.MeasuredHalfWidth) ? a.MeasuredHalfWidth : 0) + (double.IsFinite(b.MeasuredHalfWidth) ? b.MeasuredHalfWidth : 0);
                if (gap > widths)
                {
                    separated++;
                    if (Math.Sign(a.Measured - b.Measured) == Math.Sign(a.Simulated - b.Simulated))
                    {
                        agreeing++;
                    }
                }
            }
        }

        return new OrderingCheck(experiment, metric, [.. By(r => r.Simulated)], [.. By(r => r.Measured)], separated, agreeing);
    }

    /// <summary>Mean seconds per (program, cores) from a scalability sweep's <c>runs.csv</c> (series, x, run_index, seconds).</summary>
    private static List<(string Program, int Cores, double Seconds)> ReadScalability(string path)
    {
        string[] lines = ReadLines(path);
        var parsed = new List<(string Program, int Cores, double Seconds)>();
        foreach (string line in lines.Skip(1).Where(l => l.Length > 0))
        {
            string[] f = line.Split(',');
            if (f.Length < 4 || f[0].Contains(' ', StringComparison.Ordinal))
            {
                continue; // another series (e.g. "pi (dispersed)")
            }

            if (!int.TryParse(f[1], NumberStyles.Integer, CultureInfo.InvariantCulture, out int cores)
                || !double.TryParse(f[3], NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds))
            {
                throw new InvalidDataException($"'{path}': unreadable line '{line}' (expected series,x,run_index,seconds).");
            }

            parsed.Add((f[0], cores, seconds));
        }

        return [.. parsed.GroupBy(p => (p.Program, p.Cores)).Select(g => (g.Key.Program, g.Key.Cores, g.Average(p => p.Seconds)))];
    }

    private sealed record Setup(IReadOnlyList<(string Name, string Program)> Workload, IReadOnlyList<string> Schemes, double TimeLimitSeconds);

    private static Setup ReadSetup(string folder)
    {
        using var doc = Json(Path.Combine(folder, "setup.json"));
        try
        {
            var data = doc.RootElement.GetProperty("data");
            return new Setup(
                [.. data.GetProperty("workload").EnumerateArray().Select(w => (w.GetProperty("name").GetString()!, w.GetProperty("program").GetString()!))],
                [.. data.GetProperty("schemes").EnumerateArray().Select(s => s.GetProperty("name").GetString()!)],
                data.GetProperty("timeLimitSeconds").GetDouble());
        }
        catch (Exception e) when (e is KeyNotFoundException or InvalidOperationException)
        {
            throw new InvalidDataException($"'{folder}/setup.json' lacks data.workload, data.schemes or data.timeLimitSeconds: {e.Message}", e);
        }
    }

    private static Dictionary<string, (double Antt, double AnttHalfWidth, double Stp, double StpHalfWidth, Dictionary<string, double> Ntt)> ReadMetrics(string folder)
    {
        using var doc = Json(Path.Combine(folder, "summary.json"));
        try
        {
            var result = new Dictionary<string, (double, double, double, double, Dictionary<string, double>)>(StringComparer.Ordinal);
            foreach (var s in doc.RootElement.GetProperty("data").GetProperty("schemes").EnumerateArray())
            {
                var m = s.GetProperty("metrics");
                var ntt = m.GetProperty("programs").EnumerateArray()
                    .ToDictionary(p => p.GetProperty("program").GetString()!, p => p.GetProperty("normalizedTurnaroundTime").GetDouble(), StringComparer.Ordinal);
                result[s.GetProperty("scheme").GetString()!] = (m.GetProperty("antt").GetDouble(), HalfWidth(m, "anttHalfWidth"), m.GetProperty("stp").GetDouble(), HalfWidth(m, "stpHalfWidth"), ntt);
            }

            return result;
        }
        catch (Exception e) when (e is KeyNotFoundException or InvalidOperationException)
        {
            throw new InvalidDataException($"'{folder}/summary.json' lacks data.schemes[].metrics (antt, stp, programs): {e.Message}", e);
        }
    }

    private static double HalfWidth(JsonElement metrics, string name) =>
        metrics.TryGetProperty(name, out var w) && w.ValueKind == JsonValueKind.Number ? w.GetDouble() : double.NaN;

    private static JsonDocument Json(string path)
    {
        try
        {
            return JsonDocument.Parse(File.ReadAllText(path));
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or JsonException)
        {
            throw new InvalidDataException($"Cannot read the measured file '{path}': {e.Message}", e);
        }
    }

    private static string[] ReadLines(string path)
    {
        try
        {
            return File.ReadAllLines(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new InvalidDataException($"Cannot read the measured file '{path}': {e.Message}", e);
        }
    }
}
