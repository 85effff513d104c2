using System.Diagnostics;
using System.Runtime.CompilerServices;
using DivCon.Skeletons.Engines;
using DivCon.Skeletons.Tests.Infrastructure;

namespace DivCon.Skeletons.Tests;

/// <summary>
/// A nested loop that the enclosing program does not need runs sequentially on its caller's thread: when its caller
/// is a node of an inline subtree, and when the enclosing runs already have a task queued or running per worker.
/// Counted with the phase observer: a loop run inline reports no node, a loop run in parallel reports its run's nodes.
/// </summary>
public sealed class NestedLoopParallelismTests
{
    // Each index of the loops below spins this long: four indexes (400 us) are above twice the default minimum task
    // cost (200 us) however the machine is loaded (preemption only makes a measurement longer), so a loop's cost alone
    // never sends it inline.
    private const double IndexMicroseconds = 100;
    private const int LoopLength = 4;

    private static void Spin(double microseconds)
    {
        long end = Stopwatch.GetTimestamp() + (long)(microseconds * Stopwatch.Frequency / 1e6);
        while (Stopwatch.GetTimestamp() < end)
        {
        }
    }

    /// <summary>
    /// A complete binary tree of <paramref name="levels"/> levels below the root whose every split first runs a loop of
    /// <see cref="LoopLength"/> indexes (observed by <paramref name="loops"/>, keyed by <paramref name="costKey"/>), and
    /// records in <paramref name="ranInTheCall"/> whether the loop had completed when it returned.
    /// </summary>
    private static DivideAndConquer<int, int> TreeWithLoopsInSplits(int levels, PhaseAggregator loops, object costKey, int[] hits, List<bool> ranInTheCall, Granularity granularity) =>
        DivideAndConquer.CreateBinaryAsync<int, int>(
            shouldSplit: (node, depth) => depth < levels,
            splitAsync: async (node, depth, token) =>
            {
                // Sequential means every index ran on this thread before the call returned. (Not "complete when the
                // call returned": a parallel loop of 4 short indexes can end while this thread is preempted.)
                int caller = Environment.CurrentManagedThreadId;
                var inCall = new StrongBox<bool>(true);
                int indexesInCall = 0;
                var loop = DivideAndConquer.ForAsync(0, LoopLength, i =>
                {
                    if (Volatile.Read(ref inCall.Value) && Environment.CurrentManagedThreadId == caller)
                    {
                        Interlocked.Increment(ref indexesInCall);
                    }

                    Spin(IndexMicroseconds);
                    Interlocked.Increment(ref hits[i]);
                }, DivideAndConquerOptions.Default with { Observer = loops }, costKey, token);
                Volatile.Write(ref inCall.Value, false);
                lock (ranInTheCall)
                {
                    ranInTheCall.Add(Volatile.Read(ref indexesInCall) == LoopLength);
                }

                await loop;
                return ((2 * node) + 1, (2 * node) + 2);
            },
            execute: (node, depth) => 1,
            mergeAsync: (node, left, right, depth, token) => new ValueTask<int>(left + right),
            granularity: granularity);

    [Fact]
    public async Task Loops_in_the_splits_of_a_run_that_keeps_every_worker_busy_run_sequentially_and_only_the_roots_in_parallel()
    {
        // One thread that reports two workers: the order of the tasks is fixed (first in, first out), so the counts
        // are exact. The root's split has only its own task (1 of 2): its loop is a run. Every later split runs while
        // its sibling, or the next level's nodes, wait in the queue: two tasks for two workers, its loop is sequential.
        using var scheduler = new OneThreadScheduler(reportedWorkers: 2);
        var outer = new PhaseAggregator();
        var loops = new PhaseAggregator();
        var hits = new int[LoopLength];
        var ranInTheCall = new List<bool>();
        const int Levels = 4;
        const int Splits = (1 << Levels) - 1;
        // Every node of the tree a task: no timing decides them.
        var tree = TreeWithLoopsInSplits(Levels, loops, new object(), hits, ranInTheCall, Granularity.EveryNodeATask);

        int leaves = await tree.RunAsync(0, new DivideAndConquerOptions { Scheduler = scheduler, Observer = outer }).WaitAsync(TestTimeouts.Generous);

        Assert.Equal(1 << Levels, leaves);
        Assert.All(hits, h => Assert.Equal(Splits, h));
        Assert.Equal(Splits + (1 << Levels), outer.TaskNodes);
        // The root's loop: a run of at most one task node per index and per internal node. A run per loop (the
        // earlier behaviour) would be at least 15 task nodes.
        Assert.InRange(loops.TaskNodes, 1, (2 * LoopLength) - 1);
        Assert.Equal(Splits, ranInTheCall.Count);
        Assert.False(ranInTheCall[0]);
        Assert.All(ranInTheCall.Skip(1), Assert.True);
    }

