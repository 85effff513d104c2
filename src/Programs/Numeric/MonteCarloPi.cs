using DivCon.Programs.Data;
using DivCon.Skeletons;

namespace DivCon.Programs.Numeric;

/// <summary>
/// Estimates pi by counting random points of the unit square that fall inside the quarter circle of radius 1
/// (their share tends to pi / 4). The problem is a range of sample indexes; split divides it, a leaf counts its
/// hits, merge adds the counts.
/// </summary>
/// <remarks>
/// <para><b>Reproducible.</b> Sample <c>i</c> takes its coordinates from <see cref="CounterRandom.At"/>(key, i): the
/// top 31 bits are x, the low 31 bits are y, both on a 2^31 grid, and the point counts when
/// <c>x^2 + y^2 &lt; 2^62</c> (exact 64-bit integer arithmetic). So the count is the same for every split, engine
/// and scheduler, bit for bit, and equals the sequential count.</para>
/// </remarks>
public sealed class MonteCarloPi : GranularDivideAndConquer<SampleRange, long>
{
    private const ulong LowBits = (1UL << 31) - 1;
    private const ulong RadiusSquared = 1UL << 62;

    private readonly ulong _key;
    private readonly int _branchingFactor = 2;

    /// <summary>Creates the program for <paramref name="samples"/> points of stream <paramref name="seed"/>.</summary>
    /// <param name="samples">The number of points, at least 0.</param>
    /// <param name="seed">The seed of the points.</param>
    /// <param name="options">Default options; <see langword="null"/>: the defaults.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="samples"/> is negative.</exception>
    public MonteCarloPi(long samples, int seed, DivideAndConquerOptions? options = null)
        : base(options)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(samples);
        Samples = samples;
        _key = CounterRandom.Key(seed, stream: 0);
    }

    /// <summary>The number of points of the whole problem.</summary>
    public long Samples { get; }

    /// <summary>The whole range of samples: the root problem.</summary>
    public SampleRange WholeRange => new(0, Samples);

    /// <summary>Parts per split; at least 2, default 2.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is less than 2.</exception>
    public int BranchingFactor
    {
        get => _branchingFactor;
        init
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 2);
            _branchingFactor = value;
        }
    }

    /// <summary>The estimate of pi from a hit count.</summary>
    /// <param name="inside">Points inside the quarter circle.</param>
    /// <param name="samples">All points, at least 1.</param>
    /// <returns>4 x inside / samples.</returns>
    public static double Estimate(long inside, long samples) => 4.0 * inside / samples;

    /// <summary>Counts the hits of <paramref name="range"/> with a plain loop: the execute muscle, and the trusted reference.</summary>
    /// <param name="range">The samples to draw.</param>
    /// <returns>How many fall inside the quarter circle.</returns>
    public long CountInside(SampleRange range)
    {
        ulong key = _key;
        long inside = 0;
        for (long i = range.Start; i < range.End; i++)
        {
            ulong bits = CounterRandom.At(key, i);
            ulong x = bits >> 33;
            ulong y = bits & LowBits;
            inside += x * x + y * y < RadiusSquared ? 1 : 0;
        }

        return inside;
    }

    /// <inheritdoc/>
    protected override long GetSize(SampleRange problem) => problem.Count;

    /// <inheritdoc/>
    protected override IReadOnlyList<SampleRange> Split(SampleRange problem, int depth) => problem.Split(_branchingFactor);

    /// <inheritdoc/>
    protected override long Execute(SampleRange problem, int depth) => CountInside(problem);

    /// <inheritdoc/>
    protected override long Merge(IReadOnlyList<long> subresults, int depth)
    {
        ArgumentNullException.ThrowIfNull(subresults);
        long total = 0;
        for (int i = 0; i < subresults.Count; i++)
        {
            total += subresults[i];
        }

        return total;
    }
}
