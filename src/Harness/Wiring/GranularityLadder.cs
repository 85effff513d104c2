using DivCon.Programs;
using DivCon.Skeletons;

namespace DivCon.Harness.Wiring;

/// <summary>
/// The granularities of the granularity sweep: leaf size = 2^-k of the whole problem, k = 0 (no split) .. max.
/// </summary>
/// <remarks>
/// <para>The fraction is of the size the skeleton measures: elements for the sorts and map-reduce, points for pi,
/// matrix entries (order²) for Strassen, whose splits quarter the entries (so 1/2 and 1/4 both give 7 leaves, 1/8
/// and 1/16 give 49, as in the thesis).</para>
/// <para>fib and nqueens have no size proportional to their work, so for them step k stops splitting at depth k
/// (fib: about 2^k leaves; nqueens: up to n^k). Their points are plotted at 2^-k all the same.</para>
/// </remarks>
public static class GranularityLadder
{
    /// <summary>The sweep's default largest exponent (1/65,536 of the problem, as in the thesis).</summary>
    public const int DefaultMaxExponent = 16;

    /// <summary>The fraction of step <paramref name="exponent"/>: 2^-exponent.</summary>
    /// <param name="exponent">The step, 0 to 62.</param>
    /// <returns>The fraction.</returns>
    public static double Fraction(int exponent)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(exponent);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(exponent, 62);
        return Math.ScaleB(1.0, -exponent);
    }

    /// <summary>The granularity of step <paramref name="exponent"/> for <paramref name="program"/>.</summary>
    /// <param name="program">The program.</param>
    /// <param name="exponent">The step, 0 to 62.</param>
    /// <returns>The granularity to set before the run.</returns>
    public static Granularity For(BenchmarkProgram program, int exponent)
    {
        ArgumentNullException.ThrowIfNull(program);
        ArgumentOutOfRangeException.ThrowIfNegative(exponent);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(exponent, 62);
        if (IsDepthBased(program))
        {
            return exponent == 0 ? Granularity.Sequential : Granularity.Depth(exponent);
        }

        long root = string.Equals(program.Name, "strassen", StringComparison.Ordinal) ? program.ProblemSize * program.ProblemSize : program.ProblemSize;
        long leaf = (root + (1L << exponent) - 1) >> exponent; // ceiling of root / 2^k
        return Granularity.Fixed(Math.Max(1, leaf));
    }

    /// <summary>Whether the program's sweep uses recursion depth instead of a leaf size.</summary>
    /// <param name="program">The program.</param>
    /// <returns>True for fib and nqueens.</returns>
    public static bool IsDepthBased(BenchmarkProgram program)
    {
        ArgumentNullException.ThrowIfNull(program);
        return program.Name is "fib" or "nqueens";
    }
}
