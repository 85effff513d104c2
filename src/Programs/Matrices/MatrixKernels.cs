using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace DivCon.Programs.Matrices;

/// <summary>The vectorised loops of Strassen's split, leaves and merge (unchecked, i.e. modulo 2^32, arithmetic).</summary>
internal static class MatrixKernels
{
    /// <summary>destination = x + y, element-wise.</summary>
    public static void Add(ReadOnlySpan<int> x, ReadOnlySpan<int> y, Span<int> destination)
    {
        int i = 0;
        if (Vector.IsHardwareAccelerated)
        {
            for (; i + Vector<int>.Count <= destination.Length; i += Vector<int>.Count)
            {
                Store(Load(x[i..]) + Load(y[i..]), destination[i..]);
            }
        }

        for (; i < destination.Length; i++)
        {
            destination[i] = x[i] + y[i];
        }
    }

    /// <summary>destination = x - y, element-wise.</summary>
    public static void Subtract(ReadOnlySpan<int> x, ReadOnlySpan<int> y, Span<int> destination)
    {
        int i = 0;
        if (Vector.IsHardwareAccelerated)
        {
            for (; i + Vector<int>.Count <= destination.Length; i += Vector<int>.Count)
            {
                Store(Load(x[i..]) - Load(y[i..]), destination[i..]);
            }
        }

        for (; i < destination.Length; i++)
        {
            destination[i] = x[i] - y[i];
        }
    }

    /// <summary>
    /// c += a x b for dense row-major matrices of order n: the cache-friendly i-k-j order (the inner loop walks a
    /// row of b and a row of c), vectorised along j.
    /// </summary>
    public static void MultiplyAdd(ReadOnlySpan<int> a, ReadOnlySpan<int> b, Span<int> c, int n)
    {
        for (int i = 0; i < n; i++)
        {
            var cRow = c.Slice(i * n, n);
            for (int k = 0; k < n; k++)
            {
                int aik = a[(i * n) + k];
                var bRow = b.Slice(k * n, n);
                int j = 0;
                if (Vector.IsHardwareAccelerated)
                {
                    var factor = new Vector<int>(aik);
                    for (; j + Vector<int>.Count <= n; j += Vector<int>.Count)
                    {
                        Store(Load(cRow[j..]) + (factor * Load(bRow[j..])), cRow[j..]);
                    }
                }

                for (; j < n; j++)
                {
                    cRow[j] += aik * bRow[j];
                }
            }
        }
    }

    // The span constructor and span CopyTo of Vector<T> exist on .NET only; netstandard2.0 reads and writes the
    // same bytes through MemoryMarshal (System.Memory). Both inline to one vector load or store.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector<int> Load(ReadOnlySpan<int> source) =>
#if NETCOREAPP
        new(source);
#else
        MemoryMarshal.Read<Vector<int>>(MemoryMarshal.AsBytes(source));
#endif

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Store(Vector<int> value, Span<int> destination)
    {
#if NETCOREAPP
        value.CopyTo(destination);
#else
        MemoryMarshal.Write(MemoryMarshal.AsBytes(destination), ref value);
#endif
    }
}