    [Fact]
    public async Task On_two_workers_most_loops_of_a_busy_run_run_sequentially()
    {
        // Two real workers: which loops see the other worker's task depends on timing (a worker preempted for the
        // length of a whole subtree would find nothing else counted), so only most of them are checked.
        using var scheduler = new CountingTaskScheduler(2, allowInlining: false, "busy");
        var loops = new PhaseAggregator();
        var hits = new int[LoopLength];
        var ranInTheCall = new List<bool>();
        const int Levels = 4;
        const int Splits = (1 << Levels) - 1;
        var tree = TreeWithLoopsInSplits(Levels, loops, new object(), hits, ranInTheCall, Granularity.EveryNodeATask);

        int leaves = await tree.RunAsync(0, new DivideAndConquerOptions { Scheduler = scheduler }).WaitAsync(TestTimeouts.Generous);

        Assert.Equal(1 << Levels, leaves);
        Assert.All(hits, h => Assert.Equal(Splits, h));
        Assert.False(ranInTheCall[0]);
        int parallel = ranInTheCall.Count(done => !done);
        Assert.True(parallel <= 4, $"{parallel} of {Splits} loops ran in parallel ({loops.TaskNodes} task nodes); a run per loop was the earlier behaviour");
    }

    [Fact]
    public async Task A_loop_started_by_a_node_of_an_asynchronous_inline_subtree_runs_on_its_thread()
    {
        var loops = new PhaseAggregator();
        var hits = new int[LoopLength];
        var ranInTheCall = new List<bool>();
        const int Levels = 3;
        // Granularity.Sequential: the whole tree is one inline subtree; its loops are too expensive to run inline by
        // their cost (see IndexMicroseconds), and would each be a run of their own without the caller's mark.
        var tree = TreeWithLoopsInSplits(Levels, loops, new object(), hits, ranInTheCall, Granularity.Sequential);

        int leaves = await tree.RunAsync(0, DivideAndConquerOptions.Default).WaitAsync(TestTimeouts.Generous);

        Assert.Equal(1 << Levels, leaves);
        Assert.All(hits, h => Assert.Equal((1 << Levels) - 1, h));
        Assert.Equal((1 << Levels) - 1, ranInTheCall.Count);
        Assert.All(ranInTheCall, Assert.True);
        Assert.Equal(0, loops.TaskNodes);
    }

    [Fact]
    public async Task A_loop_started_by_a_node_of_a_synchronous_inline_subtree_runs_on_its_thread()
    {
        var loops = new PhaseAggregator();
        var key = new object();
        int indexes = 0;
        var ranInTheCall = new List<bool>();
        var tree = DivideAndConquer.Create<int, int>(
            shouldSplit: (node, depth) => depth < 3,
            split: (node, depth) =>
            {
                var loop = DivideAndConquer.ForAsync(0, LoopLength, i =>
                {
                    Spin(IndexMicroseconds);
                    Interlocked.Increment(ref indexes);
                }, DivideAndConquerOptions.Default with { Observer = loops }, key);
                lock (ranInTheCall)
                {
                    ranInTheCall.Add(loop.IsCompleted);
                }

                // A synchronous split has to wait for a loop that did not complete (the earlier behaviour).
                loop.AsTask().Wait(TestTimeouts.Generous);
                return [(2 * node) + 1, (2 * node) + 2];
            },
            execute: (node, depth) => 1,
            merge: (results, depth) => results[0] + results[1],
            granularity: Granularity.Sequential);

        int leaves = await tree.RunAsync(0).WaitAsync(TestTimeouts.Generous);

        Assert.Equal(8, leaves);
        Assert.Equal(7 * LoopLength, indexes);
        Assert.Equal(7, ranInTheCall.Count);
        Assert.All(ranInTheCall, Assert.True);
        Assert.Equal(0, loops.TaskNodes);
    }

    [Fact]
    public async Task A_loop_outside_any_run_is_decided_by_its_cost_alone()
    {
        var loops = new PhaseAggregator();
        int indexes = 0;

        // Nothing measured for this key: not predicted cheap, and no enclosing run: a run of its own.
        var loop = DivideAndConquer.ForAsync(0, LoopLength, i =>
        {
            Spin(IndexMicroseconds);
            Interlocked.Increment(ref indexes);
        }, DivideAndConquerOptions.Default with { Observer = loops }, new object());
        await loop.AsTask().WaitAsync(TestTimeouts.Generous);

        Assert.Equal(LoopLength, indexes);
        Assert.True(loops.TaskNodes >= 1, $"{loops.TaskNodes} task nodes");
    }

    [Fact]
    public async Task A_run_started_inside_a_node_joins_its_family_and_a_run_outside_starts_its_own()
    {
        RunFamily? outside = null;
        RunFamily? inside = null;
        RunFamily? nested = null;
        var probe = DivideAndConquer.Create<int, int>(
            shouldSplit: (n, depth) => false,
            split: (n, depth) => [n],
            execute: (n, depth) =>
            {
                nested = RunFamily.Current;
                return n;
            },
            merge: (results, depth) => results[0]);
        var outer = DivideAndConquer.CreateAsync<int, int>(
            shouldSplit: (n, depth) => depth < 1,
            split: (n, depth) =>
            {
                inside = RunFamily.Current;
                // Started from the node's task: the nested run's tasks count in the same family.
                probe.RunAsync(0).Wait(TestTimeouts.Generous);
                return [1, 2];
            },
            execute: (n, depth) => n,
            mergeAsync: (n, results, depth, token) => new ValueTask<int>(results[0] + results[1]),
            granularity: Granularity.EveryNodeATask);

        outside = RunFamily.Current;
        int sum = await outer.RunAsync(0).WaitAsync(TestTimeouts.Generous);

        Assert.Equal(3, sum);
        Assert.Null(outside);
        Assert.NotNull(inside);
        Assert.Same(inside, nested);
        // Every task of the family ended: nothing is left counted.
        Assert.True(TestTimeouts.SpinUntil(() => inside!.ActiveTasks == 0), $"{inside!.ActiveTasks} tasks still counted");
    }

