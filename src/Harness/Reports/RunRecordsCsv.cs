using System.Globalization;
using DivCon.Harness.Cyclic;

namespace DivCon.Harness.Reports;

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
