using DivCon.Skeletons.Tests.Infrastructure;

namespace DivCon.Skeletons.Tests;

/// <summary>
/// Programs whose split or merge is asynchronous get the same granularity as synchronous ones: subtrees predicted
/// cheap run on their node's thread (children and merges called, not queued), and a phase that completes later
/// resumes its node on the run's scheduler.
/// </summary>
public sealed class AsyncGranularityTests
{
    private const int Length = 1 << 12;

    // ---------- A Walsh-Hadamard transform: an FFT-shaped recursion whose merge is a butterfly loop. ----------

    private readonly record struct Segment(int[] Data, int Start, int Length);

    private static int[] Input(int length)
    {
        var random = new Random(length);
        var data = new int[length];
        for (int i = 0; i < data.Length; i++)
        {
            data[i] = random.Next(-1000, 1000);
        }

        return data;
    }

    private static void Butterfly(int[] data, int start, int half, int i)
    {
        int a = data[start + i];
        int b = data[start + half + i];
        data[start + i] = a + b;
        data[start + half + i] = a - b;
    }

    private static void SequentialTransform(int[] data, int start, int length)
    {
        if (length == 1)
        {
            return;
        }

        int half = length / 2;
        SequentialTransform(data, start, half);
        SequentialTransform(data, start + half, half);
        for (int i = 0; i < half; i++)
        {
            Butterfly(data, start, half, i);
        }
    }

    private const int Leaf = 16;

    /// <summary>The synchronous twin: the butterfly loop is a plain loop in the merge.</summary>
    private static DivideAndConquer<Segment, bool> SynchronousTransform(Granularity granularity) =>
        DivideAndConquer.CreateBinary<Segment, bool>(
            shouldSplit: (s, depth) => s.Length > Leaf,
            split: (s, depth) => (s with { Length = s.Length / 2 }, new Segment(s.Data, s.Start + (s.Length / 2), s.Length / 2)),
            execute: (s, depth) =>
            {
                SequentialTransform(s.Data, s.Start, s.Length);
                return true;
            },
            merge: (s, left, right, depth) =>
            {
                int half = s.Length / 2;
                for (int i = 0; i < half; i++)
                {
                    Butterfly(s.Data, s.Start, half, i);
                }

                return true;
            },
            granularity: granularity);

    /// <summary>The nested form: the butterfly loop is a parallel loop awaited by an asynchronous merge.</summary>
    private static DivideAndConquer<Segment, bool> NestedTransform(Granularity granularity, Action? onInnerIndex = null) =>
        DivideAndConquer.CreateBinaryAsync<Segment, bool>(
            shouldSplit: (s, depth) => s.Length > Leaf,
            split: (s, depth) => (s with { Length = s.Length / 2 }, new Segment(s.Data, s.Start + (s.Length / 2), s.Length / 2)),
            execute: (s, depth) =>
            {
                SequentialTransform(s.Data, s.Start, s.Length);
                return true;
            },
            mergeAsync: async (s, left, right, depth, token) =>
            {
                int half = s.Length / 2;
                await DivideAndConquer.ForAsync(0, half, i =>
                {
                    onInnerIndex?.Invoke();
                    Butterfly(s.Data, s.Start, half, i);
                }, cancellationToken: token);
                return true;
            },
            granularity: granularity);

    public static TheoryData<string> Granularities => ["Automatic(30 s)", "Depth(3)", "Sequential", "EveryNodeATask"];

    private static Granularity Choose(string name) => name switch
    {
        "Automatic(30 s)" => Granularity.Automatic(TimeSpan.FromSeconds(30), TimeSpan.FromSeconds(30)),
        "Depth(3)" => Granularity.Depth(3),
        "Sequential" => Granularity.Sequential,
        _ => Granularity.EveryNodeATask,
    };