    [Fact]
    public async Task A_synchronous_run_outside_any_family_counts_nothing()
    {
        // A synchronous program's splits and merges cannot await a loop: its run starts no family, so its tasks pay
        // for no count (every node a task here, so each node runs on a task of its own).
        var seen = new System.Collections.Concurrent.ConcurrentBag<RunFamily?>();
        var program = DivideAndConquer.Create<int, int>(
            shouldSplit: (n, depth) => depth < 3,
            split: (n, depth) =>
            {
                seen.Add(RunFamily.Current);
                return [n, n];
            },
            execute: (n, depth) =>
            {
                seen.Add(RunFamily.Current);
                return n;
            },
            merge: (results, depth) => results[0] + results[1],
            granularity: Granularity.EveryNodeATask);

        int sum = await program.RunAsync(1).WaitAsync(TestTimeouts.Generous);

        Assert.Equal(8, sum);
        Assert.Equal(15, seen.Count);
        Assert.All(seen, Assert.Null);
    }

    [Fact]
    public void The_count_is_the_sum_over_its_stripes_whatever_threads_count_up_and_down()
    {
        // Counted up on the threads that queue and down on those that run: a stripe alone may go negative, the sum
        // is exact once the adds have happened.
        var family = new RunFamily();
        const int Threads = 8;
        const int PerThread = 20_000;
        var options = new ParallelOptions { MaxDegreeOfParallelism = Threads };
        Parallel.For(0, Threads, options, _ =>
        {
            for (int i = 0; i < PerThread; i++)
            {
                family.TaskQueued();
            }
        });
        Assert.Equal(Threads * PerThread, family.ActiveTasks);

        // Down on other threads, in a different split of the work, with some up-and-down pairs among them.
        Parallel.For(0, Threads * 2, options, _ =>
        {
            for (int i = 0; i < PerThread / 2; i++)
            {
                family.TaskEnded();
                family.TaskQueued();
                family.TaskEnded();
            }
        });
        Assert.Equal(0, family.ActiveTasks);
    }

    [Theory]
    // caller inline, active tasks, workers, cost per unit, size, minimum ticks -> sequential
    [InlineData(true, 0, 2, double.PositiveInfinity, 1_000_000, 100, true)]
    [InlineData(false, 2, 2, double.PositiveInfinity, 1_000_000, 100, true)]
    [InlineData(false, 5, 2, 1000.0, 1_000_000, 100, true)]
    [InlineData(false, 1, 2, double.PositiveInfinity, 1_000_000, 100, false)]
    [InlineData(false, 0, 1, double.PositiveInfinity, 1_000_000, 100, false)]
    [InlineData(false, 1, 1, 1000.0, 1_000_000, 100, true)]
    [InlineData(false, 1, 2, 1.0, 199, 100, true)]
    [InlineData(false, 1, 2, 1.0, 200, 100, false)]
    [InlineData(false, 0, 64, 0.5, 1000, 100, false)]
    public void The_sequential_rule_on_plain_data(bool callerInline, int activeTasks, int workers, double costPerUnit, long size, long minimumTicks, bool sequential) =>
        Assert.Equal(sequential, NestedLoop.RunsSequentially(callerInline, activeTasks, workers, costPerUnit, size, minimumTicks));

    /// <summary>Runs every task on one dedicated thread, first in first out, and reports <c>reportedWorkers</c> as its concurrency.</summary>
    private sealed class OneThreadScheduler : TaskScheduler, IDisposable
    {
        private readonly System.Collections.Concurrent.BlockingCollection<Task> _queue = [];
        private readonly Thread _thread;
        private readonly int _reportedWorkers;

        public OneThreadScheduler(int reportedWorkers)
        {
            _reportedWorkers = reportedWorkers;
            _thread = new Thread(() =>
            {
                foreach (var task in _queue.GetConsumingEnumerable())
                {
                    TryExecuteTask(task);
                }
            })
            {
                IsBackground = true,
                Name = "one-thread",
            };
            _thread.Start();
        }

        public override int MaximumConcurrencyLevel => _reportedWorkers;

        public void Dispose()
        {
            _queue.CompleteAdding();
            _thread.Join(TestTimeouts.Generous);
            _queue.Dispose();
        }

        protected override void QueueTask(Task task) => _queue.Add(task);

        protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued) => false;

        protected override IEnumerable<Task> GetScheduledTasks() => _queue.ToArray();
    }
}
