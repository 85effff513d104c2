namespace DivCon.Programs.Data;

/// <summary>Deterministic input data: the same (length, seed, stream) always gives the same array, on any machine.</summary>
public static class SeededData
{
    /// <summary>
    /// An array of <paramref name="length"/> integers uniform in [0, <paramref name="maxExclusive"/>), element <c>i</c>
    /// drawn from <see cref="CounterRandom.At"/>(key(seed, stream), i).
    /// </summary>
    /// <param name="length">The number of elements, at least 0.</param>
    /// <param name="seed">The seed.</param>
    /// <param name="stream">Which stream of the seed (independent arrays use different streams).</param>
    /// <param name="maxExclusive">The exclusive upper bound of the values, at least 1.</param>
    /// <returns>The new array.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="length"/> is negative or <paramref name="maxExclusive"/> less than 1.</exception>
    public static int[] UniformInts(int length, int seed, int stream, int maxExclusive)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        ArgumentOutOfRangeException.ThrowIfLessThan(maxExclusive, 1);
        ulong key = CounterRandom.Key(seed, stream);
        var values = new int[length];
        ulong bound = (ulong)maxExclusive;
        for (int i = 0; i < values.Length; i++)
        {
            // Multiply-shift maps 32 random bits onto [0, bound) with a bias below 2^-32 * bound (none for powers of two).
            values[i] = (int)(((CounterRandom.At(key, i) >> 32) * bound) >> 32);
        }

        return values;
    }
}
