namespace DivCon.Bench.Runtimes;

/// <summary>Mean, standard deviation and 99% confidence interval (Student's t) of repeated measurements.</summary>
internal sealed class Summary
{
    // Two-sided 99% quantiles of Student's t, t(0.995, df), for df = 1..30; the normal 2.576 beyond.
    private static readonly double[] s_t995 =
    [
        63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169,
        3.106, 3.055, 3.012, 2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845,
        2.831, 2.819, 2.807, 2.797, 2.787, 2.779, 2.771, 2.763, 2.756, 2.750,
    ];

    private Summary(int count, double mean, double standardDeviation, double min, double max)
    {
        Count = count;
        Mean = mean;
        StandardDeviation = standardDeviation;
        Min = min;
        Max = max;
        HalfWidth99 = count < 2 ? double.NaN : TQuantile995(count - 1) * standardDeviation / Math.Sqrt(count);
    }

    public int Count { get; }

    public double Mean { get; }

    public double StandardDeviation { get; }

    /// <summary>Half the width of the 99% confidence interval of the mean (NaN for a single value).</summary>
    public double HalfWidth99 { get; }

    public double Min { get; }

    public double Max { get; }

    /// <summary>Summarises <paramref name="values"/> (at least one).</summary>
    /// <exception cref="ArgumentException"><paramref name="values"/> is empty.</exception>
    public static Summary Of(IReadOnlyList<double> values)
    {
        if (values.Count == 0)
        {
            throw new ArgumentException("At least one value is needed.", nameof(values));
        }

        double mean = values.Average();
        double squares = values.Sum(v => (v - mean) * (v - mean));
        double deviation = values.Count < 2 ? 0 : Math.Sqrt(squares / (values.Count - 1));
        return new Summary(values.Count, mean, deviation, values.Min(), values.Max());
    }

    private static double TQuantile995(int degreesOfFreedom) =>
        degreesOfFreedom <= s_t995.Length ? s_t995[degreesOfFreedom - 1] : 2.576;
}
