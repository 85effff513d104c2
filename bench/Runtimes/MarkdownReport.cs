using System.Globalization;
using System.Text;

namespace DivCon.Bench.Runtimes;

/// <summary>
/// The Markdown comparison of a results file: per case, one row per variant and one column per runtime (mean and the
/// half-width of its 99% interval), then the collections and GC pause per repetition.
/// </summary>
internal static class MarkdownReport
{
    /// <summary>Formats <paramref name="rows"/> (in the order measured; runtimes in the order they first appear).</summary>
    public static string Format(IReadOnlyList<ResultRow> rows, string title)
    {
        var labels = rows.Select(r => r.Label).Distinct().ToList();
        var text = new StringBuilder();
        text.Append("# ").AppendLine(title).AppendLine();
        foreach (string label in labels)
        {
            text.Append("- `").Append(label).Append("`: ").AppendLine(rows.First(r => r.Label == label).Runtime);
        }

        text.AppendLine().AppendLine("Mean per repetition ± half-width of its 99% confidence interval (Student's t); n = repetitions.");
        foreach (var group in rows.GroupBy(r => r.Case))
        {
            text.AppendLine().Append("## ").AppendLine(group.Key).AppendLine();
            text.Append("| variant | unit |").AppendJoin("", labels.Select(l => $" {l} |")).AppendLine();
            text.Append("| :--- | :--- |").AppendJoin("", labels.Select(_ => " ---: |")).AppendLine();
            foreach (var variant in group.GroupBy(r => r.Variant))
            {
                text.Append("| ").Append(variant.Key).Append(" | ").Append(variant.First().Unit).Append(" |");
                foreach (string label in labels)
                {
                    ResultRow? r = variant.FirstOrDefault(v => v.Label == label);
                    text.Append(' ').Append(r is null ? "-" : $"{Significant(r.Mean)} ± {Significant(r.HalfWidth99)} (n={r.Repetitions})").Append(" |");
                }

                text.AppendLine();
            }
        }

        text.AppendLine().AppendLine("## Garbage collections per repetition").AppendLine();
        text.AppendLine("gen0 / gen1 / gen2 collections, and the GC pause time where the runtime reports it (.NET only).").AppendLine();
        text.Append("| case | variant |").AppendJoin("", labels.Select(l => $" {l} |")).AppendLine();
        text.Append("| :--- | :--- |").AppendJoin("", labels.Select(_ => " ---: |")).AppendLine();
        foreach (var variant in rows.Where(r => r.Unit != "x").GroupBy(r => (r.Case, r.Variant)))
        {
            text.Append("| ").Append(variant.Key.Case).Append(" | ").Append(variant.Key.Variant).Append(" |");
            foreach (string label in labels)
            {
                ResultRow? r = variant.FirstOrDefault(v => v.Label == label);
                string pause = r?.PauseMilliseconds is { } ms ? $", {Significant(ms)} ms" : "";
                text.Append(' ').Append(r is null ? "-" : $"{Fixed(r.Gen0)} / {Fixed(r.Gen1)} / {Fixed(r.Gen2)}{pause}").Append(" |");
            }

            text.AppendLine();
        }

        return text.ToString();
    }

    // Three significant digits, without exponents for the magnitudes measured here.
    private static string Significant(double value)
    {
        if (double.IsNaN(value))
        {
            return "n/a";
        }

        double magnitude = value == 0 ? 0 : Math.Floor(Math.Log10(Math.Abs(value)));
        int decimals = (int)Math.Max(0, Math.Min(6, 2 - magnitude));
        return value.ToString("F" + decimals.ToString(CultureInfo.InvariantCulture), CultureInfo.InvariantCulture);
    }

    private static string Fixed(double value) => value.ToString("0.#", CultureInfo.InvariantCulture);
}
