using DivCon.Harness.Machine;

namespace DivCon.Harness.Reports;

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
