using DivCon.Skeletons;

namespace DivCon.Harness.Benchmarks;

/// <summary>
/// The two fine-grained trees timed by the harness's suites (<see cref="SkeletonBenchmarks"/>,
/// <see cref="SchedulerBenchmarks"/>) and by the runtime comparison in <c>bench/Runtimes</c>, which compiles this
/// very file (linked in its project) so that its .NET 8 and Mono figures are of the same shapes: the skeleton's range
/// sum by halving, and a raw tree of scheduler tasks.
/// </summary>
/// <remarks>Also built for .NET Framework 4.8 there: nothing newer than what the repository's polyfills cover.</remarks>
internal static class TreeWorkloads
{
    /// <summary>Elements summed per leaf of the skeleton tree.</summary>
    public const int LeafSize = 16;

    /// <summary>Deterministic data: i mod 1024.</summary>
    /// <param name="length">Elements.</param>
    /// <returns>The array.</returns>
    public static int[] Data(int length)
    {
        var data = new int[length];
        for (int i = 0; i < data.Length; i++)
        {
            data[i] = i % 1024;
        }

        return data;
    }

    /// <summary>The sum of <c>data[start..end)</c>: the leaf of every range-sum variant.</summary>
    /// <param name="data">The data.</param>
    /// <param name="start">First index.</param>
    /// <param name="end">One past the last index.</param>
    /// <returns>The sum.</returns>
    public static long SumRange(int[] data, int start, int end)
    {
        long sum = 0;
        for (int i = start; i < end; i++)
        {
            sum += data[i];
        }

        return sum;
    }

    /// <summary>The range sum by halving down to <see cref="LeafSize"/> elements, with no tasks (the work alone).</summary>
    /// <param name="data">The data.</param>
    /// <param name="start">First index.</param>
    /// <param name="end">One past the last index.</param>
    /// <returns>The sum.</returns>
    public static long SequentialSum(int[] data, int start, int end)
    {
        if (end - start <= LeafSize)
        {
            return SumRange(data, start, end);
        }

        int middle = start + ((end - start) / 2);
        return SequentialSum(data, start, middle) + SequentialSum(data, middle, end);
    }

    /// <summary>The range sum in the subclass model: halving down to 16 elements, a plain sum per leaf, an addition per merge.</summary>
    /// <param name="data">The data.</param>
    public sealed class RangeSum(int[] data) : DivideAndConquer<IndexRange, long>
    {
        /// <inheritdoc />
        protected override bool ShouldSplit(IndexRange problem, int depth) => problem.Length > LeafSize;

        /// <inheritdoc />
        protected override IReadOnlyList<IndexRange> Split(IndexRange problem, int depth)
        {
            int middle = problem.Start + (problem.Length / 2);
            return [new IndexRange(problem.Start, middle), new IndexRange(middle, problem.End)];
        }

        /// <inheritdoc />
        protected override long Execute(IndexRange problem, int depth) => SumRange(data, problem.Start, problem.End);

        /// <inheritdoc />
        protected override long Merge(IReadOnlyList<long> subresults, int depth) => subresults[0] + subresults[1];
    }

    /// <summary>
    /// A raw task tree: every node task starts two children on the scheduler running it (as a skeleton's would) until
    /// the depth, so 2^(depth+1) - 1 tasks, nearly all queued from workers; an atomic countdown completes the tree. No
    /// task ever blocks. Delegates and boxed depths are cached, so a run allocates only its tasks. One run at a time.
    /// </summary>
    public sealed class TaskTree
    {
        private readonly int _depth;
        private readonly object[] _depths;
        private readonly Action<object?> _node;
        private int _remaining;
        private TaskCompletionSource<bool>? _done;

        /// <summary>Creates the tree.</summary>
        /// <param name="depth">Depth of the leaves (the root is depth 0).</param>
        public TaskTree(int depth)
        {
            _depth = depth;
            _depths = [.. Enumerable.Range(0, depth + 1).Select(d => (object)d)];
            _node = Node;
        }

        /// <summary>Tasks in one tree: 2^(depth+1) - 1.</summary>
        public int Tasks => (1 << (_depth + 1)) - 1;

        /// <summary>Runs one tree on <paramref name="scheduler"/> and waits for its last task.</summary>
        /// <param name="scheduler">Where the root goes (the children follow it).</param>
        /// <param name="timeout">The longest wait.</param>
        /// <exception cref="TimeoutException">The tree did not finish within <paramref name="timeout"/>.</exception>
        public void Run(TaskScheduler scheduler, TimeSpan timeout)
        {
            // Written before the root task is queued (queuing publishes them to the workers).
            _remaining = Tasks;
            _done = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
            Task.Factory.StartNew(_node, _depths[0], CancellationToken.None, TaskCreationOptions.None, scheduler);
            if (!_done.Task.Wait(timeout))
            {
                throw new TimeoutException($"A task tree did not finish within {timeout}.");
            }
        }

        private void Node(object? state)
        {
            int depth = (int)state!;
            if (depth < _depth)
            {
                TaskScheduler current = TaskScheduler.Current;
                object childDepth = _depths[depth + 1];
                Task.Factory.StartNew(_node, childDepth, CancellationToken.None, TaskCreationOptions.None, current);
                Task.Factory.StartNew(_node, childDepth, CancellationToken.None, TaskCreationOptions.None, current);
            }

            // Interlocked: every worker counts down; the task that reaches zero completes the tree.
            if (Interlocked.Decrement(ref _remaining) == 0)
            {
                _done!.SetResult(true);
            }
        }
    }
}
