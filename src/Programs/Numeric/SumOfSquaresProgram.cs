using DivCon.Programs.Data;
using DivCon.Skeletons;

namespace DivCon.Programs.Numeric;

/// <summary>
/// The sum-of-squares benchmark: an array of <see cref="BenchmarkProgram.ProblemSize"/> integers uniform in
/// [0, <see cref="MaxValueExclusive"/>) (thesis: 2^27 of them, 512 MB), summed by <see cref="SumOfSquares"/>.
/// Verified against <see cref="SumOfSquares.Reference"/>, a plain loop.
/// </summary>
public sealed class SumOfSquaresProgram : BenchmarkProgram<IndexRange, long>
{
    /// <summary>The exclusive upper bound of the values (the thesis's choice; squares then fit easily in 64 bits).</summary>
    public const int MaxValueExclusive = 1024;

    private readonly int[] _values;
    private readonly SumOfSquares _skeleton;
    private long? _reference;

    /// <summary>Builds the input: <paramref name="size"/> integers from <paramref name="seed"/>.</summary>
    /// <param name="size">The number of integers, 1 to <c>Array.MaxLength</c>.</param>
    /// <param name="seed">The seed.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="size"/> is out of range.</exception>
    public SumOfSquaresProgram(long size, int seed)
        : base("sumsq", size, seed)
    {
        if (size is < 1 or > int.MaxValue || size > Array.MaxLength)
        {
            throw new ArgumentOutOfRangeException(nameof(size), size, $"sumsq needs 1 to {Array.MaxLength} integers.");
        }

        _values = SeededData.UniformInts((int)size, seed, stream: 0, MaxValueExclusive);
        _skeleton = new SumOfSquares(_values);
    }

    /// <summary>The input values (read-only view).</summary>
    public ReadOnlyMemory<int> Values => _values;

    /// <inheritdoc/>
    public override int BranchingFactor => _skeleton.BranchingFactor;

    /// <inheritdoc/>
    public override GranularDivideAndConquer<IndexRange, long> Skeleton => _skeleton;

    /// <inheritdoc/>
    public override IndexRange RootProblem => _skeleton.WholeRange;

    /// <inheritdoc/>
    public override string DescribeResult() => HasResult ? $"sum of squares = {LastResult}" : "no result";

    /// <inheritdoc/>
    public override ulong ComputeInputChecksum() => Checksum.OfSequence(_values);

    /// <inheritdoc/>
    public override ulong ComputeResultChecksum() => Checksum.Add(Checksum.Empty, (ulong)LastResult);

    /// <inheritdoc/>
    private protected override long SolveSequentially() => _skeleton.ComputeSequentially();

    /// <inheritdoc/>
    private protected override ProgramVerification Check(long result)
    {
        long expected = _reference ??= SumOfSquares.Reference(_values);
        return result == expected
            ? ProgramVerification.Success($"sum {result} equals a plain loop over all {_values.Length} values")
            : ProgramVerification.Failure($"sum {result}, but a plain loop gives {expected}");
    }
}
