using DivCon.Skeletons.Tests.Infrastructure;
using static DivCon.Skeletons.Tests.CorrectnessTests;
using static DivCon.Skeletons.Tests.TimeGranularityTests;

namespace DivCon.Skeletons.Tests;

/// <summary>
/// Binary programs (<see cref="DivideAndConquer.CreateBinary{TProblem, TResult}"/>): the same results as list-shaped
/// programs on every engine, scheduler and granularity, and inline subtrees that allocate nothing per node. Failures,
/// cancellation and the recursion limit are tested for both forms in <see cref="TimeGranularityTests"/>.
/// </summary>
public sealed class BinaryProgramTests
{
    public static TheoryData<ExecutionEngine, SchedulerKind, GranularityChoice> EnginesSchedulersGranularities()
    {
        var data = new TheoryData<ExecutionEngine, SchedulerKind, GranularityChoice>();
        foreach (var engine in Enum.GetValues<ExecutionEngine>())
        {
            foreach (var scheduler in Enum.GetValues<SchedulerKind>())
            {
                foreach (var granularity in Enum.GetValues<GranularityChoice>())
                {
                    data.Add(engine, scheduler, granularity);
                }
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(EnginesSchedulersGranularities))]
    public async Task Binary_sum_equals_the_sequential_sum(ExecutionEngine engine, SchedulerKind kind, GranularityChoice granularity)
    {
        using var lease = new SchedulerLease(kind);
        var program = BinarySum(leafSize: 7, Choose(granularity));
        var range = new IndexRange(3, 10_007);

        long sum = await program.RunAsync(range, DivideAndConquerOptions.Default with { Engine = engine, Scheduler = lease.Scheduler }).Bounded();

        Assert.Equal(Workloads.SequentialSum(range), sum);
    }

    [Theory]
    [MemberData(nameof(EnginesAndGranularities), MemberType = typeof(TimeGranularityTests))]
    public async Task Merge_receives_its_problem_and_the_left_and_right_results_in_order(ExecutionEngine engine, GranularityChoice granularity)
    {
        // Each leaf names its range and each merge wraps its two results with its own range: any swap, lost or
        // repeated result, or a merge given another node's problem changes the string.
        var program = DivideAndConquer.CreateBinary<IndexRange, string>(
            shouldSplit: (range, depth) => range.Length > 2,
            split: (range, depth) => (new IndexRange(range.Start, range.Start + (range.Length / 2)), new IndexRange(range.Start + (range.Length / 2), range.End)),
            execute: (range, depth) => $"{range.Start}-{range.End}",
            merge: (range, left, right, depth) => $"[{range.Start}:{left}|{right}:{range.End}]",
            granularity: Choose(granularity));
        var root = new IndexRange(0, 77);

        string result = await program.RunAsync(root, DivideAndConquerOptions.Default with { Engine = engine }).Bounded();

        Assert.Equal(Expected(root), result);

        static string Expected(IndexRange range)
        {
            if (range.Length <= 2)
            {
                return $"{range.Start}-{range.End}";
            }

            int middle = range.Start + (range.Length / 2);
            return $"[{range.Start}:{Expected(new IndexRange(range.Start, middle))}|{Expected(new IndexRange(middle, range.End))}:{range.End}]";
        }
    }

    [Theory]
    [MemberData(nameof(EnginesAndGranularities), MemberType = typeof(TimeGranularityTests))]
    public async Task Observed_binary_runs_count_every_node_once(ExecutionEngine engine, GranularityChoice choice)
    {
        var phases = new PhaseAggregator();
        var program = BinarySum(leafSize: 4, Choose(choice));
        var range = new IndexRange(0, 4096);

        long sum = await program.RunAsync(range, DivideAndConquerOptions.Default with { Engine = engine, Observer = phases }).Bounded();

        Assert.Equal(Workloads.SequentialSum(range), sum);
        long nodes = phases.TotalCount(DivideAndConquerPhase.Split) + phases.TotalCount(DivideAndConquerPhase.Execute);
        Assert.Equal((2 * (4096 / 4)) - 1, nodes);
        Assert.Equal(nodes, phases.TaskNodes + phases.InlineNodes);
    }

    [Fact]
    public void CreateBinary_names_a_missing_function()
    {
        Func<int, int, bool> shouldSplit = (n, depth) => n > 1;
        Func<int, int, (int, int)> split = (n, depth) => (n - 1, n - 2);
        Func<int, int, long> execute = (n, depth) => n;
        Func<int, long, long, int, long> merge = (n, left, right, depth) => left + right;

        Assert.Equal("shouldSplit", Assert.Throws<ArgumentNullException>(() => DivideAndConquer.CreateBinary(null!, split, execute, merge)).ParamName);
        Assert.Equal("split", Assert.Throws<ArgumentNullException>(() => DivideAndConquer.CreateBinary(shouldSplit, null!, execute, merge)).ParamName);
        Assert.Equal("execute", Assert.Throws<ArgumentNullException>(() => DivideAndConquer.CreateBinary(shouldSplit, split, null!, merge)).ParamName);
        Assert.Equal("merge", Assert.Throws<ArgumentNullException>(() => DivideAndConquer.CreateBinary<int, long>(shouldSplit, split, execute, null!)).ParamName);
    }

#if NET
    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task An_inline_binary_subtree_allocates_nothing_per_node(ExecutionEngine engine)
    {
        // The whole tree runs inline in the root's task, so each depth-1 subtree (fib(19), 13,529 nodes) runs
        // synchronously on one thread between its split and its merge: the thread's allocation counter read there
        // measures the subtree's own allocations. The list-shaped program of the same functions is measured the same
        // way and must allocate per node (a split list and a result array each), which shows the measurement sees
        // allocations at all.
        var binary = new AllocationProbe();
        var fib = DivideAndConquer.CreateBinary<int, long>(
            shouldSplit: (n, depth) => n > 1,
            split: (n, depth) =>
            {
                binary.AtSplit(depth);
                return (n - 1, n - 2);
            },
            execute: (n, depth) => n,
            merge: (n, left, right, depth) =>
            {
                binary.AtMerge(depth);
                return left + right;
            },
            granularity: Granularity.Sequential);
        var lists = new AllocationProbe();
        var listFib = DivideAndConquer.Create<int, long>(
            shouldSplit: (n, depth) => n > 1,
            split: (n, depth) =>
            {
                lists.AtSplit(depth);
                return new[] { n - 1, n - 2 };
            },
            execute: (n, depth) => n,
            merge: (parts, depth) =>
            {
                lists.AtMerge(depth);
                return parts[0] + parts[1];
            },
            granularity: Granularity.Sequential);
        var options = DivideAndConquerOptions.Default with { Engine = engine };

        Assert.Equal(6765, await fib.RunAsync(20, options).Bounded());
        Assert.Equal(6765, await listFib.RunAsync(20, options).Bounded());

        Assert.True(lists.Allocated > 13_529 * 16, $"the list-shaped subtree allocated only {lists.Allocated} bytes");
        Assert.True(binary.Allocated < 1024, $"the binary subtree allocated {binary.Allocated} bytes");
    }

    /// <summary>Allocation of the thread between the first depth-1 split and the merge at depth 1 that follows it (one subtree).</summary>
    private sealed class AllocationProbe
    {
        private long _start = -1;

        public long Allocated { get; private set; } = -1;

        public void AtSplit(int depth)
        {
            if (depth == 1 && _start < 0)
            {
                _start = GC.GetAllocatedBytesForCurrentThread();
            }
        }

        public void AtMerge(int depth)
        {
            if (depth == 1 && _start >= 0 && Allocated < 0)
            {
                Allocated = GC.GetAllocatedBytesForCurrentThread() - _start;
            }
        }
    }
#endif

    private static DivideAndConquer<IndexRange, long> BinarySum(int leafSize, Granularity granularity) => Halving(
        ProgramForm.Binary,
        shouldSplit: (range, depth) => range.Length > leafSize,
        execute: (range, depth) => Workloads.SequentialSum(range),
        merge: (range, left, right, depth) => left + right,
        granularity: granularity);
}
