using DivCon.Skeletons;

namespace DivCon.Harness.Benchmarks;

/// <summary>
/// The four user functions of the granularity benchmarks, and the plain recursion that calls them; the data and the
/// range sum are <see cref="TreeWorkloads"/>'.
/// </summary>
public static class GranularityWorkloads
{
    /// <summary>Deterministic data: i mod 1024 (<see cref="TreeWorkloads.Data"/>).</summary>
    /// <param name="length">Elements.</param>
    /// <returns>The array.</returns>
    public static int[] Data(int length) => TreeWorkloads.Data(length);

    /// <summary>The sum of <c>data[start..end)</c> (<see cref="TreeWorkloads.SumRange"/>).</summary>
    /// <param name="data">The data.</param>
    /// <param name="start">First index.</param>
    /// <param name="end">One past the last index.</param>
    /// <returns>The sum.</returns>
    public static long SumRange(int[] data, int start, int end) => TreeWorkloads.SumRange(data, start, end);

    /// <summary>
    /// The sum of <c>data[start..end)</c> with SIMD: the ints are added in vector lanes, widened to longs every
    /// block so that no lane can overflow. Only for measuring what the memory system allows; the benchmarks' leaves
    /// use <see cref="SumRange"/>.
    /// </summary>
    /// <param name="data">The data.</param>
    /// <param name="start">First index.</param>
    /// <param name="end">One past the last index.</param>
    /// <returns>The sum.</returns>
    public static long SumRangeVectorised(int[] data, int start, int end)
    {
        var span = data.AsSpan(start, end - start);
        var vectors = System.Runtime.InteropServices.MemoryMarshal.Cast<int, System.Numerics.Vector<int>>(span);
        var total = System.Numerics.Vector<long>.Zero;
        // Blocks of 1024 vectors: each lane then holds at most 1024 ints, far from overflowing whatever their values
        // are bounded by here (the data are below 1024); the block's lanes are widened into longs.
        const int Block = 1024;
        for (int blockStart = 0; blockStart < vectors.Length; blockStart += Block)
        {
            var lanes = System.Numerics.Vector<int>.Zero;
            int blockEnd = Math.Min(blockStart + Block, vectors.Length);
            for (int i = blockStart; i < blockEnd; i++)
            {
                lanes += vectors[i];
            }

            System.Numerics.Vector.Widen(lanes, out var low, out var high);
            total += low + high;
        }

        long sum = System.Numerics.Vector.Sum(total);
        for (int i = vectors.Length * System.Numerics.Vector<int>.Count; i < span.Length; i++)
        {
            sum += span[i];
        }

        return sum;
    }

    /// <summary>The sum's four functions: halve down to <paramref name="leafSize"/> elements.</summary>
    /// <param name="data">The data.</param>
    /// <param name="leafSize">The largest leaf.</param>
    /// <returns>The functions.</returns>
    public static UserFunctions<IndexRange, long> SumFunctions(int[] data, int leafSize) => new(
        (range, depth) => range.Length > leafSize,
        (range, depth) => range.Split(2),
        (range, depth) => SumRange(data, range.Start, range.End),
        (sums, depth) => sums[0] + sums[1]);

    /// <summary>fib's four functions: every call with n &gt; 1 splits into n-1 and n-2.</summary>
    /// <returns>The functions.</returns>
    public static UserFunctions<int, long> FibFunctions() => new(
        (n, depth) => n > 1,
        (n, depth) => [n - 1, n - 2],
        (n, depth) => n,
        (values, depth) => values[0] + values[1]);

    /// <summary>The sum's four functions in binary form: halve down to <paramref name="leafSize"/> elements.</summary>
    /// <param name="data">The data.</param>
    /// <param name="leafSize">The largest leaf.</param>
    /// <returns>The functions.</returns>
    public static BinaryUserFunctions<IndexRange, long> BinarySumFunctions(int[] data, int leafSize) => new(
        (range, depth) => range.Length > leafSize,
        (range, depth) =>
        {
            int middle = range.Start + ((range.Length + 1) / 2);
            return (new IndexRange(range.Start, middle), new IndexRange(middle, range.End));
        },
        (range, depth) => SumRange(data, range.Start, range.End),
        (range, left, right, depth) => left + right);

    /// <summary>fib's four functions in binary form: every call with n &gt; 1 splits into n-1 and n-2.</summary>
    /// <returns>The functions.</returns>
    public static BinaryUserFunctions<int, long> BinaryFibFunctions() => new(
        (n, depth) => n > 1,
        (n, depth) => (n - 1, n - 2),
        (n, depth) => n,
        (n, left, right, depth) => left + right);

