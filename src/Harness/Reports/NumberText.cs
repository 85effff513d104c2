using System.Globalization;
using System.Text;
using DivCon.Harness.Measurement;

namespace DivCon.Harness.Reports;

/// <summary>Formats numbers for human-readable reports (invariant culture; "–" for undefined values).</summary>
public static class NumberText
{
    /// <summary>Text for an undefined value.</summary>
    public const string Undefined = "–";

    /// <summary>A number with a fixed number of decimals, or "–" when not finite.</summary>
    /// <param name="value">The value.</param>
    /// <param name="decimals">Decimals (0-15).</param>
    /// <returns>The text.</returns>
    public static string Fixed(double value, int decimals = 3) =>
        double.IsFinite(value) ? value.ToString("F" + decimals.ToString(CultureInfo.InvariantCulture), CultureInfo.InvariantCulture) : Undefined;

    /// <summary><c>value ± halfWidth</c>, or the value alone when the half-width is undefined.</summary>
    /// <param name="value">The value.</param>
    /// <param name="halfWidth">The interval half-width (NaN when undefined).</param>
    /// <param name="decimals">Decimals.</param>
    /// <returns>The text.</returns>
    public static string WithInterval(double value, double halfWidth, int decimals = 3) =>
        double.IsFinite(halfWidth) ? $"{Fixed(value, decimals)} ± {Fixed(halfWidth, decimals)}" : Fixed(value, decimals);

    /// <summary>A summary's mean with its interval.</summary>
    /// <param name="summary">The summary.</param>
    /// <param name="decimals">Decimals.</param>
    /// <returns>The text.</returns>
    public static string WithInterval(SampleSummary summary, int decimals = 3)
    {
        ArgumentNullException.ThrowIfNull(summary);
        return WithInterval(summary.Mean, summary.ConfidenceHalfWidth, decimals);
    }

    /// <summary>A fraction as a percentage ("12.3%"), or "–".</summary>
    /// <param name="fraction">The fraction (0.123 = 12.3%).</param>
    /// <returns>The text.</returns>
    public static string Percent(double fraction) =>
        double.IsFinite(fraction) ? (fraction * 100).ToString("F1", CultureInfo.InvariantCulture) + "%" : Undefined;
}

/// <summary>Turns free text (scheme and program names) into safe file-name parts.</summary>
public static class FileNames
{
    /// <summary>Lower-case ASCII letters and digits, runs of anything else as one '-'; "unnamed" if nothing is left.</summary>
    /// <param name="text">The text.</param>
    /// <returns>The slug.</returns>
    public static string Slug(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        var slug = new StringBuilder(text.Length);
        foreach (char c in text)
        {
            if (char.IsAsciiLetterOrDigit(c))
            {
                slug.Append(char.ToLowerInvariant(c));
            }
            else if (slug.Length > 0 && slug[^1] != '-')
            {
                slug.Append('-');
            }
        }

        string result = slug.ToString().TrimEnd('-');
        return result.Length == 0 ? "unnamed" : result;
    }
}
