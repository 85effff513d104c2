using DivCon.Harness.Reports.Charts;

namespace DivCon.Harness.Experiments;

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
