using System.Globalization;
using DivCon.Harness.Reports;

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

/// <summary>The charts of the sweep experiments.</summary>
public static class SweepCharts
{
    /// <summary>
    /// Execution time against granularity (fraction of the problem per leaf), one line per program: log2 x
    /// axis from the whole problem (left) down to the finest fraction, log10 time axis, 99% error bars.
    /// </summary>
    /// <param name="result">A sweep whose X values are granularity fractions in (0, 1].</param>
    /// <returns>The chart.</returns>
    public static LineChart TimeVsGranularity(SweepResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        return new LineChart("Execution time vs granularity", "Granularity (fraction of the problem per leaf)", "Time (s)",
            result.TimeSeries(), AxisScale.Log2, AxisScale.Log10, descendingX: true);
    }

    /// <summary>Speedup against cores, one line per series (e.g. program and allocation), with the ideal diagonal.</summary>
    /// <param name="result">A sweep whose X values are core counts.</param>
    /// <param name="baselineSeconds">Sequential time per series.</param>
    /// <param name="title">Chart title.</param>
    /// <returns>The chart.</returns>
    public static LineChart SpeedupVsCores(SweepResult result, IReadOnlyDictionary<string, double> baselineSeconds, string title = "Speedup vs cores")
    {
        ArgumentNullException.ThrowIfNull(result);
        IReadOnlyList<LineSeries> series = result.SpeedupSeries(baselineSeconds);
        double[] cores = result.Points.Select(p => p.X).Distinct().Order().ToArray();
        var ideal = new LineSeries("ideal (linear)", cores.Select(c => new ChartPoint(c, c)).ToArray());
        return new LineChart(title, "Cores", "Speedup", [.. series, ideal]);
    }
}
