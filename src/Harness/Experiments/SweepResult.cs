using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;

namespace DivCon.Harness.Experiments;

/// <summary>One configuration of a sweep: a series (e.g. a program), a parameter value, and how to run it once.</summary>
/// <param name="Series">Series name (one line in the chart).</param>
/// <param name="X">Parameter value (granularity fraction, core count...).</param>
/// <param name="RunOnce">Runs the configuration once; the runner times it.</param>
public sealed record SweepCase(string Series, double X, Func<CancellationToken, Task> RunOnce);

/// <summary>The timings of one sweep configuration.</summary>
/// <param name="Series">Series name.</param>
/// <param name="X">Parameter value.</param>
/// <param name="Seconds">Recorded run times.</param>
/// <param name="Time">Their summary (mean, deviation, interval).</param>
public sealed record SweepMeasurement(string Series, double X, IReadOnlyList<double> Seconds, SampleSummary Time);

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
