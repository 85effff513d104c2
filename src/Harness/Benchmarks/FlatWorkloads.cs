using System.Collections.Concurrent;
using System.Globalization;
using DivCon.Schedulers;
using DivCon.Skeletons;

namespace DivCon.Harness.Benchmarks;

/// <summary>One case of <see cref="FlatWorkloads"/>.</summary>
/// <param name="Name">The case's name (<c>group.variant</c>, no spaces).</param>
/// <param name="Baseline">The case of the same group its time is divided by within one process (itself for the baseline).</param>
/// <param name="Description">What it runs.</param>
internal sealed record FlatCase(string Name, string Baseline, string Description);

/// <summary>
/// The flat cases of the paired comparison of two builds (<c>bench-pairs</c>): the fine-grain sum of
/// <see cref="GranularityBenchmarks"/> (2^24 ints, 256-element leaves at the natural grain) in every idiom it
/// compares, the every-node-a-task tree of <see cref="SkeletonBenchmarks"/> (2^16 leaves of 16 ints), and fib(32) at
/// one node per call as <see cref="FineGranularityBenchmarks"/> (binary form). The TPL recursions here are the ones
/// those BenchmarkDotNet suites call. A child process of <c>bench/Runtimes</c> (which compiles this file, linked in
/// its project, against the libraries of the build it measures) times every case with <see cref="BatchTiming"/> and
/// writes one <c>case</c> line each (<see cref="FormatLine"/>).
/// </summary>
/// <remarks>
/// Only public API of the skeleton and the schedulers that has not changed for many commits, so that this very file
/// compiles against older builds too. Every case checks its result once before it is timed.
/// </remarks>
internal static class FlatWorkloads
{
    /// <summary>Elements of the flat sum.</summary>
    public const int SumLength = 1 << 24;

    /// <summary>Elements per leaf of the flat sum.</summary>
    public const int SumLeafSize = 256;

    /// <summary>Leaves of the every-node-a-task tree (each of <see cref="TreeWorkloads.LeafSize"/> ints).</summary>
    public const int TreeLeaves = 1 << 16;

    /// <summary>fib's argument.</summary>
    public const int FibN = 32;

    /// <summary>The prefix of a result line.</summary>
    public const string LinePrefix = "case";

    private const string SumBaseline = "sum.plain-recursion";
    private const string TreeBaseline = "tree.task-run";
    private const string FibBaseline = "fib.plain-recursion";

    /// <summary>Every case, in the order a child runs them.</summary>
    public static readonly IReadOnlyList<FlatCase> Cases =
    [
        new("sum.sequential-loop", SumBaseline, "sum of 2^24 ints: one loop over all of them"),
        new(SumBaseline, SumBaseline, "the same by halving to 256-element leaves: the four lambdas called by a plain recursion, no tasks"),
        new("sum.parallel-foreach", SumBaseline, "Parallel.ForEach over TPL's range partitioner, per-thread sums"),
        new("sum.parallel-invoke", SumBaseline, "Parallel.Invoke on the two halves at every node, 256-element leaves"),
        new("sum.task-run", SumBaseline, "Task.Run for one half, recursion for the other, await both, 256-element leaves"),
        new("sum.divcon-workstealing", SumBaseline, "DivCon (four lambdas, default granularity) on WorkStealingTaskScheduler"),
        new("sum.divcon-affinity", SumBaseline, "DivCon on AffinityTaskScheduler (pinned workers)"),
        new("sum.divcon-pool", SumBaseline, "DivCon on the .NET thread pool"),
        new(TreeBaseline, TreeBaseline, "every node a task, 2^16 leaves of 16 ints: Task.Run + await recursion from a Task.Run root"),
        new("tree.parallel-invoke", TreeBaseline, "the same tree with Parallel.Invoke at every node"),
        new("tree.divcon-workstealing", TreeBaseline, "DivCon's RangeSum, Granularity.EveryNodeATask, on WorkStealingTaskScheduler"),
        new("tree.divcon-affinity", TreeBaseline, "the same on AffinityTaskScheduler (pinned workers)"),
        new("tree.divcon-pool", TreeBaseline, "the same on the .NET thread pool"),
        new(FibBaseline, FibBaseline, "fib(32), every call with n > 1 a node: the four binary lambdas called by a plain recursion"),
        new("fib.divcon-workstealing", FibBaseline, "DivCon (binary form, default granularity) on WorkStealingTaskScheduler"),
        new("fib.divcon-affinity", FibBaseline, "the same on AffinityTaskScheduler (pinned workers)"),
        new("fib.divcon-pool", FibBaseline, "the same on the .NET thread pool"),
    ];