    [Theory]
    [MemberData(nameof(Granularities))]
    public async Task A_nested_transform_runs_no_more_task_nodes_than_its_synchronous_twin_with_the_same_result(string granularity)
    {
        // One LIFO worker: the run descends depth first as a work-stealing worker does, and the decisions do not
        // depend on timing (the 30 s bounds inline everything once one subtree has been measured).
        using var scheduler = new LifoTaskScheduler();
        var options = DivideAndConquerOptions.Default with { Scheduler = scheduler };
        var synchronousPhases = new PhaseAggregator();
        var nestedPhases = new PhaseAggregator();
        var synchronousData = Input(Length);
        var nestedData = (int[])synchronousData.Clone();
        var expected = (int[])synchronousData.Clone();
        SequentialTransform(expected, 0, expected.Length);

        await SynchronousTransform(Choose(granularity)).RunAsync(new Segment(synchronousData, 0, Length), options with { Observer = synchronousPhases }).Bounded();
        await NestedTransform(Choose(granularity)).RunAsync(new Segment(nestedData, 0, Length), options with { Observer = nestedPhases }).Bounded();

        Assert.Equal(expected, synchronousData);
        Assert.Equal(expected, nestedData);
        long nodes = (2 * (Length / Leaf)) - 1;
        Assert.Equal(nodes, synchronousPhases.TaskNodes + synchronousPhases.InlineNodes);
        Assert.Equal(nodes, nestedPhases.TaskNodes + nestedPhases.InlineNodes);
        Assert.True(nestedPhases.TaskNodes <= synchronousPhases.TaskNodes, $"nested {nestedPhases.TaskNodes} task nodes, synchronous {synchronousPhases.TaskNodes}");
        if (granularity != "EveryNodeATask")
        {
            Assert.True(nestedPhases.InlineNodes > 0, $"nested: {nestedPhases.TaskNodes} task nodes, none inline");
        }
    }

    [Fact]
    public async Task Under_the_default_granularity_most_nodes_of_a_nested_transform_run_inline()
    {
        var phases = new PhaseAggregator();
        var data = Input(1 << 16);
        var expected = (int[])data.Clone();
        SequentialTransform(expected, 0, expected.Length);

        await NestedTransform(Granularity.Automatic()).RunAsync(new Segment(data, 0, data.Length), DivideAndConquerOptions.Default with { Observer = phases }).Bounded();

        Assert.Equal(expected, data);
        Assert.True(phases.InlineNodes > phases.TaskNodes, $"{phases.TaskNodes} task nodes, {phases.InlineNodes} inline");
    }

    [Fact]
    public async Task Every_node_and_every_nested_loop_index_runs_on_the_callers_scheduler()
    {
        using var scheduler = new CountingTaskScheduler(2, allowInlining: false, "nest");
        int offScheduler = 0;
        int indexes = 0;
        void Check()
        {
            Interlocked.Increment(ref indexes);
            if (!scheduler.IsCurrentThreadAWorker || TaskScheduler.Current != scheduler)
            {
                Interlocked.Increment(ref offScheduler);
            }
        }

        var data = Input(1 << 14);
        var expected = (int[])data.Clone();
        SequentialTransform(expected, 0, expected.Length);

        // The run is started from a task of the scheduler with the default options: it, and the loops its merges
        // start (no scheduler named either), inherit the scheduler.
        var outer = Task.Factory.StartNew(
            () => NestedTransform(Granularity.Automatic(), Check).RunAsync(new Segment(data, 0, data.Length)),
            CancellationToken.None,
            TaskCreationOptions.DenyChildAttach,
            scheduler).Unwrap();
        await outer.Bounded();

        Assert.Equal(expected, data);
        Assert.Equal((1 << 14) / 2 * 10, indexes);
        Assert.Equal(0, offScheduler);
    }

    [Fact]
    public async Task A_phase_that_completes_later_inside_an_inline_subtree_resumes_on_the_runs_scheduler()
    {
        using var scheduler = new CountingTaskScheduler(2, allowInlining: false, "resume");
        int phasesOffScheduler = 0;
        void Check()
        {
            if (!scheduler.IsCurrentThreadAWorker)
            {
                Interlocked.Increment(ref phasesOffScheduler);
            }
        }

        var program = DivideAndConquer.CreateAsync<IndexRange, long>(
            shouldSplit: (range, depth) => { Check(); return range.Length > 4; },
            split: (range, depth) => { Check(); return range.Split(2); },
            execute: (range, depth) => { Check(); return Workloads.SequentialSum(range); },
            mergeAsync: async (sums, depth, token) =>
            {
                Check();
                if (depth % 3 == 1)
                {
                    // Completes later, on a pool thread; the await returns to the run's scheduler.
                    await Task.Delay(1, token);
                    Check();
                }

                return sums[0] + sums[1];
            },
            granularity: Granularity.Sequential);
        var phases = new PhaseAggregator();

        long sum = await program.RunAsync(new IndexRange(0, 256), DivideAndConquerOptions.Default with { Scheduler = scheduler, Observer = phases }).Bounded();

        Assert.Equal(Workloads.SequentialSum(new IndexRange(0, 256)), sum);
        Assert.Equal(0, phasesOffScheduler);
        Assert.Equal(1, phases.TaskNodes);
        Assert.Equal(2 * 64 - 2, phases.InlineNodes);
    }

