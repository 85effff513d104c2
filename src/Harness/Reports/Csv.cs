using System.Globalization;
using DivCon.Harness.Measurement;

namespace DivCon.Harness.Reports;

/// <summary>
/// Writes RFC 4180 CSV: comma-separated, CRLF line ends, a header row, and a field quoted (with inner quotes
/// doubled) exactly when it holds a comma, a quote, a CR or an LF. Numbers use the invariant culture and
/// round-trip. No comment lines: the run's stamp lives in the sidecar <c>stamp.json</c>.
/// </summary>
public static class Csv
{
    private static readonly char[] CharactersNeedingQuotes = [',', '"', '\r', '\n'];

    /// <summary>Writes a header and rows.</summary>
    /// <param name="writer">Destination.</param>
    /// <param name="header">Column names (at least one).</param>
    /// <param name="rows">Rows, each with exactly as many fields as the header.</param>
    /// <exception cref="ArgumentException">No columns, or a row of the wrong width.</exception>
    public static void Write(TextWriter writer, IReadOnlyList<string> header, IEnumerable<IReadOnlyList<string>> rows)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(header);
        ArgumentNullException.ThrowIfNull(rows);
        if (header.Count == 0)
        {
            throw new ArgumentException("A CSV file needs at least one column.", nameof(header));
        }

        WriteRow(writer, header);
        int rowNumber = 0;
        foreach (IReadOnlyList<string> row in rows)
        {
            rowNumber++;
            if (row is null || row.Count != header.Count)
            {
                throw new ArgumentException($"Row {rowNumber} has {row?.Count ?? 0} fields; the header has {header.Count}.", nameof(rows));
            }

            WriteRow(writer, row);
        }
    }

    /// <summary>Quotes a field if RFC 4180 requires it.</summary>
    /// <param name="field">The field (null is written as empty).</param>
    /// <returns>The field as it appears in the file.</returns>
    public static string Escape(string? field)
    {
        if (string.IsNullOrEmpty(field))
        {
            return string.Empty;
        }

        return field.IndexOfAny(CharactersNeedingQuotes) < 0
            ? field
            : "\"" + field.Replace("\"", "\"\"", StringComparison.Ordinal) + "\"";
    }

    /// <summary>A number as CSV text: invariant culture, shortest round-trip form; NaN as an empty field.</summary>
    /// <param name="value">The number.</param>
    /// <returns>The text.</returns>
    public static string Number(double value) => double.IsNaN(value) ? string.Empty : value.ToString("R", CultureInfo.InvariantCulture);

    private static void WriteRow(TextWriter writer, IReadOnlyList<string> fields)
    {
        for (int i = 0; i < fields.Count; i++)
        {
            if (i > 0)
            {
                writer.Write(',');
            }

            writer.Write(Escape(fields[i]));
        }

        writer.Write("\r\n");
    }
}

/// <summary>
/// The raw per-run CSV of cyclic tests: one row per finished run, counted or discarded, for every scheme.
/// Columns: <c>scheme, program, run_index, start_s, end_s, duration_s, counted</c>.
/// </summary>
public static class RunRecordsCsv
{
    /// <summary>The column names.</summary>
    public static IReadOnlyList<string> Header { get; } = ["scheme", "program", "run_index", "start_s", "end_s", "duration_s", "counted"];

    /// <summary>Writes the runs of one or more cyclic tests.</summary>
    /// <param name="writer">Destination.</param>
    /// <param name="tests">(scheme name, result) pairs.</param>
    public static void Write(TextWriter writer, IEnumerable<(string Scheme, CyclicTestResult Result)> tests)
    {
        ArgumentNullException.ThrowIfNull(tests);
        Csv.Write(writer, Header, tests.SelectMany(t => t.Result.Runs.Select(r => (IReadOnlyList<string>)
        [
            t.Scheme,
            r.Program,
            r.RunIndex.ToString(CultureInfo.InvariantCulture),
            Csv.Number(r.Start.TotalSeconds),
            Csv.Number(r.End.TotalSeconds),
            Csv.Number(r.Duration.TotalSeconds),
            r.Counted ? "true" : "false",
        ])));
    }
}