    /// <summary>The line of one timed case: <c>case NAME NANOSECONDS_PER_CALL BATCHES</c>.</summary>
    /// <param name="name">The case.</param>
    /// <param name="nanoseconds">The median time per call.</param>
    /// <param name="batches">Batches timed.</param>
    /// <returns>The line.</returns>
    public static string FormatLine(string name, double nanoseconds, int batches) =>
        string.Create(CultureInfo.InvariantCulture, $"{LinePrefix} {name} {nanoseconds:F1} {batches}");

    /// <summary>Reads a line of a child: a <c>case</c> line gives its result, any other line none.</summary>
    /// <param name="line">The line.</param>
    /// <returns>The case, its nanoseconds per call and batches; null for a line that is not a <c>case</c> line.</returns>
    /// <exception cref="FormatException">A <c>case</c> line that is malformed (fields, a time not positive and finite, batches below 1).</exception>
    public static (string Name, double Nanoseconds, int Batches)? ParseLine(string line)
    {
        ArgumentNullException.ThrowIfNull(line);
        string[] fields = line.Trim().Split(' ', StringSplitOptions.RemoveEmptyEntries);
        if (fields.Length == 0 || fields[0] != LinePrefix)
        {
            return null;
        }

        if (fields.Length != 4
            || !double.TryParse(fields[2], NumberStyles.Float, CultureInfo.InvariantCulture, out double nanoseconds)
            || !double.IsFinite(nanoseconds) || nanoseconds <= 0
            || !int.TryParse(fields[3], NumberStyles.None, CultureInfo.InvariantCulture, out int batches) || batches < 1)
        {
            throw new FormatException($"A malformed result line: '{line}' (expected '{LinePrefix} NAME NANOSECONDS BATCHES', a positive time, at least 1 batch).");
        }

        return (fields[1], nanoseconds, batches);
    }

    /// <summary>Times every selected case in the order of <see cref="Cases"/> and writes one line each.</summary>
    /// <param name="output">Where the lines go.</param>
    /// <param name="warmupSeconds">Unrecorded seconds per case first.</param>
    /// <param name="seconds">Timed seconds per case.</param>
    /// <param name="workers">Workers of DivCon's two schedulers.</param>
    /// <param name="only">The cases to run (null: all).</param>
    /// <exception cref="InvalidOperationException">A case computed a wrong result.</exception>
    public static void Run(TextWriter output, double warmupSeconds, double seconds, int workers, IReadOnlyCollection<string>? only)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentOutOfRangeException.ThrowIfLessThan(workers, 1);
        bool Wanted(string name) => only is null || only.Contains(name);
        using var workStealing = new WorkStealingTaskScheduler(workers);
        using var affinity = new AffinityTaskScheduler(workers);
        var onWorkStealing = DivideAndConquerOptions.Default with { Scheduler = workStealing };
        var onAffinity = DivideAndConquerOptions.Default with { Scheduler = affinity };
        var onPool = DivideAndConquerOptions.Default;

        if (Cases.Any(c => c.Name.StartsWith("sum.", StringComparison.Ordinal) && Wanted(c.Name)))
        {
            int[] data = GranularityWorkloads.Data(SumLength);
            var root = new IndexRange(0, data.Length);
            var functions = GranularityWorkloads.SumFunctions(data, SumLeafSize);
            var program = GranularityWorkloads.SumProgram(data, SumLeafSize);
            long expected = GranularityWorkloads.SumRange(data, 0, data.Length);
            Time("sum.sequential-loop", () => GranularityWorkloads.SumRange(data, 0, data.Length));
            Time(SumBaseline, () => GranularityWorkloads.Recurse(functions, root, 0));
            Time("sum.parallel-foreach", () => ParallelForEachSum(data));
            Time("sum.parallel-invoke", () => ParallelInvokeSum(data, 0, data.Length, SumLeafSize));
            Time("sum.task-run", () => TaskRunSumAsync(data, 0, data.Length, SumLeafSize).GetAwaiter().GetResult());
            Time("sum.divcon-workstealing", () => program.RunAsync(root, onWorkStealing).GetAwaiter().GetResult());
            Time("sum.divcon-affinity", () => program.RunAsync(root, onAffinity).GetAwaiter().GetResult());
            Time("sum.divcon-pool", () => program.RunAsync(root, onPool).GetAwaiter().GetResult());

            void Time(string name, Func<long> run) => TimeCase(name, run, expected);
        }

