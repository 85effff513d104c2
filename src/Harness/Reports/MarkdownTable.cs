using DivCon.Harness.Machine;

namespace DivCon.Harness.Reports;

/// <summary>
/// A GitHub-flavoured Markdown table: a header row, an alignment row, and body rows. Cells are escaped
/// (<c>|</c> becomes <c>\|</c>, line breaks become spaces) so any text is safe.
/// </summary>
public sealed class MarkdownTable
{
    private readonly string[] _headers;
    private readonly ColumnAlignment[] _alignments;
    private readonly List<string[]> _rows = [];

    /// <summary>Creates a table; the first column is left-aligned and the others right-aligned unless given.</summary>
    /// <param name="headers">Column headers (at least one).</param>
    /// <param name="alignments">One alignment per column, or null for the default.</param>
    /// <exception cref="ArgumentException">No headers, or the alignments do not match them.</exception>
    public MarkdownTable(IReadOnlyList<string> headers, IReadOnlyList<ColumnAlignment>? alignments = null)
    {
        ArgumentNullException.ThrowIfNull(headers);
        if (headers.Count == 0)
        {
            throw new ArgumentException("A table needs at least one column.", nameof(headers));
        }

        if (alignments is not null && alignments.Count != headers.Count)
        {
            throw new ArgumentException($"{alignments.Count} alignments for {headers.Count} columns.", nameof(alignments));
        }

        _headers = headers.ToArray();
        _alignments = alignments?.ToArray()
            ?? headers.Select((_, i) => i == 0 ? ColumnAlignment.Left : ColumnAlignment.Right).ToArray();
    }

    /// <summary>Number of body rows.</summary>
    public int RowCount => _rows.Count;

    /// <summary>Adds a body row.</summary>
    /// <param name="cells">One cell per column.</param>
    /// <exception cref="ArgumentException">The row has the wrong number of cells.</exception>
    public void AddRow(params IReadOnlyList<string> cells)
    {
        ArgumentNullException.ThrowIfNull(cells);
        if (cells.Count != _headers.Length)
        {
            throw new ArgumentException($"The row has {cells.Count} cells; the table has {_headers.Length} columns.", nameof(cells));
        }

        _rows.Add(cells.ToArray());
    }

    /// <summary>Writes the table (followed by a blank line).</summary>
    /// <param name="writer">Destination.</param>
    public void WriteTo(TextWriter writer)
    {
        ArgumentNullException.ThrowIfNull(writer);
        WriteRow(writer, _headers);
        writer.WriteLine("| " + string.Join(" | ", _alignments.Select(a => a == ColumnAlignment.Right ? "---:" : ":---")) + " |");
        foreach (string[] row in _rows)
        {
            WriteRow(writer, row);
        }

        writer.WriteLine();
    }

    /// <summary>Escapes one cell's text.</summary>
    /// <param name="text">The text.</param>
    /// <returns>Text safe inside a table cell.</returns>
    public static string EscapeCell(string? text) => (text ?? string.Empty)
        .Replace("\\", "\\\\", StringComparison.Ordinal)
        .Replace("|", "\\|", StringComparison.Ordinal)
        .Replace("\r\n", " ", StringComparison.Ordinal)
        .Replace('\n', ' ')
        .Replace('\r', ' ');

    private static void WriteRow(TextWriter writer, IEnumerable<string> cells) =>
        writer.WriteLine("| " + string.Join(" | ", cells.Select(EscapeCell)) + " |");
}

/// <summary>Alignment of a Markdown table column.</summary>
public enum ColumnAlignment
{
    /// <summary>Left-aligned (text).</summary>
    Left,

    /// <summary>Right-aligned (numbers).</summary>
    Right,
}

/// <summary>Writes a run's stamp as a Markdown section ("## Run" and a two-column table).</summary>
public static class MarkdownStamp
{
    /// <summary>Writes the section.</summary>
    /// <param name="writer">Destination.</param>
    /// <param name="stamp">The stamp.</param>
    public static void Write(TextWriter writer, RunStamp stamp)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(stamp);
        writer.WriteLine("## Run");
        writer.WriteLine();
        var table = new MarkdownTable(["Item", "Value"], [ColumnAlignment.Left, ColumnAlignment.Left]);
        foreach ((string key, string value) in stamp.ToPairs())
        {
            table.AddRow(key, key == "Command" ? "`" + value.Replace("`", "'", StringComparison.Ordinal) + "`" : value);
        }

        table.WriteTo(writer);
    }
}
