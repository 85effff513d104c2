using MathNet.Numerics.Distributions;
using MathNet.Numerics.Statistics;

namespace DivCon.Bench.Bots;

/// <summary>
/// A time ratio between two variants measured in the same rounds: the ratio of their median times, and a 99%
/// Student-t interval for the mean of the per-round ratios (each round runs both, so a round's ratio cancels what
/// that round shared, such as the machine's load at the time).
/// </summary>
internal readonly record struct RatioSummary(double Ratio, double Lower, double Upper)
{
    /// <summary>The confidence level of the interval.</summary>
    public const double ConfidenceLevel = 0.99;

    /// <summary>
    /// The least ratio the machine allows, 0 when none is known: for a ratio to the sequential variant, one over the
    /// CPUs the parallel variant may use (it cannot do the same work faster than that many CPUs running it all the time).
    /// </summary>
    public double Floor { get; init; }

    /// <summary>
    /// Whether the medians' ratio is below <see cref="Floor"/>: impossible for the same work on a steady machine, so
    /// either the variant did less work (caches that hold a share of the data but not the whole: a superlinear
    /// speed-up) or the machine ran the two variants at different speeds. Either way it is not a measure of the
    /// scheduling, and the report flags it.
    /// </summary>
    public bool BelowFloor => Ratio < Floor;

    /// <summary>Whether the interval exists (at least two rounds).</summary>
    public bool HasInterval => !double.IsNaN(Lower);

    /// <summary>Compares <paramref name="numerator"/> with <paramref name="denominator"/>, round by round.</summary>
    /// <exception cref="ArgumentException">The samples are empty or of different lengths, or a time is not positive.</exception>
    public static RatioSummary Of(IReadOnlyList<double> numerator, IReadOnlyList<double> denominator)
    {
        if (numerator.Count == 0 || numerator.Count != denominator.Count)
        {
            throw new ArgumentException($"Need the same positive number of rounds, not {numerator.Count} and {denominator.Count}.", nameof(denominator));
        }

        if (numerator.Concat(denominator).Any(t => !(t > 0)))
        {
            throw new ArgumentException("Every time must be positive.", nameof(numerator));
        }

        double ratio = numerator.Median() / denominator.Median();
        double[] perRound = numerator.Zip(denominator, (a, b) => a / b).ToArray();
        if (perRound.Length < 2)
        {
            return new RatioSummary(ratio, double.NaN, double.NaN);
        }

        double mean = perRound.Mean();
        double t = StudentT.InvCDF(0, 1, perRound.Length - 1, 1 - ((1 - ConfidenceLevel) / 2));
        double halfWidth = t * perRound.StandardDeviation() / Math.Sqrt(perRound.Length);
        return new RatioSummary(ratio, mean - halfWidth, mean + halfWidth);
    }

    /// <summary>
    /// Whether the medians' ratio lies outside the interval of the per-round ratios: the two estimate the same thing
    /// only when the rounds ran at one speed, so this says the machine's speed drifted between rounds (read the
    /// interval, which pairs each round's own times, rather than the medians' ratio).
    /// </summary>
    public bool Drifted => HasInterval && (Ratio < Lower || Ratio > Upper);

    /// <summary>
    /// <c>0.54 [0.52, 0.57]</c>, the ratio alone without an interval; a <c>!</c> after the ratio when
    /// <see cref="BelowFloor"/>, and a final <c>*</c> when <see cref="Drifted"/>.
    /// </summary>
    public override string ToString()
    {
        string ratio = FormattableString.Invariant($"{Ratio:F2}{(BelowFloor ? "!" : string.Empty)}");
        return HasInterval
            ? FormattableString.Invariant($"{ratio} [{Lower:F2}, {Upper:F2}]{(Drifted ? "*" : string.Empty)}")
            : ratio;
    }
}
