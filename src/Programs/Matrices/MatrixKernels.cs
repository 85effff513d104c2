using System.Numerics;

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
                (new Vector<int>(x[i..]) + new Vector<int>(y[i..])).CopyTo(destination[i..]);
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
                (new Vector<int>(x[i..]) - new Vector<int>(y[i..])).CopyTo(destination[i..]);
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
                        (new Vector<int>(cRow[j..]) + (factor * new Vector<int>(bRow[j..]))).CopyTo(cRow[j..]);
                    }
                }

                for (; j < n; j++)
                {
                    cRow[j] += aik * bRow[j];
                }
            }
        }
    }
}
