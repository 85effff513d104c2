using DivCon.Programs.Data;
using DivCon.Skeletons;

namespace DivCon.Programs.Numeric;

/// <summary>
/// The Monte Carlo pi benchmark: <see cref="BenchmarkProgram.ProblemSize"/> points (thesis: 2^30) counted by
/// <see cref="MonteCarloPi"/>. Verified exactly: the count must equal a sequential count of the same points
/// (computed once per instance and kept), and the estimate must lie within 6 standard deviations of pi.
/// </summary>
public sealed class MonteCarloPiProgram : BenchmarkProgram<SampleRange, long>
{
    private readonly MonteCarloPi _skeleton;
    private long? _reference;

    /// <summary>Creates the program for <paramref name="size"/> points of seed <paramref name="seed"/> (nothing to allocate).</summary>
    /// <param name="size">The number of points, at least 1.</param>
    /// <param name="seed">The seed.</param>
    /// <param name="branchingFactor">Parts per split, at least 2.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="size"/> or <paramref name="branchingFactor"/> is out of range.</exception>
    public MonteCarloPiProgram(long size, int seed, int branchingFactor = 2)
        : base("pi", size, seed)
    {
        if (size < 1)
        {
            throw new ArgumentOutOfRangeException(nameof(size), size, "pi needs at least 1 point.");
        }

        _skeleton = new MonteCarloPi(size, seed) { BranchingFactor = branchingFactor };
    }

    /// <inheritdoc/>
    public override int BranchingFactor => _skeleton.BranchingFactor;

    /// <inheritdoc/>
    public override GranularDivideAndConquer<SampleRange, long> Skeleton => _skeleton;

    /// <inheritdoc/>
    public override SampleRange RootProblem => _skeleton.WholeRange;

    /// <summary>The estimate of pi from the last run.</summary>
    /// <exception cref="InvalidOperationException">No run has completed.</exception>
    public double PiEstimate => MonteCarloPi.Estimate(LastResult, ProblemSize);

    /// <inheritdoc/>
    public override string DescribeResult() =>
        HasResult ? $"pi ~ {PiEstimate:F6} ({LastResult} of {ProblemSize} points inside)" : "no result";

    /// <inheritdoc/>
    public override ulong ComputeInputChecksum() => Checksum.Add(Checksum.Add(Checksum.Empty, (ulong)ProblemSize), (ulong)(uint)Seed);

    /// <inheritdoc/>
    public override ulong ComputeResultChecksum() => Checksum.Add(Checksum.Empty, (ulong)LastResult);

    /// <inheritdoc/>
    private protected override long SolveSequentially() => _skeleton.CountInside(_skeleton.WholeRange);

    /// <inheritdoc/>
    private protected override ProgramVerification Check(long result)
    {
        long expected = _reference ??= _skeleton.CountInside(_skeleton.WholeRange);
        if (result != expected)
        {
            return ProgramVerification.Failure($"{result} points inside, but a sequential count of the same points gives {expected}");
        }

        // The hit count is binomial(n, pi/4): the estimate's standard deviation is 4 sqrt(p (1 - p) / n).
        double p = Math.PI / 4;
        double sigma = 4 * Math.Sqrt(p * (1 - p) / ProblemSize);
        double estimate = MonteCarloPi.Estimate(result, ProblemSize);
        return Math.Abs(estimate - Math.PI) <= 6 * sigma
            ? ProgramVerification.Success($"count {result} equals the sequential count; estimate {estimate:F6} is within 6 sigma of pi")
            : ProgramVerification.Failure($"estimate {estimate} is more than 6 sigma ({6 * sigma:G3}) from pi: the generator is broken");
    }
}