    [Fact]
    public async Task A_synchronous_split_with_an_asynchronous_merge_needs_no_value_task_and_runs_inline()
    {
        var phases = new PhaseAggregator();
        var program = DivideAndConquer.CreateAsync<IndexRange, long>(
            shouldSplit: (range, depth) => range.Length > 4,
            split: (range, depth) => range.Split(2),
            execute: (range, depth) => Workloads.SequentialSum(range),
            mergeAsync: (range, sums, depth, token) => new ValueTask<long>(sums[0] + sums[1]),
            granularity: Granularity.Depth(2));

        long sum = await program.RunAsync(new IndexRange(0, 1024), DivideAndConquerOptions.Default with { Observer = phases }).Bounded();

        Assert.Equal(Workloads.SequentialSum(new IndexRange(0, 1024)), sum);
        Assert.Equal(1 + 2 + 4, phases.TaskNodes);
        Assert.Equal((2 * 256) - 1 - 7, phases.InlineNodes);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task A_binary_program_with_an_asynchronous_split_computes_fib(bool completesLater)
    {
        var fib = DivideAndConquer.CreateBinaryAsync<int, long>(
            shouldSplit: (n, depth) => n > 1,
            splitAsync: async (n, depth, token) =>
            {
                if (completesLater && n % 7 == 0)
                {
                    await Task.Yield();
                }

                return (n - 1, n - 2);
            },
            execute: (n, depth) => n,
            mergeAsync: (n, left, right, depth, token) => new ValueTask<long>(left + right));

        Assert.Equal(6765, await fib.RunAsync(20).Bounded());
    }

    [Fact]
    public async Task A_failure_inside_an_asynchronous_inline_subtree_faults_the_run_with_that_exception()
    {
        var boom = new InvalidOperationException("merge failed");
        var program = DivideAndConquer.CreateAsync<IndexRange, long>(
            shouldSplit: (range, depth) => range.Length > 2,
            split: (range, depth) => range.Split(2),
            execute: (range, depth) => range.Length,
            mergeAsync: (range, sums, depth, token) => range.Start == 8 && range.Length == 8 ? throw boom : new ValueTask<long>(sums[0] + sums[1]),
            granularity: Granularity.Sequential);

        var thrown = await Assert.ThrowsAsync<InvalidOperationException>(() => program.RunAsync(new IndexRange(0, 64)).Bounded());
        Assert.Same(boom, thrown);
    }

    [Fact]
    public async Task Cancellation_stops_an_asynchronous_inline_subtree()
    {
        using var cancellation = new CancellationTokenSource();
        int executes = 0;
        var program = DivideAndConquer.CreateAsync<IndexRange, long>(
            shouldSplit: (range, depth) => range.Length > 1,
            split: (range, depth) => range.Split(2),
            execute: (range, depth) =>
            {
                if (Interlocked.Increment(ref executes) == 10)
                {
                    cancellation.Cancel();
                }

                return 1;
            },
            mergeAsync: (sums, depth, token) => new ValueTask<long>(sums[0] + sums[1]),
            granularity: Granularity.Sequential);

        var run = program.RunAsync(new IndexRange(0, 1024), cancellation.Token);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run.Bounded());
        Assert.True(run.IsCanceled);
        Assert.True(Volatile.Read(ref executes) < 1024, $"{executes} executes after the cancellation at the 10th");
    }

    [Fact]
    public async Task A_deep_asynchronous_inline_recursion_queues_tasks_instead_of_overflowing_the_stack()
    {
        const int Depth = 8_000;
        var program = DivideAndConquer.CreateAsync<int, long>(
            shouldSplit: (n, depth) => n > 0,
            split: (n, depth) => [n - 1],
            execute: (n, depth) => 1,
            mergeAsync: (results, depth, token) => new ValueTask<long>(results[0] + 1),
            granularity: Granularity.Sequential);

        long length = await program.RunAsync(Depth).Bounded();

        Assert.Equal(Depth + 1, length);
    }
}
