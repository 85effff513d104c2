namespace DivCon.Programs.Data;

/// <summary>
/// A counter-based random generator: the value at an index is a pure function of a key and the index (the
/// SplitMix64 output function applied to <c>key + (index + 1) * golden-gamma</c>).
/// </summary>
/// <remarks>
/// Because no state is carried from one draw to the next, any subrange can be generated independently and in any
/// order, so a parallel program that draws sample <c>i</c> gets exactly the value a sequential one would: results
/// do not depend on how the work was split, on the engine or on the scheduler. SplitMix64 (Steele, Lea and Flood,
/// OOPSLA 2014) is a good statistical mixer, not a cryptographic one.
/// </remarks>
public static class CounterRandom
{
    /// <summary>The odd constant 2^64 / golden ratio that SplitMix64 adds per step.</summary>
    public const ulong GoldenGamma = 0x9E3779B97F4A7C15UL;

    /// <summary>The SplitMix64 finalizer: a bijective avalanche mix of 64 bits.</summary>
    /// <param name="z">Any value.</param>
    /// <returns>The mixed value.</returns>
    public static ulong Mix(ulong z)
    {
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
        return z ^ (z >> 31);
    }

    /// <summary>A key for one stream of one seed (programs that need several independent arrays use several streams).</summary>
    /// <param name="seed">The user's seed.</param>
    /// <param name="stream">Which stream of that seed.</param>
    /// <returns>The key.</returns>
    public static ulong Key(int seed, int stream) => Mix(Mix((ulong)(uint)seed + GoldenGamma) ^ ((ulong)(uint)stream * 0xD1B54A32D192ED03UL));

    /// <summary>The 64 random bits at <paramref name="index"/> of the stream <paramref name="key"/>.</summary>
    /// <param name="key">A key from <see cref="Key"/>.</param>
    /// <param name="index">The counter.</param>
    /// <returns>The bits.</returns>
    public static ulong At(ulong key, long index) => Mix(key + (((ulong)index + 1) * GoldenGamma));
}
