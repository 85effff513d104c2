using System.Runtime.InteropServices;

namespace DivCon.Bench.Bots;

/// <summary>FNV-1a over the bytes of the outputs: equal outputs give equal digests, any changed bit almost surely not.</summary>
internal struct Digest
{
    private const ulong Prime = 1099511628211UL;

    private ulong _hash;

    /// <summary>A digest of nothing yet.</summary>
    public Digest() => _hash = 14695981039346656037UL;

    /// <summary>The digest so far.</summary>
    public readonly ulong Value => _hash;

    /// <summary>Adds the bytes of <paramref name="values"/>.</summary>
    public void Add<T>(ReadOnlySpan<T> values)
        where T : struct
    {
        ulong hash = _hash;
        foreach (byte b in MemoryMarshal.AsBytes(values))
        {
            hash = (hash ^ b) * Prime;
        }

        _hash = hash;
    }

    /// <summary>Adds one marker value (for example a missing block).</summary>
    public void Add(long value) => Add<long>([value]);
}
