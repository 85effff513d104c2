using DivCon.Programs.Data;

namespace DivCon.Programs.Matrices;

/// <summary>A dense square matrix of 32-bit integers, row-major in one array.</summary>
/// <remarks>
/// Arithmetic on it is unchecked, i.e. modulo 2^32. Every operation of <see cref="StrassenMultiplication"/> is a ring
/// operation, so its result is exact modulo 2^32, and therefore exact whenever the true product fits in an
/// <see cref="int"/> (as it does for the benchmark's values below 1024 and orders up to 2052), even where
/// intermediate sums overflow.
/// </remarks>
public sealed class SquareMatrix
{
    /// <summary>Creates a zero matrix of order <paramref name="order"/>.</summary>
    /// <param name="order">Rows (= columns), at least 0, with order^2 at most <c>Array.MaxLength</c>.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="order"/> is out of range.</exception>
    public SquareMatrix(int order)
    {
        if (order < 0 || (long)order * order > Array.MaxLength)
        {
            throw new ArgumentOutOfRangeException(nameof(order), order, "The order must be >= 0 and its square fit in an array.");
        }

        Order = order;
        Elements = new int[order * order];
    }

    /// <summary>Wraps <paramref name="elements"/> (row-major, not copied) as a matrix of order <paramref name="order"/>.</summary>
    /// <param name="order">Rows (= columns).</param>
    /// <param name="elements">Exactly order^2 elements.</param>
    /// <exception cref="ArgumentException">The length is not order^2.</exception>
    public SquareMatrix(int order, int[] elements)
    {
        ArgumentNullException.ThrowIfNull(elements);
        ArgumentOutOfRangeException.ThrowIfNegative(order);
        if ((long)order * order != elements.Length)
        {
            throw new ArgumentException($"A matrix of order {order} needs {(long)order * order} elements, not {elements.Length}.", nameof(elements));
        }

        Order = order;
        Elements = elements;
    }

    /// <summary>Rows (= columns).</summary>
    public int Order { get; }

    /// <summary>The elements, row after row.</summary>
#pragma warning disable CA1819 // The kernels need the array itself; a matrix is a thin wrapper by design.
    public int[] Elements { get; }
#pragma warning restore CA1819

    /// <summary>The element at (<paramref name="row"/>, <paramref name="column"/>).</summary>
    /// <param name="row">The row.</param>
    /// <param name="column">The column.</param>
    public int this[int row, int column]
    {
        get => Elements[(row * Order) + column];
        set => Elements[(row * Order) + column] = value;
    }

    /// <summary>A matrix with elements uniform in [0, <paramref name="maxExclusive"/>), drawn from (seed, stream).</summary>
    /// <param name="order">The order.</param>
    /// <param name="seed">The seed.</param>
    /// <param name="stream">The stream (use different streams for the two operands).</param>
    /// <param name="maxExclusive">The exclusive upper bound of the elements.</param>
    /// <returns>The matrix.</returns>
    public static SquareMatrix Random(int order, int seed, int stream, int maxExclusive)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(order);
        return new SquareMatrix(order, SeededData.UniformInts(checked(order * order), seed, stream, maxExclusive));
    }

    /// <summary>
    /// The plain O(n^3) product, scalar i-k-j loops written independently of the Strassen kernels: the trusted
    /// reference of the benchmark.
    /// </summary>
    /// <param name="left">The left operand.</param>
    /// <param name="right">The right operand, of the same order.</param>
    /// <returns>The product.</returns>
    /// <exception cref="ArgumentException">The orders differ.</exception>
    public static SquareMatrix MultiplyPlain(SquareMatrix left, SquareMatrix right)
    {
        ArgumentNullException.ThrowIfNull(left);
        ArgumentNullException.ThrowIfNull(right);
        if (left.Order != right.Order)
        {
            throw new ArgumentException($"Orders differ: {left.Order} and {right.Order}.", nameof(right));
        }

        int n = left.Order;
        var product = new SquareMatrix(n);
        int[] a = left.Elements, b = right.Elements, c = product.Elements;
        for (int i = 0; i < n; i++)
        {
            for (int k = 0; k < n; k++)
            {
                int aik = a[(i * n) + k];
                int bRow = k * n, cRow = i * n;
                for (int j = 0; j < n; j++)
                {
                    c[cRow + j] += aik * b[bRow + j];
                }
            }
        }

        return product;
    }
}
