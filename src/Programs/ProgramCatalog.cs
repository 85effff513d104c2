using DivCon.Programs.Matrices;
using DivCon.Programs.Numeric;
using DivCon.Programs.Recursion;
using DivCon.Programs.Sorting;

namespace DivCon.Programs;

/// <summary>
/// Every benchmark program by name, with its preset sizes: the one place the harness and the CLI create programs.
/// Names are case-insensitive.
/// </summary>
/// <remarks>
/// <list type="table">
/// <listheader><term>name</term><description>size means; quick; thesis</description></listheader>
/// <item><term>sumsq</term><description>integers; 2^20; 2^27</description></item>
/// <item><term>pi</term><description>points; 2^20; 2^30</description></item>
/// <item><term>strassen</term><description>matrix order; 256; 1536</description></item>
/// <item><term>quicksort</term><description>integers; 2^18; 2^26</description></item>
/// <item><term>mergesort</term><description>integers; 2^18; 2^26</description></item>
/// <item><term>pmergesort (mergesort-parallel)</term><description>integers; 2^18; 2^26</description></item>
/// <item><term>fib</term><description>n; 24; 40</description></item>
/// <item><term>nqueens</term><description>board size n; 9; 15</description></item>
/// <item><term>quicksort-thesis, mergesort-thesis, strassen-thesis</term><description>the thesis forms: the same
/// programs and sizes with every split, merge and matrix sum one sequential sweep, as the reference thesis wrote them
/// (Fenech 2013, section 7.2)</description></item>
/// </list>
/// </remarks>
/// <example>
/// <code>
/// foreach (var descriptor in ProgramCatalog.Programs)
/// {
///     var program = ProgramCatalog.Create(descriptor.Name, SizePreset.Quick, seed: 7);
///     program.RunSequential();
///     Console.WriteLine($"{program.Name}: {program.Verify()}");
/// }
/// </code>
/// </example>
public static class ProgramCatalog
{
    /// <summary>The seed used when none is given.</summary>
    public const int DefaultSeed = 42;

    private static readonly ProgramDescriptor[] s_programs =
    [
        new("sumsq", ["sum-of-squares", "sumofsquares"], "map-reduce sum of squares of random integers in [0, 1024)", "integers",
            1 << 20, 1 << 27, static (size, seed) => new SumOfSquaresProgram(size, seed)),
        new("pi", ["montecarlo-pi", "montecarlopi"], "Monte Carlo estimate of pi from counter-based random points", "points",
            1 << 20, 1L << 30, static (size, seed) => new MonteCarloPiProgram(size, seed)),
        new("strassen", ["strassen-multiply"], "Strassen multiplication of two random int matrices, 7 subproblems per split", "matrix order",
            256, 1536, static (size, seed) => new StrassenProgram(size, seed)),
        new("quicksort", [], "non-destructive quicksort, median-of-first-100 pivot, Array.Sort leaves", "integers",
            1 << 18, 1 << 26, static (size, seed) => new QuicksortProgram(size, seed)),
        new(MergesortProgram.SequentialMergeName, [], "non-destructive mergesort, Array.Sort leaves, sequential merges", "integers",
            1 << 18, 1 << 26, static (size, seed) => new MergesortProgram(size, seed, parallelMerge: false)),
        new(MergesortProgram.ParallelMergeName, ["mergesort-parallel"], "mergesort whose merges are nested parallel merges", "integers",
            1 << 18, 1 << 26, static (size, seed) => new MergesortProgram(size, seed, parallelMerge: true)),
        new("fib", ["fibonacci"], "brute-force recursive Fibonacci (fine-grained tasks)", "n",
            24, 40, static (size, seed) => new FibonacciProgram(size, seed)),
        new("nqueens", ["n-queens"], "count N-Queens solutions (irregular search tree)", "board size n",
            9, 15, static (size, seed) => new NQueensProgram(size, seed)),
        new(StrassenProgram.ThesisFormName, ["strassen-sequential"], "strassen as the thesis wrote it: every split's and merge's matrix sums one sequential sweep", "matrix order",
            256, 1536, static (size, seed) => new StrassenProgram(size, seed, sequentialSweeps: true)),
        new(QuicksortProgram.ThesisFormName, ["quicksort-sequential"], "quicksort as the thesis wrote it: every partition one sequential sweep", "integers",
            1 << 18, 1 << 26, static (size, seed) => new QuicksortProgram(size, seed, sequentialSweeps: true)),
        new(MergesortProgram.ThesisFormName, ["mergesort-sequential"], "mergesort as the thesis wrote it: every merge one sequential sweep", "integers",
            1 << 18, 1 << 26, static (size, seed) => new MergesortProgram(size, seed, parallelMerge: false, sequentialSweeps: true)),
    ];

    /// <summary>Every program, in a fixed order.</summary>
    public static IReadOnlyList<ProgramDescriptor> Programs => s_programs;

    /// <summary>The canonical names, in catalog order.</summary>
    public static IReadOnlyList<string> Names { get; } = Array.ConvertAll(s_programs, static p => p.Name);

    /// <summary>Finds a program by name or alias (case-insensitive).</summary>
    /// <param name="name">The name.</param>
    /// <param name="descriptor">The program, when found.</param>
    /// <returns>Whether it was found.</returns>
    public static bool TryFind(string? name, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out ProgramDescriptor? descriptor)
    {
        descriptor = null;
        // The null test is explicit: netstandard2.0's IsNullOrWhiteSpace carries no nullability annotation.
        if (name is null || string.IsNullOrWhiteSpace(name))
        {
            return false;
        }

        string key = name.Trim();
        foreach (var program in s_programs)
        {
            if (string.Equals(program.Name, key, StringComparison.OrdinalIgnoreCase)
                || program.Aliases.Any(alias => string.Equals(alias, key, StringComparison.OrdinalIgnoreCase)))
            {
                descriptor = program;
                return true;
            }
        }

        return false;
    }

    /// <summary>Finds a program by name or alias.</summary>
    /// <param name="name">The name.</param>
    /// <returns>The program.</returns>
    /// <exception cref="ArgumentException">No program has that name (the message lists the names).</exception>
    public static ProgramDescriptor Find(string name) =>
        TryFind(name, out var descriptor)
            ? descriptor
            : throw new ArgumentException($"Unknown program '{name}'. Known: {string.Join(", ", Names)} (aliases: {string.Join(", ", s_programs.SelectMany(p => p.Aliases))}).", nameof(name));

    /// <summary>Creates a program at a preset size.</summary>
    /// <param name="name">The name or alias.</param>
    /// <param name="preset">The size preset.</param>
    /// <param name="seed">The seed of its input.</param>
    /// <returns>A new instance (its input already built).</returns>
    /// <exception cref="ArgumentException">Unknown name.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="preset"/> is not defined.</exception>
    public static BenchmarkProgram Create(string name, SizePreset preset, int seed = DefaultSeed)
    {
        var descriptor = Find(name);
        return descriptor.Factory(descriptor.SizeOf(preset), seed);
    }

    /// <summary>Creates a program at an explicit size.</summary>
    /// <param name="name">The name or alias.</param>
    /// <param name="size">The size (its meaning per program: see <see cref="ProgramDescriptor.SizeMeaning"/>).</param>
    /// <param name="seed">The seed of its input.</param>
    /// <returns>A new instance (its input already built).</returns>
    /// <exception cref="ArgumentException">Unknown name.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="size"/> is not accepted by the program (parameter name <c>size</c>).</exception>
    public static BenchmarkProgram Create(string name, long size, int seed = DefaultSeed) => Find(name).Factory(size, seed);
}
