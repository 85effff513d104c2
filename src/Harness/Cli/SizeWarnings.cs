using System.Diagnostics;
using System.Globalization;
using DivCon.Harness.Workload;
using DivCon.Programs;
using DivCon.Skeletons;

namespace DivCon.Harness.Cli;

/// <summary>
/// Warns before a run that would take far longer than anyone expects (e.g. <c>pi=2^40</c>): for each program above
/// its thesis size, one sequential run at its quick size is timed and extrapolated by the program's growth in work;
/// an estimate of <see cref="LongRun"/> or more is reported with the figure.
/// </summary>
public static class SizeWarnings
{
    /// <summary>The estimated sequential run time from which a size is worth a warning.</summary>
    public static readonly TimeSpan LongRun = TimeSpan.FromMinutes(10);

    /// <summary>How many times more work a size means than another, by the program's complexity; null when unknown.</summary>
    /// <param name="program">Canonical program name.</param>
    /// <param name="size">The size.</param>
    /// <param name="reference">The reference size.</param>
    /// <returns>work(size) / work(reference).</returns>
    public static double? WorkRatio(string program, long size, long reference)
    {
        ArgumentNullException.ThrowIfNull(program);
        ArgumentOutOfRangeException.ThrowIfLessThan(size, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(reference, 1);
        double n = size, r = reference;
        return program switch
        {
            "sumsq" or "pi" => n / r,
            "quicksort" or "mergesort" or "pmergesort" => n * Math.Log2(Math.Max(n, 2)) / (r * Math.Log2(Math.Max(r, 2))),
            "strassen" => Math.Pow(n / r, Math.Log2(7)),
            "fib" => Math.Pow((1 + Math.Sqrt(5)) / 2, n - r),
            _ => null,
        };
    }

    /// <summary>The warnings of a workload (one per program, distinct programs once).</summary>
    /// <param name="workload">The programs.</param>
    /// <param name="timeQuickRun">Times one sequential run of a program at its quick size; null times a real one.</param>
    /// <returns>The warnings (empty when every size is reasonable).</returns>
    public static IReadOnlyList<string> Check(IEnumerable<WorkloadProgram> workload, Func<ProgramDescriptor, TimeSpan>? timeQuickRun = null)
    {
        ArgumentNullException.ThrowIfNull(workload);
        timeQuickRun ??= TimeQuickRun;
        var warnings = new List<string>();
        foreach (var group in workload.GroupBy(m => m.Program.Name, StringComparer.Ordinal))
        {
            ProgramDescriptor descriptor = ProgramCatalog.Find(group.Key);
            long size = group.Max(m => m.Program.ProblemSize);
            if (size <= descriptor.ThesisSize || WorkRatio(descriptor.Name, size, descriptor.QuickSize) is not { } ratio)
            {
                continue;
            }

            TimeSpan quick = timeQuickRun(descriptor);
            double estimate = quick.TotalSeconds * ratio;
            if (estimate >= LongRun.TotalSeconds)
            {
                warnings.Add(string.Create(CultureInfo.InvariantCulture,
                    $"{descriptor.Name} at size {size} ({descriptor.SizeMeaning}) is far above its thesis size {descriptor.ThesisSize}: one sequential run would take about {Duration(estimate)} on this machine (extrapolated from {quick.TotalSeconds:0.###} s at size {descriptor.QuickSize}); a parallel run divides that by at most the worker count, and every experiment makes several runs. Ctrl+C stops it."));
            }
        }

        return warnings;
    }

    /// <summary>A duration in the largest fitting unit ("14.6 h", "3.2 days").</summary>
    /// <param name="seconds">Seconds.</param>
    /// <returns>The text.</returns>
    public static string Duration(double seconds) => seconds switch
    {
        < 120 => string.Create(CultureInfo.InvariantCulture, $"{seconds:0.#} s"),
        < 7200 => string.Create(CultureInfo.InvariantCulture, $"{seconds / 60:0.#} min"),
        < 172800 => string.Create(CultureInfo.InvariantCulture, $"{seconds / 3600:0.#} h"),
        < 3.156e8 => string.Create(CultureInfo.InvariantCulture, $"{seconds / 86400:0.#} days"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{seconds / 3.156e7:0.##e0} years"),
    };

    private static TimeSpan TimeQuickRun(ProgramDescriptor descriptor)
    {
        BenchmarkProgram program = descriptor.Factory(descriptor.QuickSize, ProgramCatalog.DefaultSeed);
        long start = Stopwatch.GetTimestamp();
        program.RunSequential();
        return Stopwatch.GetElapsedTime(start);
    }
}

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