    /// <summary>A binary program of four functions (the default granularity).</summary>
    /// <typeparam name="TProblem">The problem type.</typeparam>
    /// <typeparam name="TResult">The result type.</typeparam>
    /// <param name="functions">The functions.</param>
    /// <returns>The program.</returns>
    public static DivideAndConquer<TProblem, TResult> BinaryProgram<TProblem, TResult>(BinaryUserFunctions<TProblem, TResult> functions)
    {
        ArgumentNullException.ThrowIfNull(functions);
        return DivideAndConquer.CreateBinary(functions.ShouldSplit, functions.Split, functions.Execute, functions.Merge);
    }

    /// <summary>The plain depth-first recursion of four binary functions: what the program means, with no tasks and no allocation.</summary>
    /// <typeparam name="TProblem">The problem type.</typeparam>
    /// <typeparam name="TResult">The result type.</typeparam>
    /// <param name="functions">The functions.</param>
    /// <param name="problem">The problem.</param>
    /// <param name="depth">Its depth.</param>
    /// <returns>Its result.</returns>
    public static TResult Recurse<TProblem, TResult>(BinaryUserFunctions<TProblem, TResult> functions, TProblem problem, int depth)
    {
        ArgumentNullException.ThrowIfNull(functions);
        if (!functions.ShouldSplit(problem, depth))
        {
            return functions.Execute(problem, depth);
        }

        var (left, right) = functions.Split(problem, depth);
        return functions.Merge(problem, Recurse(functions, left, depth + 1), Recurse(functions, right, depth + 1), depth);
    }

    /// <summary>The sum as a DivCon program (the default granularity).</summary>
    /// <param name="data">The data.</param>
    /// <param name="leafSize">The largest leaf.</param>
    /// <returns>The program.</returns>
    public static DivideAndConquer<IndexRange, long> SumProgram(int[] data, int leafSize) => Program(SumFunctions(data, leafSize));

    /// <summary>fib as a DivCon program (the default granularity).</summary>
    /// <returns>The program.</returns>
    public static DivideAndConquer<int, long> FibProgram() => Program(FibFunctions());

    /// <summary>The plain depth-first recursion of four functions: what the program means, with no tasks.</summary>
    /// <typeparam name="TProblem">The problem type.</typeparam>
    /// <typeparam name="TResult">The result type.</typeparam>
    /// <param name="functions">The functions.</param>
    /// <param name="problem">The problem.</param>
    /// <param name="depth">Its depth.</param>
    /// <returns>Its result.</returns>
    public static TResult Recurse<TProblem, TResult>(UserFunctions<TProblem, TResult> functions, TProblem problem, int depth)
    {
        ArgumentNullException.ThrowIfNull(functions);
        if (!functions.ShouldSplit(problem, depth))
        {
            return functions.Execute(problem, depth);
        }

        var subproblems = functions.Split(problem, depth);
        var results = new TResult[subproblems.Count];
        for (int i = 0; i < results.Length; i++)
        {
            results[i] = Recurse(functions, subproblems[i], depth + 1);
        }

        return functions.Merge(results, depth);
    }

    private static DivideAndConquer<TProblem, TResult> Program<TProblem, TResult>(UserFunctions<TProblem, TResult> functions) =>
        DivideAndConquer.Create(functions.ShouldSplit, functions.Split, functions.Execute, functions.Merge);
}

/// <summary>Four user functions of a divide-and-conquer program.</summary>
/// <typeparam name="TProblem">The problem type.</typeparam>
/// <typeparam name="TResult">The result type.</typeparam>
/// <param name="ShouldSplit">(problem, depth) =&gt; whether to split.</param>
/// <param name="Split">(problem, depth) =&gt; subproblems.</param>
/// <param name="Execute">(problem, depth) =&gt; result.</param>
/// <param name="Merge">(subresults, depth) =&gt; result.</param>
public sealed record UserFunctions<TProblem, TResult>(
    Func<TProblem, int, bool> ShouldSplit,
    Func<TProblem, int, IReadOnlyList<TProblem>> Split,
    Func<TProblem, int, TResult> Execute,
    Func<IReadOnlyList<TResult>, int, TResult> Merge);

/// <summary>Four user functions of a binary divide-and-conquer program (two subproblems per split, passed as values).</summary>
/// <typeparam name="TProblem">The problem type.</typeparam>
/// <typeparam name="TResult">The result type.</typeparam>
/// <param name="ShouldSplit">(problem, depth) =&gt; whether to split.</param>
/// <param name="Split">(problem, depth) =&gt; the two subproblems.</param>
/// <param name="Execute">(problem, depth) =&gt; result.</param>
/// <param name="Merge">(problem, left result, right result, depth) =&gt; result.</param>
public sealed record BinaryUserFunctions<TProblem, TResult>(
    Func<TProblem, int, bool> ShouldSplit,
    Func<TProblem, int, (TProblem Left, TProblem Right)> Split,
    Func<TProblem, int, TResult> Execute,
    Func<TProblem, TResult, TResult, int, TResult> Merge);
