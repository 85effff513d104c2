using DivCon.Programs.Data;
using DivCon.Skeletons;

namespace DivCon.Programs.Recursion;

/// <summary>
/// The N-Queens benchmark: the number of solutions on a board of <see cref="BenchmarkProgram.ProblemSize"/> columns,
/// counted by <see cref="NQueens"/> (no input data; the seed is unused). Verified against the known counts
/// (OEIS A000170), which cover every accepted size.
/// </summary>
public sealed class NQueensProgram : BenchmarkProgram<BoardState, long>
{
    /// <summary>The largest board accepted (its count is in <see cref="KnownSolutionCounts"/>; sequentially it takes hours).</summary>
    public const int MaxN = 20;

    private static readonly long[] s_knownCounts =
    [
        1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512, 95815104, 666090624,
        4968057848, 39029188884,
    ];

    private readonly NQueens _skeleton;

    /// <summary>Creates the program for an n x n board, n = <paramref name="size"/>.</summary>
    /// <param name="size">n, 1 to <see cref="MaxN"/>.</param>
    /// <param name="seed">Recorded only: the program has no random input.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="size"/> is out of range.</exception>
    public NQueensProgram(long size, int seed)
        : base("nqueens", size, seed)
    {
        if (size is < 1 or > MaxN)
        {
            throw new ArgumentOutOfRangeException(nameof(size), size, $"nqueens needs a board size from 1 to {MaxN}.");
        }

        _skeleton = new NQueens((int)size);
    }

    /// <summary>The number of solutions for n = 0 .. <see cref="MaxN"/> (index n).</summary>
    public static IReadOnlyList<long> KnownSolutionCounts => s_knownCounts;

    /// <summary>At most n children per split (one per safe column).</summary>
    public override int BranchingFactor => (int)ProblemSize;

    /// <inheritdoc/>
    public override GranularDivideAndConquer<BoardState, long> Skeleton => _skeleton;

    /// <inheritdoc/>
    public override BoardState RootProblem => BoardState.Empty;

    /// <inheritdoc/>
    public override string DescribeResult() => HasResult ? $"{LastResult} solutions for {ProblemSize} queens" : "no result";

    /// <inheritdoc/>
    public override ulong ComputeInputChecksum() => Checksum.Add(Checksum.Empty, (ulong)ProblemSize);

    /// <inheritdoc/>
    public override ulong ComputeResultChecksum() => Checksum.Add(Checksum.Empty, (ulong)LastResult);

    /// <inheritdoc/>
    private protected override long SolveSequentially() => _skeleton.CountCompletions(BoardState.Empty);

    /// <inheritdoc/>
    private protected override ProgramVerification Check(long result)
    {
        long expected = s_knownCounts[ProblemSize];
        return result == expected
            ? ProgramVerification.Success($"{result} solutions for n = {ProblemSize}, the known count")
            : ProgramVerification.Failure($"{result} solutions for n = {ProblemSize}; the known count is {expected}");
    }
}