        if (Cases.Any(c => c.Name.StartsWith("tree.", StringComparison.Ordinal) && Wanted(c.Name)))
        {
            int[] data = TreeWorkloads.Data(TreeLeaves * TreeWorkloads.LeafSize);
            var root = new IndexRange(0, data.Length);
            var program = new TreeWorkloads.RangeSum(data) { Granularity = Granularity.EveryNodeATask };
            long expected = TreeWorkloads.SequentialSum(data, 0, data.Length);
            Time(TreeBaseline, () => Task.Run(() => TaskRunSumAsync(data, 0, data.Length, TreeWorkloads.LeafSize)).GetAwaiter().GetResult());
            Time("tree.parallel-invoke", () => ParallelInvokeSum(data, 0, data.Length, TreeWorkloads.LeafSize));
            Time("tree.divcon-workstealing", () => program.RunAsync(root, onWorkStealing).GetAwaiter().GetResult());
            Time("tree.divcon-affinity", () => program.RunAsync(root, onAffinity).GetAwaiter().GetResult());
            Time("tree.divcon-pool", () => program.RunAsync(root, onPool).GetAwaiter().GetResult());

            void Time(string name, Func<long> run) => TimeCase(name, run, expected);
        }

        if (Cases.Any(c => c.Name.StartsWith("fib.", StringComparison.Ordinal) && Wanted(c.Name)))
        {
            var functions = GranularityWorkloads.BinaryFibFunctions();
            var program = GranularityWorkloads.BinaryProgram(functions);
            long expected = GranularityWorkloads.Recurse(functions, FibN, 0);
            Time(FibBaseline, () => GranularityWorkloads.Recurse(functions, FibN, 0));
            Time("fib.divcon-workstealing", () => program.RunAsync(FibN, onWorkStealing).GetAwaiter().GetResult());
            Time("fib.divcon-affinity", () => program.RunAsync(FibN, onAffinity).GetAwaiter().GetResult());
            Time("fib.divcon-pool", () => program.RunAsync(FibN, onPool).GetAwaiter().GetResult());

            void Time(string name, Func<long> run) => TimeCase(name, run, expected);
        }

        void TimeCase(string name, Func<long> run, long expected)
        {
            if (!Wanted(name))
            {
                return;
            }

            long result = run();
            if (result != expected)
            {
                throw new InvalidOperationException($"{name} computed {result}, expected {expected}.");
            }

            double[] perBatch = BatchTiming.Time(() => run(), warmupSeconds, seconds);
            output.WriteLine(FormatLine(name, BatchTiming.Median(perBatch) * 1e9, perBatch.Length));
            output.Flush();
        }
    }

    /// <summary>Halving recursion with <see cref="Parallel.Invoke(Action[])"/> at every node: the synchronous idiom.</summary>
    /// <param name="data">The data.</param>
    /// <param name="start">First index.</param>
    /// <param name="end">One past the last index.</param>
    /// <param name="leafSize">The largest leaf.</param>
    /// <returns>The sum.</returns>
    public static long ParallelInvokeSum(int[] data, int start, int end, int leafSize)
    {
        if (end - start <= leafSize)
        {
            return TreeWorkloads.SumRange(data, start, end);
        }

        int middle = start + ((end - start) / 2);
        long left = 0;
        long right = 0;
        Parallel.Invoke(() => left = ParallelInvokeSum(data, start, middle, leafSize), () => right = ParallelInvokeSum(data, middle, end, leafSize));
        return left + right;
    }

    /// <summary>Halving recursion with <see cref="Task.Run(Func{Task})"/> for one half and <c>await</c> for both: the asynchronous idiom.</summary>
    /// <param name="data">The data.</param>
    /// <param name="start">First index.</param>
    /// <param name="end">One past the last index.</param>
    /// <param name="leafSize">The largest leaf.</param>
    /// <returns>The sum.</returns>
    public static async Task<long> TaskRunSumAsync(int[] data, int start, int end, int leafSize)
    {
        if (end - start <= leafSize)
        {
            return TreeWorkloads.SumRange(data, start, end);
        }

        int middle = start + ((end - start) / 2);
        Task<long> left = Task.Run(() => TaskRunSumAsync(data, start, middle, leafSize));
        long right = await TaskRunSumAsync(data, middle, end, leafSize).ConfigureAwait(false);
        return await left.ConfigureAwait(false) + right;
    }

    /// <summary><see cref="Parallel.ForEach{TSource}(Partitioner{TSource}, Action{TSource})"/> over TPL's default range partitioner, with per-thread sums.</summary>
    /// <param name="data">The data.</param>
    /// <returns>The sum.</returns>
    public static long ParallelForEachSum(int[] data)
    {
        ArgumentNullException.ThrowIfNull(data);
        long total = 0;
        Parallel.ForEach(
            Partitioner.Create(0, data.Length),
            () => 0L,
            (range, _, local) => local + TreeWorkloads.SumRange(data, range.Item1, range.Item2),
            local => Interlocked.Add(ref total, local));
        return total;
    }
}
