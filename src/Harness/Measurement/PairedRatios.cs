using MathNet.Numerics.Statistics;

namespace DivCon.Harness.Measurement;

/// <summary>
/// The summary of an interleaved A/B: one ratio A/B per pair of runs taken back to back (so that a machine whose
/// speed drifts between minutes affects both alike), summarized by its median with a percentile bootstrap interval
/// (resampling the pairs with replacement; a fixed seed, so a summary is reproducible from its ratios).
/// </summary>
/// <param name="Pairs">The number of pairs.</param>
/// <param name="Median">The median ratio.</param>
/// <param name="Low">The interval's lower end.</param>
/// <param name="High">The interval's upper end.</param>
/// <param name="Confidence">The interval's confidence level.</param>
public sealed record PairedRatios(int Pairs, double Median, double Low, double High, double Confidence)
{
    /// <summary>Bootstrap resamples.</summary>
    public const int Resamples = 10_000;

    /// <summary>Whether the interval contains 1 (no difference shown).</summary>
    public bool ContainsOne => Low <= 1 && 1 <= High;

    /// <summary>Summarizes the ratios of the pairs.</summary>
    /// <param name="ratios">A/B of each pair; at least 2, all positive and finite.</param>
    /// <param name="confidence">The interval's level, in (0, 1).</param>
    /// <param name="seed">The bootstrap's seed.</param>
    /// <returns>The median and its interval.</returns>
    /// <exception cref="ArgumentException">Fewer than 2 ratios, or one not positive and finite.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="confidence"/> is out of range.</exception>
    public static PairedRatios Of(IReadOnlyList<double> ratios, double confidence = 0.95, int seed = 1)
    {
        ArgumentNullException.ThrowIfNull(ratios);
        if (ratios.Count < 2)
        {
            throw new ArgumentException($"At least 2 pairs are needed, got {ratios.Count}.", nameof(ratios));
        }

        if (ratios.Any(r => !double.IsFinite(r) || r <= 0))
        {
            throw new ArgumentException($"Every ratio must be positive and finite: {string.Join(", ", ratios)}.", nameof(ratios));
        }

        if (!(confidence > 0 && confidence < 1))
        {
            throw new ArgumentOutOfRangeException(nameof(confidence), confidence, "The confidence level must be in (0, 1).");
        }

        var random = new Random(seed);
        double[] sample = new double[ratios.Count];
        double[] medians = new double[Resamples];
        for (int b = 0; b < Resamples; b++)
        {
            for (int i = 0; i < sample.Length; i++)
            {
#pragma warning disable CA5394 // A reproducible bootstrap, not security.
                sample[i] = ratios[random.Next(ratios.Count)];
#pragma warning restore CA5394
            }

            medians[b] = Statistics.Median(sample);
        }

        double tail = (1 - confidence) / 2;
        return new PairedRatios(
            ratios.Count,
            Statistics.Median(ratios),
            Statistics.Quantile(medians, tail),
            Statistics.Quantile(medians, 1 - tail),
            confidence);
    }
}
