using DivCon.Programs.Data;
using DivCon.Skeletons;

namespace DivCon.Programs.Recursion;

/// <summary>
/// The Fibonacci benchmark: fib(<see cref="BenchmarkProgram.ProblemSize"/>) by <see cref="Fibonacci"/> (no input
/// data; the seed is unused). Verified against <see cref="Fibonacci.Iterate"/>. For BOTS-style fine-grained runs set
/// <see cref="BenchmarkProgram.Granularity"/> to <c>Granularity.Fixed(cutoff)</c> with a small cut-off.
/// </summary>
public sealed class FibonacciProgram : BenchmarkProgram<int, long>
{
    private readonly Fibonacci _skeleton = new();

    /// <summary>Creates the program for fib(<paramref name="size"/>).</summary>
    /// <param name="size">n, 1 to <see cref="Fibonacci.MaxN"/> (the run time grows as 1.618^n).</param>
    /// <param name="seed">Recorded only: the program has no random input.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="size"/> is out of range.</exception>
    public FibonacciProgram(long size, int seed)
        : base("fib", size, seed)
    {
        if (size is < 1 or > Fibonacci.MaxN)
        {
            throw new ArgumentOutOfRangeException(nameof(size), size, $"fib needs n from 1 to {Fibonacci.MaxN}.");
        }
    }

    /// <inheritdoc/>
    public override int BranchingFactor => 2;

    /// <inheritdoc/>
    public override GranularDivideAndConquer<int, long> Skeleton => _skeleton;

    /// <inheritdoc/>
    public override int RootProblem => (int)ProblemSize;

    /// <inheritdoc/>
    public override string DescribeResult() => HasResult ? $"fib({ProblemSize}) = {LastResult}" : "no result";

    /// <inheritdoc/>
    public override ulong ComputeInputChecksum() => Checksum.Add(Checksum.Empty, (ulong)ProblemSize);

    /// <inheritdoc/>
    public override ulong ComputeResultChecksum() => Checksum.Add(Checksum.Empty, (ulong)LastResult);

    /// <inheritdoc/>
    private protected override long SolveSequentially() => Fibonacci.Recurse(RootProblem);

    /// <inheritdoc/>
    private protected override ProgramVerification Check(long result)
    {
        long expected = Fibonacci.Iterate(RootProblem);
        return result == expected
            ? ProgramVerification.Success($"fib({ProblemSize}) = {result}, as by iteration")
            : ProgramVerification.Failure($"fib({ProblemSize}) came out {result}; iteration gives {expected}");
    }
}
