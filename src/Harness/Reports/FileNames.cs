using System.Text;

namespace DivCon.Harness.Reports;

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
