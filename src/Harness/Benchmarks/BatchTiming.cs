using System.Diagnostics;

namespace DivCon.Harness.Benchmarks;

/// <summary>
/// The plain timing loop of the harness's paired comparisons (<c>bench-instrumentation</c>, <c>bench-pairs</c>): a
/// warm-up of unrecorded calls, then batches of about <see cref="BatchSeconds"/> for a given time, each batch giving
/// the time per call. Also compiled by <c>bench/Runtimes</c> (linked in its project), whose children time the flat
/// cases of <see cref="FlatWorkloads"/>.
/// </summary>
internal static class BatchTiming
{
    /// <summary>The target length of one timed batch.</summary>
    public const double BatchSeconds = 0.02;

    /// <summary>Batches timed at least, whatever the time.</summary>
    public const int MinimumBatches = 5;

    /// <summary>Calls made in the warm-up at least, whatever its time.</summary>
    public const int MinimumWarmupCalls = 3;

    /// <summary>
    /// Runs <paramref name="operation"/> for <paramref name="warmupSeconds"/> unrecorded (tiered compilation, the
    /// pool's threads; at least <see cref="MinimumWarmupCalls"/> calls), then in batches of about
    /// <see cref="BatchSeconds"/> for <paramref name="seconds"/> (at least <see cref="MinimumBatches"/> batches).
    /// </summary>
    /// <param name="operation">One call.</param>
    /// <param name="warmupSeconds">Unrecorded seconds first; at least 0.</param>
    /// <param name="seconds">Timed seconds; at least 0.</param>
    /// <returns>Seconds per call in each batch.</returns>
    /// <exception cref="ArgumentOutOfRangeException">A time is negative or not finite.</exception>
    public static double[] Time(Action operation, double warmupSeconds, double seconds)
    {
        ArgumentNullException.ThrowIfNull(operation);
        if (!(warmupSeconds >= 0 && warmupSeconds < 1e6))
        {
            throw new ArgumentOutOfRangeException(nameof(warmupSeconds), warmupSeconds, "The warm-up must be a finite number of seconds, at least 0.");
        }

        if (!(seconds >= 0 && seconds < 1e6))
        {
            throw new ArgumentOutOfRangeException(nameof(seconds), seconds, "The timed seconds must be a finite number, at least 0.");
        }

        long warmupEnd = Stopwatch.GetTimestamp() + (long)(warmupSeconds * Stopwatch.Frequency);
        int warmupCalls = 0;
        long start = Stopwatch.GetTimestamp();
        while (warmupCalls < MinimumWarmupCalls || Stopwatch.GetTimestamp() < warmupEnd)
        {
            operation();
            warmupCalls++;
        }

        // The batch's length from the warm-up's mean call (its first, slower calls included: batches come out a
        // little shorter than the target, never much longer).
        double perCall = Stopwatch.GetElapsedTime(start).TotalSeconds / warmupCalls;
        int calls = (int)Math.Clamp(BatchSeconds / Math.Max(perCall, 1e-9), 1, 1_000_000);
        var batches = new List<double>();
        long end = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        while (batches.Count < MinimumBatches || Stopwatch.GetTimestamp() < end)
        {
            long batchStart = Stopwatch.GetTimestamp();
            for (int i = 0; i < calls; i++)
            {
                operation();
            }

            batches.Add(Stopwatch.GetElapsedTime(batchStart).TotalSeconds / calls);
        }

        return [.. batches];
    }

    /// <summary>The median of <paramref name="values"/> (the mean of the middle two for an even count).</summary>
    /// <param name="values">At least one value.</param>
    /// <returns>The median.</returns>
    /// <exception cref="ArgumentException"><paramref name="values"/> is empty.</exception>
    public static double Median(IReadOnlyCollection<double> values)
    {
        ArgumentNullException.ThrowIfNull(values);
        if (values.Count == 0)
        {
            throw new ArgumentException("The median of no values is undefined.", nameof(values));
        }

        double[] sorted = [.. values.Order()];
        int middle = sorted.Length / 2;
        return sorted.Length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
