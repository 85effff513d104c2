using System.Globalization;
using DivCon.Harness.Reports;
using DivCon.Harness.Reports.Charts;

namespace DivCon.Harness.Experiments;

/// <summary>
/// Writes a sweep's files: <c>runs.csv</c> (series, x, run index, seconds), <c>summary.json</c>,
/// <c>summary.md</c> (mean ± half-width, RSD and n per configuration) and the given charts.
/// </summary>
public static class SweepReportWriter
{
    /// <summary>Writes every file.</summary>
    /// <param name="folder">The experiment's folder.</param>
    /// <param name="result">The sweep.</param>
    /// <param name="xLabel">What X is (table header), e.g. "Granularity" or "Cores".</param>
    /// <param name="charts">(file name, chart) pairs to save.</param>
    /// <returns>Full paths of the files written.</returns>
    public static IReadOnlyList<string> Write(ResultsFolder folder, SweepResult result, string xLabel, IReadOnlyList<(string FileName, ISvgChart Chart)> charts)
    {
        ArgumentNullException.ThrowIfNull(folder);
        ArgumentNullException.ThrowIfNull(result);
        ArgumentNullException.ThrowIfNull(charts);
        var files = new List<string>
        {
            WriteRuns(folder, result),
            folder.WriteJson("summary.json", result),
            folder.WriteText("summary.md", w =>
            {
                w.WriteLine($"# Sweep: {result.Name}");
                w.WriteLine();
                double confidence = result.Points[0].Time.ConfidenceLevel;
                w.WriteLine(string.Create(CultureInfo.InvariantCulture, $"Times in seconds; `±` is the half-width of the two-sided {confidence * 100:0.##}% Student-t interval."));
                w.WriteLine();
                var table = new MarkdownTable(["Series", xLabel, "Runs", "Time (s)", "RSD"]);
                foreach (SweepMeasurement p in result.Points)
                {
                    table.AddRow(p.Series, p.X.ToString("G6", CultureInfo.InvariantCulture), p.Time.Count.ToString(CultureInfo.InvariantCulture),
                        NumberText.WithInterval(p.Time, 4), NumberText.Percent(p.Time.RelativeStandardDeviation));
                }

                table.WriteTo(w);
                MarkdownStamp.Write(w, folder.Stamp);
            }),
        };
        foreach ((string fileName, ISvgChart chart) in charts)
        {
            files.Add(SvgFile.Save(folder, fileName, chart));
        }

        return files;
    }

    /// <summary>Writes (or rewrites) <c>runs.csv</c>: every timed run of the points measured so far
    /// (series, x, run index, seconds). Used as <see cref="SweepRunner.CaseCompleted"/> so that a sweep that ends early keeps them.</summary>
    /// <param name="folder">The experiment's folder.</param>
    /// <param name="result">The points.</param>
    /// <returns>The file's full path.</returns>
    public static string WriteRuns(ResultsFolder folder, SweepResult result)
    {
        ArgumentNullException.ThrowIfNull(folder);
        ArgumentNullException.ThrowIfNull(result);
        return folder.WriteText("runs.csv", w => Csv.Write(w, ["series", "x", "run_index", "seconds"],
            result.Points.SelectMany(p => p.Seconds.Select((s, i) => (IReadOnlyList<string>)
                [p.Series, Csv.Number(p.X), i.ToString(CultureInfo.InvariantCulture), Csv.Number(s)]))));
    }
}
