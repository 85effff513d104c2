using System.Globalization;

namespace DivCon.Bench.Runtimes;

/// <summary>
/// One measured variant on one runtime: a CSV line of the results file. GC figures are means per repetition; the pause
/// is empty where the runtime does not report it.
/// </summary>
internal sealed record ResultRow(
    string Label,
    string Runtime,
    string Case,
    string Variant,
    string Unit,
    int Repetitions,
    double Mean,
    double HalfWidth99,
    double StandardDeviation,
    double Min,
    double Max,
    double Gen0,
    double Gen1,
    double Gen2,
    double? PauseMilliseconds)
{
    public const string Header = "label,runtime,case,variant,unit,reps,mean,ci99_half_width,stdev,min,max,gen0_per_rep,gen1_per_rep,gen2_per_rep,gc_pause_ms_per_rep";

    /// <summary>The CSV line (RFC 4180: text with a comma or quote is quoted; numbers in the invariant culture).</summary>
    public string ToCsv() => string.Join(
        ",",
        Text(Label),
        Text(Runtime),
        Text(Case),
        Text(Variant),
        Text(Unit),
        Repetitions.ToString(CultureInfo.InvariantCulture),
        Number(Mean),
        Number(HalfWidth99),
        Number(StandardDeviation),
        Number(Min),
        Number(Max),
        Number(Gen0),
        Number(Gen1),
        Number(Gen2),
        PauseMilliseconds is { } pause ? Number(pause) : "");

    /// <summary>Reads a line written by <see cref="ToCsv"/>.</summary>
    /// <exception cref="FormatException">The line does not have the expected fields.</exception>
    public static ResultRow Parse(string line)
    {
        List<string> f = SplitFields(line);
        if (f.Count != 15)
        {
            throw new FormatException($"Expected 15 fields, found {f.Count}: '{line}'.");
        }

        return new ResultRow(
            f[0], f[1], f[2], f[3], f[4], int.Parse(f[5], CultureInfo.InvariantCulture),
            Read(f[6]), Read(f[7]), Read(f[8]), Read(f[9]), Read(f[10]), Read(f[11]), Read(f[12]), Read(f[13]),
            f[14].Length == 0 ? null : Read(f[14]));
    }

    private static string Text(string value)
    {
        string line = value.Replace('\n', ' ');
        return !line.Contains(',') && !line.Contains('"') ? line : "\"" + line.Replace("\"", "\"\"") + "\"";
    }

    // The inverse of Text over a whole line: commas separate fields except inside quotes; "" is a quote.
    private static List<string> SplitFields(string line)
    {
        var fields = new List<string>();
        var field = new System.Text.StringBuilder();
        bool quoted = false;
        for (int i = 0; i < line.Length; i++)
        {
            char c = line[i];
            if (quoted && c == '"' && i + 1 < line.Length && line[i + 1] == '"')
            {
                field.Append('"');
                i++;
            }
            else if (c == '"')
            {
                quoted = !quoted;
            }
            else if (c == ',' && !quoted)
            {
                fields.Add(field.ToString());
                field.Clear();
            }
            else
            {
                field.Append(c);
            }
        }

        fields.Add(field.ToString());
        return fields;
    }

    private static string Number(double value) => value.ToString("R", CultureInfo.InvariantCulture);

    private static double Read(string value) => double.Parse(value, NumberStyles.Float, CultureInfo.InvariantCulture);
}
