using System.Globalization;
using System.Text.Json;
using DivCon.Harness.Machine;
using DivCon.Harness.Measurement;

namespace DivCon.Harness.Reports;
/// <summary>
/// Saves and loads speedup tables (scalability profiles) as stamped JSON:
/// <c>{ "stamp": {...}, "data": [ { "program": "quicksort", "speedups": { "1": 1.0, "2": 1.9 } } ] }</c>.
/// The scalability experiment writes this file (<c>speedup-tables.json</c>); the cyclic experiment's oracle
/// and the partitioning policies read it back instead of measuring again.
/// </summary>
public static class SpeedupTableFile
{
    /// <summary>Serializes tables as a stamped JSON document.</summary>
    /// <param name="stream">Destination (left open).</param>
    /// <param name="stamp">The run's stamp.</param>
    /// <param name="tables">The tables.</param>
    public static void Write(Stream stream, RunStamp stamp, IReadOnlyList<SpeedupTable> tables)
    {
        ArgumentNullException.ThrowIfNull(tables);
        JsonReport.Write(stream, stamp, ToData(tables));
    }

    /// <summary>The JSON data shape of the tables (what goes under <c>"data"</c>).</summary>
    /// <param name="tables">The tables.</param>
    /// <returns>Objects with <c>program</c> and <c>speedups</c> (core count as a string key).</returns>
    public static IReadOnlyList<object> ToData(IReadOnlyList<SpeedupTable> tables)
    {
        ArgumentNullException.ThrowIfNull(tables);
        return tables.Select(t => (object)new
        {
            t.Program,
            Speedups = t.Points.ToDictionary(p => p.Key.ToString(CultureInfo.InvariantCulture), p => p.Value),
        }).ToArray();
    }

    /// <summary>Reads tables from a document written by <see cref="Write"/> (or the scalability experiment).</summary>
    /// <param name="json">The JSON text.</param>
    /// <returns>The tables, in file order.</returns>
    /// <exception cref="FormatException">The document does not have the expected shape.</exception>
    /// <exception cref="ArgumentException">A table is invalid (see <see cref="SpeedupTable"/>).</exception>
    public static IReadOnlyList<SpeedupTable> Parse(string json)
    {
        ArgumentNullException.ThrowIfNull(json);
        try
        {
            using JsonDocument document = JsonDocument.Parse(json);
            if (!document.RootElement.TryGetProperty("data", out JsonElement data) || data.ValueKind != JsonValueKind.Array)
            {
                throw new FormatException("A speedup-table file needs a \"data\" array.");
            }

            var tables = new List<SpeedupTable>();
            foreach (JsonElement entry in data.EnumerateArray())
            {
                string program = entry.GetProperty("program").GetString() ?? throw new FormatException("A table has no program name.");
                var points = new Dictionary<int, double>();
                foreach (JsonProperty point in entry.GetProperty("speedups").EnumerateObject())
                {
                    if (!int.TryParse(point.Name, NumberStyles.None, CultureInfo.InvariantCulture, out int cores))
                    {
                        throw new FormatException($"'{point.Name}' in the table of '{program}' is not a core count.");
                    }

                    points[cores] = point.Value.GetDouble();
                }

                tables.Add(new SpeedupTable(program, points));
            }

            return tables;
        }
        catch (Exception ex) when (ex is JsonException or KeyNotFoundException or InvalidOperationException)
        {
            throw new FormatException($"Not a speedup-table document: {ex.Message}", ex);
        }
    }
}
