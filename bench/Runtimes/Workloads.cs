using System.Diagnostics;
using DivCon.Programs;
using DivCon.Schedulers;
using DivCon.Skeletons;

namespace DivCon.Bench.Runtimes;

/// <summary>
/// The three workloads, each one repetition at a time: the skeleton's cost per node (a tree of trivial muscles, every
/// node a task), a raw tree of 2^(depth+1) - 1 scheduler tasks, and a thesis program on one and on several pinned
/// workers. The same shapes as the harness's BenchmarkDotNet suites (SkeletonBenchmarks, SchedulerBenchmarks), so
/// the figures can be set beside those on .NET.
/// </summary>
internal static class Workloads
{
    /// <summary>Elements summed per leaf of the skeleton tree (as SkeletonBenchmarks).</summary>
    public const int LeafSize = 16;

    /// <summary>
    /// A sum over <paramref name="leaves"/> x 16 ints by halving, every node a task: almost all the time is the
    /// skeleton's own machinery. Returns a function that runs the tree <paramref name="launches"/> times and gives
    /// nanoseconds per node.
    /// </summary>
    public static Func<double> SkeletonTree(int leaves, int launches, DivideAndConquerOptions? options)
    {
        var data = new int[leaves * LeafSize];
        for (int i = 0; i < data.Length; i++)
        {
            data[i] = i % 1024;
        }

        long expected = SequentialSum(data, 0, data.Length);
        var program = new RangeSum(data) { Granularity = Granularity.EveryNodeATask };
        long nodes = (2L * leaves) - 1;
        return () =>
        {
            var watch = Stopwatch.StartNew();
            for (int i = 0; i < launches; i++)
            {
                long sum = options is null
                    ? SequentialSum(data, 0, data.Length)
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
    public static Func<double> TaskTree(TaskScheduler scheduler, int depth) => new TaskTreeRunner(scheduler, depth).RunOnce;

    /// <summary>One parallel run of <paramref name="program"/> on <paramref name="scheduler"/>, in seconds.</summary>
    public static double RunProgram(BenchmarkProgram program, TaskScheduler scheduler)
    {
        var watch = Stopwatch.StartNew();
        program.RunParallelAsync(scheduler).GetAwaiter().GetResult();
        return watch.Elapsed.TotalSeconds;
    }

    private static long SumRange(int[] data, int start, int end)
    {
        long sum = 0;
        for (int i = start; i < end; i++)
        {
            sum += data[i];
        }

        return sum;
    }

    private static long SequentialSum(int[] data, int start, int end)
    {
        if (end - start <= LeafSize)
        {
            return SumRange(data, start, end);
        }

        int middle = start + ((end - start) / 2);
        return SequentialSum(data, start, middle) + SequentialSum(data, middle, end);
    }

    /// <summary>The skeleton tree's program: halving down to 16 elements, a plain sum per leaf, an addition per merge.</summary>
    private sealed class RangeSum(int[] data) : DivideAndConquer<IndexRange, long>
    {
        protected override bool ShouldSplit(IndexRange problem, int depth) => problem.Length > LeafSize;

        protected override IReadOnlyList<IndexRange> Split(IndexRange problem, int depth)
        {
            int middle = problem.Start + (problem.Length / 2);
            return [new IndexRange(problem.Start, middle), new IndexRange(middle, problem.End)];
        }

        protected override long Execute(IndexRange problem, int depth) => SumRange(data, problem.Start, problem.End);

        protected override long Merge(IReadOnlyList<long> subresults, int depth) => subresults[0] + subresults[1];
    }

    /// <summary>The raw task tree (delegates and boxed depths cached, so a run allocates only its tasks).</summary>
    private sealed class TaskTreeRunner
    {
        private static readonly TimeSpan s_timeout = TimeSpan.FromMinutes(5);
        private readonly TaskScheduler _scheduler;
        private readonly int _depth;
        private readonly object[] _depths;
        private readonly Action<object?> _node;
        private int _remaining;
        private TaskCompletionSource<bool>? _done;

        public TaskTreeRunner(TaskScheduler scheduler, int depth)
        {
            _scheduler = scheduler;
            _depth = depth;
            _depths = [.. Enumerable.Range(0, depth + 1).Select(d => (object)d)];
            _node = Node;
        }

        public double RunOnce()
        {
            var watch = Stopwatch.StartNew();
            // Written before the root task is queued (queuing publishes them to the workers).
            _remaining = (1 << (_depth + 1)) - 1;
            _done = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
            Task.Factory.StartNew(_node, _depths[0], CancellationToken.None, TaskCreationOptions.None, _scheduler);
            if (!_done.Task.Wait(s_timeout))
            {
                throw new TimeoutException($"A task tree did not finish within {s_timeout}.");
            }

            return watch.Elapsed.TotalMilliseconds;
        }

        private void Node(object? state)
        {
            int depth = (int)state!;
            if (depth < _depth)
            {
                // Children go to the scheduler running this node, as a skeleton's would.
                object childDepth = _depths[depth + 1];
                Task.Factory.StartNew(_node, childDepth, CancellationToken.None, TaskCreationOptions.None, TaskScheduler.Current);
                Task.Factory.StartNew(_node, childDepth, CancellationToken.None, TaskCreationOptions.None, TaskScheduler.Current);
            }

            // Interlocked: every worker counts down; the task that reaches zero completes the tree.
            if (Interlocked.Decrement(ref _remaining) == 0)
            {
                _done!.SetResult(true);
            }
        }
    }
}
