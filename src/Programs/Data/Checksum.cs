namespace DivCon.Programs.Data;

/// <summary>
/// 64-bit fingerprints of data: an order-sensitive one (did the array change at all?) and an order-insensitive
/// one (is this array a permutation of that one?).
/// </summary>
public static class Checksum
{
    /// <summary>The fingerprint of nothing.</summary>
    public const ulong Empty = 0xCBF29CE484222325UL;

    /// <summary>Mixes one more 64-bit value into an order-sensitive fingerprint.</summary>
    /// <param name="fingerprint">The fingerprint so far (start from <see cref="Empty"/>).</param>
    /// <param name="value">The next value.</param>
    /// <returns>The new fingerprint.</returns>
    public static ulong Add(ulong fingerprint, ulong value) => CounterRandom.Mix(fingerprint ^ (value + CounterRandom.GoldenGamma)) + value;

    /// <summary>An order-sensitive fingerprint of <paramref name="values"/> (any change of a value or of the order changes it, with overwhelming probability).</summary>
    /// <param name="values">The values.</param>
    /// <returns>The fingerprint.</returns>
    public static ulong OfSequence(ReadOnlySpan<int> values)
    {
        // Four lanes so the multiply chains overlap; combined in a fixed order at the end.
        ulong h0 = Empty, h1 = Empty + 1, h2 = Empty + 2, h3 = Empty + 3;
        int i = 0;
        for (; i + 4 <= values.Length; i += 4)
        {
            h0 = CounterRandom.Mix(h0 + (uint)values[i]);
            h1 = CounterRandom.Mix(h1 + (uint)values[i + 1]);
            h2 = CounterRandom.Mix(h2 + (uint)values[i + 2]);
            h3 = CounterRandom.Mix(h3 + (uint)values[i + 3]);
        }

        for (; i < values.Length; i++)
        {
            h0 = CounterRandom.Mix(h0 + (uint)values[i]);
        }

        return Add(Add(Add(Add(h0, h1), h2), h3), (ulong)values.Length);
    }

    /// <summary>
    /// An order-insensitive (multiset) fingerprint: the wrapping sum of a 64-bit hash of every value, combined with
    /// the count. Equal for any two permutations of the same values; different for different multisets with
    /// probability about 1 - 2^-64 per difference.
    /// </summary>
    /// <param name="values">The values.</param>
    /// <returns>The fingerprint.</returns>
    public static ulong OfMultiset(ReadOnlySpan<int> values)
    {
        ulong sum = 0;
        foreach (int value in values)
        {
            sum += CounterRandom.Mix((uint)value + CounterRandom.GoldenGamma);
        }

        return Add(sum, (ulong)values.Length);
    }
}
