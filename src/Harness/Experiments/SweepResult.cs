using DivCon.Harness.Reports.Charts;

namespace DivCon.Harness.Experiments;

/// <summary>All configurations of a sweep, with conversions to chart series.</summary>
/// <param name="Name">Sweep name (e.g. "granularity").</param>
/// <param name="Points">One measurement per configuration, in run order.</param>
public sealed record SweepResult(string Name, IReadOnlyList<SweepMeasurement> Points)
{
    /// <summary>Series names in order of first appearance.</summary>
    public IReadOnlyList<string> SeriesNames => Points.Select(p => p.Series).Distinct(StringComparer.Ordinal).ToArray();

    /// <summary>Mean time per configuration with its confidence half-width as the error bar, one line per series.</summary>
    /// <returns>The series.</returns>
    public IReadOnlyList<LineSeries> TimeSeries() => SeriesNames
        .Select(name => new LineSeries(name, Points.Where(p => p.Series == name)
            .Select(p => new ChartPoint(p.X, p.Time.Mean, NanToZero(p.Time.ConfidenceHalfWidth))).ToArray()))
        .ToArray();

    /// <summary>
    /// Speedup per configuration, <c>T_baseline / T</c>, one line per series. The error bar is the delta-method
    /// half-width <c>S · h_T / T</c>, treating the baseline (a sequential run) as a constant.
    /// </summary>
    /// <param name="baselineSeconds">Baseline (sequential) time per series.</param>
    /// <returns>The series.</returns>
    /// <exception cref="ArgumentException">A series has no positive baseline.</exception>
    public IReadOnlyList<LineSeries> SpeedupSeries(IReadOnlyDictionary<string, double> baselineSeconds)
    {
        ArgumentNullException.ThrowIfNull(baselineSeconds);
        return SeriesNames.Select(name =>
        {
            if (!baselineSeconds.TryGetValue(name, out double baseline) || !(baseline > 0) || double.IsInfinity(baseline))
            {
                throw new ArgumentException($"Series '{name}' has no positive baseline time.", nameof(baselineSeconds));
            }

            return new LineSeries(name, Points.Where(p => p.Series == name).Select(p =>
            {
                double speedup = baseline / p.Time.Mean;
                return new ChartPoint(p.X, speedup, NanToZero(speedup * p.Time.ConfidenceHalfWidth / p.Time.Mean));
            }).ToArray());
        }).ToArray();
    }

    private static double NanToZero(double value) => double.IsNaN(value) ? 0 : value;
}
