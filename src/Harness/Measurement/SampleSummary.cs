using System.Globalization;

namespace DivCon.Harness.Measurement;
/// <summary>
/// Descriptive statistics of one sample of measurements: size, mean, sample standard deviation, relative
/// standard deviation and the half-width of a two-sided Student-t confidence interval for the mean.
/// </summary>
/// <remarks>
/// <para>
/// The idea: every timing in DivCon is repeated, and a mean is only reported with its spread and an
/// interval. The standard deviation uses Bessel's correction (divide by <c>n - 1</c>) because the runs are
/// a sample, not the population. The interval is <c>mean ± t* · s / √n</c> where <c>t*</c> is the
/// two-sided Student-t critical value with <c>n - 1</c> degrees of freedom (see <see cref="StudentT"/>);
/// the default level is 99%.
/// </para>
/// <para>
/// A sample of one value has a mean but no spread: <see cref="StandardDeviation"/>,
/// <see cref="RelativeStandardDeviation"/> and <see cref="ConfidenceHalfWidth"/> are then
/// <see cref="double.NaN"/> (never zero, which would claim a precision the data does not have). The
/// relative standard deviation is NaN as well when the mean is zero.
/// </para>
/// <example><code>
/// var s = SampleSummary.Of([10.0, 12.0, 11.0]);   // Mean 11, s = 1, 99% half-width 9.925 / √3
/// </code></example>
/// </remarks>
public sealed record SampleSummary
{
    /// <summary>The confidence level used when none is given: 99%, as in the thesis's statistics.</summary>
    public const double DefaultConfidenceLevel = 0.99;

    private SampleSummary(int count, double mean, double standardDeviation, double confidenceLevel, double halfWidth)
    {
        Count = count;
        Mean = mean;
        StandardDeviation = standardDeviation;
        ConfidenceLevel = confidenceLevel;
        ConfidenceHalfWidth = halfWidth;
    }

    /// <summary>Number of values in the sample (at least 1).</summary>
    public int Count { get; }

    /// <summary>Arithmetic mean.</summary>
    public double Mean { get; }

    /// <summary>Sample standard deviation (Bessel-corrected); NaN when <see cref="Count"/> is 1.</summary>
    public double StandardDeviation { get; }

    /// <summary>Standard deviation divided by the mean (a fraction, 0.05 = 5%); NaN when undefined.</summary>
    public double RelativeStandardDeviation => Mean == 0 ? double.NaN : StandardDeviation / Math.Abs(Mean);

    /// <summary>Standard error of the mean, <c>s / √n</c>; NaN when <see cref="Count"/> is 1.</summary>
    public double StandardError => StandardDeviation / Math.Sqrt(Count);

    /// <summary>The two-sided confidence level of <see cref="ConfidenceHalfWidth"/> (e.g. 0.99).</summary>
    public double ConfidenceLevel { get; }

    /// <summary>Half-width of the confidence interval for the mean; NaN when <see cref="Count"/> is 1.</summary>
    public double ConfidenceHalfWidth { get; }

    /// <summary>Lower end of the confidence interval (NaN when it is undefined).</summary>
    public double Lower => Mean - ConfidenceHalfWidth;

    /// <summary>Upper end of the confidence interval (NaN when it is undefined).</summary>
    public double Upper => Mean + ConfidenceHalfWidth;

    /// <summary>Whether the sample has a confidence interval (at least two values).</summary>
    public bool HasConfidenceInterval => !double.IsNaN(ConfidenceHalfWidth);

    /// <summary>Summarises a sample.</summary>
    /// <param name="sample">The measurements; at least one, all finite.</param>
    /// <param name="confidenceLevel">Two-sided confidence level in (0, 1); 0.99 by default.</param>
    /// <returns>The summary.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="sample"/> is null.</exception>
    /// <exception cref="ArgumentException">The sample is empty or holds a NaN or infinite value.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="confidenceLevel"/> is not in (0, 1).</exception>
    public static SampleSummary Of(IEnumerable<double> sample, double confidenceLevel = DefaultConfidenceLevel)
    {
        ArgumentNullException.ThrowIfNull(sample);
        StudentT.ValidateConfidenceLevel(confidenceLevel);
        double[] values = sample.ToArray();
        if (values.Length == 0)
        {
            throw new ArgumentException("A sample needs at least one value.", nameof(sample));
        }

        for (int i = 0; i < values.Length; i++)
        {
            if (!double.IsFinite(values[i]))
            {
                throw new ArgumentException(
                    string.Create(CultureInfo.InvariantCulture, $"Value {i} of the sample is {values[i]}; all values must be finite."),
                    nameof(sample));
            }
        }

        double mean = MathNet.Numerics.Statistics.Statistics.Mean(values);
        if (values.Length == 1)
        {
            return new SampleSummary(1, mean, double.NaN, confidenceLevel, double.NaN);
        }

        // MathNet's StandardDeviation is the unbiased sample estimator (n - 1 in the denominator).
        double standardDeviation = MathNet.Numerics.Statistics.Statistics.StandardDeviation(values);
        double critical = StudentT.TwoSidedCriticalValue(confidenceLevel, values.Length - 1);
        double halfWidth = critical * standardDeviation / Math.Sqrt(values.Length);
        return new SampleSummary(values.Length, mean, standardDeviation, confidenceLevel, halfWidth);
    }

    /// <summary>Formats as <c>mean ± half-width</c> (or the mean alone without an interval), invariant culture.</summary>
    /// <param name="format">Numeric format of both numbers, e.g. "F3".</param>
    /// <returns>The text.</returns>
    public string ToString(string format) => HasConfidenceInterval
        ? string.Create(CultureInfo.InvariantCulture, $"{Mean.ToString(format, CultureInfo.InvariantCulture)} ± {ConfidenceHalfWidth.ToString(format, CultureInfo.InvariantCulture)}")
        : Mean.ToString(format, CultureInfo.InvariantCulture);
}
