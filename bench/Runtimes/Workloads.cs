using System.Diagnostics;
using DivCon.Harness.Benchmarks;
using DivCon.Programs;
using DivCon.Schedulers;
using DivCon.Skeletons;

namespace DivCon.Bench.Runtimes;

/// <summary>
/// The three workloads, each one repetition at a time: the skeleton's cost per node (a tree of trivial muscles, every
/// node a task), a raw tree of 2^(depth+1) - 1 scheduler tasks, and a thesis program on one and on several pinned
/// workers. The trees are the harness's own (<c>TreeWorkloads.cs</c>, linked into this project), the shapes its
/// BenchmarkDotNet suites time (SkeletonBenchmarks, SchedulerBenchmarks), so the figures can be set beside those on .NET.
/// </summary>
internal static class Workloads
{
    /// <summary>Elements summed per leaf of the skeleton tree (as SkeletonBenchmarks).</summary>
    public const int LeafSize = TreeWorkloads.LeafSize;

    private static readonly TimeSpan s_treeTimeout = TimeSpan.FromMinutes(5);

    /// <summary>
    /// A sum over <paramref name="leaves"/> x 16 ints by halving, every node a task: almost all the time is the
    /// skeleton's own machinery. Returns a function that runs the tree <paramref name="launches"/> times and gives
    /// nanoseconds per node.
    /// </summary>
    public static Func<double> SkeletonTree(int leaves, int launches, DivideAndConquerOptions? options)
    {
        int[] data = TreeWorkloads.Data(leaves * LeafSize);
        long expected = TreeWorkloads.SequentialSum(data, 0, data.Length);
        var program = new TreeWorkloads.RangeSum(data) { Granularity = Granularity.EveryNodeATask };
        long nodes = (2L * leaves) - 1;
        return () =>
        {
            var watch = Stopwatch.StartNew();
            for (int i = 0; i < launches; i++)
            {
                long sum = options is null
                    ? TreeWorkloads.SequentialSum(data, 0, data.Length)
                    : program.RunAsync(new IndexRange(0, data.Length), options).GetAwaiter().GetResult();
                if (sum != expected)
                {
                    throw new InvalidOperationException($"The tree summed to {sum}, expected {expected}.");
                }
            }

            return watch.Elapsed.TotalMilliseconds * 1e6 / (nodes * launches);
        };
    }

    /// <summary>
    /// A raw task tree on <paramref name="scheduler"/>: every node task starts two children until
    /// <paramref name="depth"/>, so 2^(depth+1) - 1 tasks, nearly all queued from workers; an atomic countdown
    /// completes the tree. Returns a function that runs one tree and gives milliseconds.
    /// </summary>
    public static Func<double> TaskTree(TaskScheduler scheduler, int depth)
    {
        var tree = new TreeWorkloads.TaskTree(depth);
        return () =>
        {
            var watch = Stopwatch.StartNew();
            tree.Run(scheduler, s_treeTimeout);
            return watch.Elapsed.TotalMilliseconds;
        };
    }

    /// <summary>One parallel run of <paramref name="program"/> on <paramref name="scheduler"/>, in seconds.</summary>
    public static double RunProgram(BenchmarkProgram program, TaskScheduler scheduler)
    {
        var watch = Stopwatch.StartNew();
        program.RunParallelAsync(scheduler).GetAwaiter().GetResult();
        return watch.Elapsed.TotalSeconds;
    }
}
