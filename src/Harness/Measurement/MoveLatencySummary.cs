namespace DivCon.Harness.Measurement;
/// <summary>
/// The practical move latency of one partitioning scheme over a test: how long each core that a decision moved took
/// to start serving its new owner (from the decision to the first task boundary, or standby handover, at which a
/// worker of that CPU served the new owner). Percentiles use the nearest-rank method over the moves that arrived.
/// </summary>
/// <param name="Scheme">Scheme name.</param>
/// <param name="Moves">Cores moved by the scheme's decisions during the test.</param>
/// <param name="Arrived">Moves that arrived (the rest were superseded by a later decision, or still under way at the end).</param>
/// <param name="P50Ms">Median latency in milliseconds (NaN when none arrived).</param>
/// <param name="P95Ms">95th percentile in milliseconds.</param>
/// <param name="P99Ms">99th percentile in milliseconds.</param>
/// <param name="MaxMs">Largest latency in milliseconds.</param>
public sealed record MoveLatencySummary(string Scheme, int Moves, int Arrived, double P50Ms, double P95Ms, double P99Ms, double MaxMs)
{
    /// <summary>Summarises a scheme's move latencies.</summary>
    /// <param name="scheme">Scheme name.</param>
    /// <param name="latencies">One entry per move; null for a move that did not arrive.</param>
    /// <returns>The summary.</returns>
    /// <exception cref="ArgumentException"><paramref name="scheme"/> is empty, or a latency is negative.</exception>
    public static MoveLatencySummary Compute(string scheme, IReadOnlyList<TimeSpan?> latencies)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(scheme);
        ArgumentNullException.ThrowIfNull(latencies);
        double[] ms = [.. latencies.OfType<TimeSpan>().Select(t => t.TotalMilliseconds).Order()];
        if (ms.Length > 0 && ms[0] < 0)
        {
            throw new ArgumentException($"A move latency is negative ({ms[0]} ms).", nameof(latencies));
        }

        return new MoveLatencySummary(scheme, latencies.Count, ms.Length, Percentile(ms, 0.50), Percentile(ms, 0.95), Percentile(ms, 0.99),
            ms.Length == 0 ? double.NaN : ms[^1]);
    }

    /// <summary>Nearest-rank percentile of sorted values: the smallest value with at least <paramref name="p"/> of them at or below it.</summary>
    /// <param name="sorted">Values in ascending order.</param>
    /// <param name="p">The fraction, in (0, 1].</param>
    /// <returns>The percentile, or NaN for no values.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="p"/> is outside (0, 1].</exception>
    public static double Percentile(IReadOnlyList<double> sorted, double p)
    {
        ArgumentNullException.ThrowIfNull(sorted);
        if (!(p > 0 && p <= 1))
        {
            throw new ArgumentOutOfRangeException(nameof(p), p, "The percentile must be in (0, 1].");
        }

        if (sorted.Count == 0)
        {
            return double.NaN;
        }

        int rank = (int)Math.Ceiling(p * sorted.Count);
        return sorted[Math.Clamp(rank, 1, sorted.Count) - 1];
    }
}
