using System.Globalization;

namespace DivCon.Harness.Reports.Charts;

/// <summary>
/// Maps data values to pixels along one axis and chooses its ticks: nice round steps on a linear axis, whole
/// powers on a logarithmic one (thinned to about a dozen). The domain is widened to whole ticks.
/// </summary>
internal sealed class ChartAxis
{
    private const int MaxLogTicks = 12;
    private readonly double _pixelStart;
    private readonly double _pixelEnd;
    private readonly Func<double, string> _format;

    public ChartAxis(AxisScale scale, double dataMin, double dataMax, double pixelStart, double pixelEnd, bool includeZero, Func<double, string>? format = null)
    {
        if (!double.IsFinite(dataMin) || !double.IsFinite(dataMax) || dataMin > dataMax)
        {
            throw new ArgumentException($"Bad axis range [{dataMin}, {dataMax}].", nameof(dataMin));
        }

        Scale = scale;
        _pixelStart = pixelStart;
        _pixelEnd = pixelEnd;
        _format = format ?? (v => DefaultFormat(scale, v));
        (Min, Max, Ticks) = scale == AxisScale.Linear
            ? LinearTicks(dataMin, dataMax, includeZero)
            : LogTicks(scale == AxisScale.Log2 ? 2 : 10, dataMin, dataMax);
    }

    public AxisScale Scale { get; }

    public double Min { get; }

    public double Max { get; }

    public IReadOnlyList<double> Ticks { get; }

    public double Map(double value)
    {
        double fraction = Scale == AxisScale.Linear
            ? (value - Min) / (Max - Min)
            : (Math.Log(value) - Math.Log(Min)) / (Math.Log(Max) - Math.Log(Min));
        return _pixelStart + (fraction * (_pixelEnd - _pixelStart));
    }

    public string Format(double value) => _format(value);

    internal static string DefaultFormat(AxisScale scale, double value)
    {
        if (scale == AxisScale.Log2 && value < 1 && value > 0)
        {
            return "1/" + Math.Round(1 / value).ToString("G10", CultureInfo.InvariantCulture);
        }

        return Math.Round(value, 10).ToString("G6", CultureInfo.InvariantCulture);
    }

    private static (double Min, double Max, double[] Ticks) LinearTicks(double min, double max, bool includeZero)
    {
        if (includeZero)
        {
            min = Math.Min(0, min);
            max = Math.Max(0, max);
        }

        if (max == min)
        {
            double pad = max == 0 ? 1 : Math.Abs(max) * 0.1;
            max += pad;
            min = includeZero && min == 0 ? 0 : min - pad;
        }

        double step = NiceStep((max - min) / 5);
        double lo = Math.Floor((min / step) + 1e-9) * step;
        double hi = Math.Ceiling((max / step) - 1e-9) * step;
        int count = (int)Math.Round((hi - lo) / step) + 1;
        double[] ticks = Enumerable.Range(0, count).Select(i => Math.Round(lo + (i * step), 12)).ToArray();
        return (lo, hi, ticks);
    }

    private static (double Min, double Max, double[] Ticks) LogTicks(double logBase, double min, double max)
    {
        if (!(min > 0))
        {
            throw new ArgumentException($"A logarithmic axis needs positive values; the smallest is {min}.", nameof(min));
        }

        int lo = (int)Math.Floor(Math.Log(min, logBase) + 1e-9);
        int hi = (int)Math.Ceiling(Math.Log(max, logBase) - 1e-9);
        if (hi == lo)
        {
            hi = lo + 1;
        }

        int stride = Math.Max(1, (int)Math.Ceiling((hi - lo) / (double)MaxLogTicks));
        var ticks = new List<double>();
        for (int k = lo; k <= hi; k += stride)
        {
            ticks.Add(Math.Pow(logBase, k));
        }

        return (Math.Pow(logBase, lo), Math.Pow(logBase, hi), ticks.ToArray());
    }

    private static double NiceStep(double raw)
    {
        double magnitude = Math.Pow(10, Math.Floor(Math.Log10(raw)));
        double fraction = raw / magnitude;
        double nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
        return nice * magnitude;
    }
}
