using DivCon.Skeletons;

namespace DivCon.Programs.Numeric;

/// <summary>
/// The sum of the squares of an array of integers, as a map-reduce: map squares a value, reduce adds, each leaf
/// runs a tight loop over its index range (<see cref="MapRange"/>). 64-bit accumulation.
/// </summary>
/// <remarks>
/// The data parallelism is embarrassing: split and merge are trivial, so the program sits at the top of the
/// scalability range (near-linear speedup until memory bandwidth runs out).
/// </remarks>
/// <example>
/// <code>
/// var program = new SumOfSquares(values);
/// long sum = await program.RunAsync(program.WholeRange);
/// </code>
/// </example>
public sealed class SumOfSquares : MapReduce<long>
{
    private readonly int[] _values;

    /// <summary>Creates the program over <paramref name="values"/> (read, never written).</summary>
    /// <param name="values">The integers.</param>
    /// <param name="options">Default options; <see langword="null"/>: the defaults.</param>
    /// <exception cref="ArgumentNullException"><paramref name="values"/> is <see langword="null"/>.</exception>
    public SumOfSquares(int[] values, DivideAndConquerOptions? options = null)
        : base(options)
    {
        ArgumentNullException.ThrowIfNull(values);
        _values = values;
    }

    /// <summary>The range of every index: the root problem.</summary>
    public IndexRange WholeRange => new(0, _values.Length);

    /// <summary>The trusted answer: a plain loop over the whole array, independent of the skeleton.</summary>
    /// <param name="values">The integers.</param>
    /// <returns>The sum of their squares (wrapping on overflow, like the program).</returns>
    public static long Reference(ReadOnlySpan<int> values)
    {
        long sum = 0;
        foreach (int value in values)
        {
            sum += (long)value * value;
        }

        return sum;
    }

    /// <summary>Sums the whole array with the execute muscle on the calling thread.</summary>
    /// <returns>The sum of squares.</returns>
    public long ComputeSequentially() => MapRange(WholeRange);

    /// <inheritdoc/>
    protected override long Identity => 0;

    /// <inheritdoc/>
    protected override long Map(int index)
    {
        long value = _values[index];
        return value * value;
    }

    /// <inheritdoc/>
    protected override long Reduce(long left, long right) => left + right;

    /// <inheritdoc/>
    protected override long MapRange(IndexRange range)
    {
        var values = _values.AsSpan(range.Start, range.Length);
        // Two accumulators so consecutive multiply-adds do not wait on each other.
        long even = 0, odd = 0;
        int i = 0;
        for (; i + 1 < values.Length; i += 2)
        {
            long a = values[i], b = values[i + 1];
            even += a * a;
            odd += b * b;
        }

        if (i < values.Length)
        {
            long a = values[i];
            even += a * a;
        }

        return even + odd;
    }
}
