using DivCon.Programs.Data;
using DivCon.Skeletons;

namespace DivCon.Programs.Matrices;

/// <summary>
/// The Strassen benchmark: two matrices of order <see cref="BenchmarkProgram.ProblemSize"/> (thesis: 1536, 9 MB each)
/// with elements uniform in [0, 1024), multiplied by <see cref="StrassenMultiplication"/>.
/// </summary>
/// <remarks>
/// Elements are 32-bit integers, as in the thesis. The order is limited to <see cref="MaxOrder"/> so that every
/// entry of the true product (at most order x 1023^2) fits in an <see cref="int"/>: then the modulo-2^32 arithmetic
/// of the program is exact. Verification compares every entry with a plain scalar product
/// (<see cref="SquareMatrix.MultiplyPlain"/>), computed once per instance and kept (about 1-3 s at order 1536).
/// The thesis form (<see cref="ThesisFormName"/>, <c>sequentialSweeps: true</c>) computes every split's operand sums
/// and every merge's quadrant sums as one sequential sweep, as the reference thesis's Strassen did (Fenech 2013,
/// section 7.2); the default form cuts sweeps longer than <see cref="StrassenMultiplication.MaximumSweepLength"/>
/// into parallel blocks.
/// </remarks>
public sealed class StrassenProgram : BenchmarkProgram<StrassenProblem, SquareMatrix>
{
    /// <summary>The exclusive upper bound of the elements.</summary>
    public const int MaxValueExclusive = 1024;

    /// <summary>The largest order whose product entries (up to order x 1023^2) fit in an <see cref="int"/>.</summary>
    public const int MaxOrder = int.MaxValue / ((MaxValueExclusive - 1) * (MaxValueExclusive - 1));

    /// <summary>The catalog name of the default form (parallel sums in long splits and merges).</summary>
    public const string DefaultName = "strassen";

    /// <summary>The catalog name of the thesis form (every split and merge one sequential sweep).</summary>
    public const string ThesisFormName = "strassen-thesis";

    private readonly StrassenMultiplication _skeleton;
    private readonly StrassenProblem _problem;
    private SquareMatrix? _reference;

    /// <summary>Builds two random matrices of order <paramref name="size"/> from <paramref name="seed"/>.</summary>
    /// <param name="size">The order, 1 to <see cref="MaxOrder"/>.</param>
    /// <param name="seed">The seed.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="size"/> is out of range.</exception>
    public StrassenProgram(long size, int seed)
        : this(size, seed, sequentialSweeps: false)
    {
    }

    /// <summary>Builds two random matrices of order <paramref name="size"/> from <paramref name="seed"/>, for either form.</summary>
    /// <param name="size">The order, 1 to <see cref="MaxOrder"/>.</param>
    /// <param name="seed">The seed.</param>
    /// <param name="sequentialSweeps">Whether every split and merge is one sequential sweep (the thesis form, named <see cref="ThesisFormName"/>).</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="size"/> is out of range.</exception>
    public StrassenProgram(long size, int seed, bool sequentialSweeps)
        : base(sequentialSweeps ? ThesisFormName : DefaultName, size, seed)
    {
        if (size is < 1 or > MaxOrder)
        {
            throw new ArgumentOutOfRangeException(nameof(size), size, $"{Name} needs a matrix order from 1 to {MaxOrder} (larger products overflow 32-bit entries).");
        }

        _skeleton = sequentialSweeps ? new StrassenMultiplication { MaximumSweepLength = int.MaxValue } : new StrassenMultiplication();

        int order = (int)size;
        _problem = new StrassenProblem(
            SquareMatrix.Random(order, seed, stream: 0, MaxValueExclusive),
            SquareMatrix.Random(order, seed, stream: 1, MaxValueExclusive));
    }

    /// <summary>Whether every split and merge is one sequential sweep (the thesis form).</summary>
    public bool HasSequentialSweeps => _skeleton.MaximumSweepLength == int.MaxValue;

    /// <inheritdoc/>
    public override int BranchingFactor => 7;

    /// <inheritdoc/>
    public override GranularDivideAndConquer<StrassenProblem, SquareMatrix> Skeleton => _skeleton;

    /// <inheritdoc/>
    public override StrassenProblem RootProblem => _problem;

    /// <inheritdoc/>
    public override string DescribeResult() =>
        HasResult ? $"product of order {LastResult.Order}, checksum {ComputeResultChecksum():X16}" : "no result";

    /// <inheritdoc/>
    public override ulong ComputeInputChecksum() =>
        Checksum.Add(Checksum.OfSequence(_problem.Left.Elements), Checksum.OfSequence(_problem.Right.Elements));

    /// <inheritdoc/>
    public override ulong ComputeResultChecksum() => Checksum.OfSequence(LastResult.Elements);

    /// <inheritdoc/>
    private protected override SquareMatrix SolveSequentially() => StrassenMultiplication.MultiplyDirectly(_problem);

    /// <inheritdoc/>
    private protected override ProgramVerification Check(SquareMatrix result)
    {
        var expected = _reference ??= SquareMatrix.MultiplyPlain(_problem.Left, _problem.Right);
        if (result.Order != expected.Order)
        {
            return ProgramVerification.Failure($"product of order {result.Order}, expected {expected.Order}");
        }

        int mismatch = result.Elements.AsSpan().CommonPrefixLength(expected.Elements);
        if (mismatch < expected.Elements.Length)
        {
            int n = expected.Order;
            return ProgramVerification.Failure(
                $"entry ({mismatch / n}, {mismatch % n}) is {result.Elements[mismatch]}, a plain product gives {expected.Elements[mismatch]}");
        }

        return ProgramVerification.Success($"all {expected.Elements.Length} entries equal a plain scalar product");
    }
}
