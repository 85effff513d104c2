using System.Globalization;
using DivCon.Harness.Reports;

namespace DivCon.Harness.Simulation;

/// <summary>One validation figure judged against a tolerance.</summary>
/// <param name="Row">The simulated and measured figure.</param>
/// <param name="Beyond">
/// Whether it misses the tolerance: |relative error| above it, or no relative error at all (a measured value of zero
/// or missing), since a figure that cannot be compared cannot be said to be within it.
/// </param>
public sealed record JudgedFigure(ValidationRow Row, bool Beyond);

/// <summary>
/// A validation's figures against a tolerance (<c>simulate --mode validate --tolerance 10</c>): each figure measured
/// next to simulated with the difference in percent and a flag where it is beyond the tolerance, in the order the
/// validation produced them (alone runs, then per folder, scheme by scheme, ANTT, STP and each program's NTT).
/// A pure function of the rows; <see cref="Write"/> puts the result in <c>comparison.csv</c> and <c>comparison.md</c>.
/// </summary>
public static class ValidationTolerance
{
    /// <summary>The flag a figure beyond the tolerance carries in the tables.</summary>
    public const string FlagText = "BEYOND";

    /// <summary>Judges every row.</summary>
    /// <param name="rows">The validation's rows.</param>
    /// <param name="tolerance">The tolerance as a fraction (0.1: 10%), finite and not negative.</param>
    /// <returns>One judged figure per row, in order.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="tolerance"/> is negative or not finite.</exception>
    public static IReadOnlyList<JudgedFigure> Judge(IReadOnlyList<ValidationRow> rows, double tolerance)
    {
        ArgumentNullException.ThrowIfNull(rows);
        CheckTolerance(tolerance);
        return [.. rows.Select(r => new JudgedFigure(r, IsBeyond(r.RelativeError, tolerance)))];
    }

    /// <summary>Whether a relative error misses the tolerance: its magnitude above it, or not a number.</summary>
    /// <param name="relativeError">(simulated - measured) / measured.</param>
    /// <param name="tolerance">The tolerance as a fraction.</param>
    /// <returns>True when beyond (exactly at the tolerance is within).</returns>
    public static bool IsBeyond(double relativeError, double tolerance) => !double.IsFinite(relativeError) || Math.Abs(relativeError) > tolerance;

    /// <summary>Writes <c>comparison.csv</c> (every figure with <c>difference_percent</c> and <c>beyond</c>) and <c>comparison.md</c>.</summary>
    /// <param name="folder">The results folder.</param>
    /// <param name="figures">The judged figures.</param>
    /// <param name="tolerance">The tolerance as a fraction.</param>
    /// <param name="title">A line on what was compared (traces, measured folders, machine).</param>
    public static void Write(ResultsFolder folder, IReadOnlyList<JudgedFigure> figures, double tolerance, string title)
    {
        ArgumentNullException.ThrowIfNull(folder);
        ArgumentNullException.ThrowIfNull(figures);
        folder.WriteText("comparison.csv", w => Csv.Write(w, ["experiment", "scheme", "program", "metric", "measured", "simulated", "difference_percent", "beyond"],
            figures.Select(f => (IReadOnlyList<string>)[f.Row.Experiment, f.Row.Scheme, f.Row.Program, f.Row.Metric, Csv.Number(f.Row.Measured), Csv.Number(f.Row.Simulated),
                Csv.Number(f.Row.RelativeError * 100), f.Beyond ? "yes" : "no"])));
        folder.WriteText("comparison.md", w => WriteMarkdown(w, figures, tolerance, title));
    }

    /// <summary>
    /// The markdown report: a verdict line, then one table per experiment (scheme, program, metric, measured,
    /// simulated, difference, flag).
    /// </summary>
    /// <param name="writer">Destination.</param>
    /// <param name="figures">The judged figures.</param>
    /// <param name="tolerance">The tolerance as a fraction.</param>
    /// <param name="title">A line on what was compared (empty: none).</param>
    public static void WriteMarkdown(TextWriter writer, IReadOnlyList<JudgedFigure> figures, double tolerance, string title)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(figures);
        CheckTolerance(tolerance);
        writer.WriteLine("# Measured against SIMULATED");
        writer.WriteLine();
        if (!string.IsNullOrWhiteSpace(title))
        {
            writer.WriteLine(title);
            writer.WriteLine();
        }

        writer.WriteLine(Verdict(figures, tolerance));
        writer.WriteLine();
        writer.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"Difference = (simulated - measured) / measured; `{FlagText}` marks a figure off by more than {Percent(tolerance)} or without a measured value to compare with. Metrics: `time_s@c` and `speedup@c` a program alone on c cores; per scheme `antt`, `stp`, and each program's `ntt`."));
        foreach (var group in figures.GroupBy(f => f.Row.Experiment))
        {
            writer.WriteLine();
            writer.WriteLine($"## {group.Key}");
            writer.WriteLine();
            var table = new MarkdownTable(["scheme", "program", "metric", "measured", "simulated", "difference", "flag"],
                [ColumnAlignment.Left, ColumnAlignment.Left, ColumnAlignment.Left, ColumnAlignment.Right, ColumnAlignment.Right, ColumnAlignment.Right, ColumnAlignment.Left]);
            foreach (var f in group)
            {
                table.AddRow(Dash(f.Row.Scheme), Dash(f.Row.Program), f.Row.Metric, NumberText.Fixed(f.Row.Measured, 4), NumberText.Fixed(f.Row.Simulated, 4),
                    double.IsFinite(f.Row.RelativeError) ? SignedPercent(f.Row.RelativeError) : "-", f.Beyond ? FlagText : string.Empty);
            }

            table.WriteTo(writer);
        }
    }

    /// <summary>One line: how many figures are beyond the tolerance, and the largest miss.</summary>
    /// <param name="figures">The judged figures.</param>
    /// <param name="tolerance">The tolerance as a fraction.</param>
    /// <returns>For example <c>2 of 14 figures beyond ±10.0% (largest: cyc shared strassen ntt +23.1%).</c></returns>
    public static string Verdict(IReadOnlyList<JudgedFigure> figures, double tolerance)
    {
        ArgumentNullException.ThrowIfNull(figures);
        int beyond = figures.Count(f => f.Beyond);
        string text = string.Create(CultureInfo.InvariantCulture, $"{beyond} of {figures.Count} figures beyond ±{Percent(tolerance)}");
        var worst = figures.Where(f => double.IsFinite(f.Row.RelativeError)).OrderByDescending(f => Math.Abs(f.Row.RelativeError)).FirstOrDefault();
        if (worst is null)
        {
            return text + ".";
        }

        string where = string.Join(' ', new[] { worst.Row.Experiment, worst.Row.Scheme, worst.Row.Program, worst.Row.Metric }.Where(s => s.Length > 0));
        return text + string.Create(CultureInfo.InvariantCulture, $" (largest: {where} {SignedPercent(worst.Row.RelativeError)}).");
    }

    private static void CheckTolerance(double tolerance)
    {
        if (!double.IsFinite(tolerance) || tolerance < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(tolerance), tolerance, "The tolerance must be a finite fraction of at least 0.");
        }
    }

    private static string Dash(string text) => text.Length == 0 ? "-" : text;

    private static string Percent(double fraction) => (fraction * 100).ToString("0.0", CultureInfo.InvariantCulture) + "%";

    private static string SignedPercent(double fraction) => (fraction * 100).ToString("+0.0;-0.0;0.0", CultureInfo.InvariantCulture) + "%";
}
