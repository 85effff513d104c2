using DivCon.Skeletons.Tests.Infrastructure;

namespace DivCon.Skeletons.Tests;

/// <summary>Every engine x authoring model x scheduler x granularity computes what a sequential computation computes.</summary>
public sealed class CorrectnessTests
{
    public enum Model
    {
        Subclass,
        Lambda,
    }

    /// <summary>The granularities of the grid: which nodes are tasks and which run inline.</summary>
    public enum GranularityChoice
    {
        /// <summary>The default, <see cref="Granularity.Automatic()"/>: learned by time.</summary>
        Automatic,

        /// <summary>By time, with bounds so high that every subtree is inlined once one has been measured.</summary>
        AutomaticInlineAll,

        /// <summary>No inlining: every node a task.</summary>
        EveryNodeATask,

        /// <summary>Tasks down to depth 2, inline below.</summary>
        Depth2,

        /// <summary>The whole tree inline in the root's task.</summary>
        Sequential,
    }

    public static TheoryData<ExecutionEngine, Model, SchedulerKind, GranularityChoice> Grid()
    {
        var data = new TheoryData<ExecutionEngine, Model, SchedulerKind, GranularityChoice>();
        foreach (var engine in Enum.GetValues<ExecutionEngine>())
        {
            foreach (var model in Enum.GetValues<Model>())
            {
                foreach (var scheduler in Enum.GetValues<SchedulerKind>())
                {
                    foreach (var granularity in Enum.GetValues<GranularityChoice>())
                    {
                        data.Add(engine, model, scheduler, granularity);
                    }
                }
            }
        }

        return data;
    }

    public static Granularity Choose(GranularityChoice choice) => choice switch
    {
        GranularityChoice.Automatic => Granularity.Automatic(),
        GranularityChoice.AutomaticInlineAll => Granularity.Automatic(TimeSpan.FromSeconds(30), TimeSpan.FromSeconds(30)),
        GranularityChoice.EveryNodeATask => Granularity.EveryNodeATask,
        GranularityChoice.Depth2 => Granularity.Depth(2),
        _ => Granularity.Sequential,
    };

    [Theory]
    [MemberData(nameof(Grid))]
    public async Task Sum_over_a_range_equals_the_sequential_sum(ExecutionEngine engine, Model model, SchedulerKind kind, GranularityChoice granularity)
    {
        using var lease = new SchedulerLease(kind);
        var program = model == Model.Subclass ? new Workloads.SumProgram(leafSize: 100) : Workloads.SumLambda(leafSize: 100);
        program.Granularity = Choose(granularity);
        var range = new IndexRange(3, 10_007);

        long sum = await program.RunAsync(range, Options(engine, lease)).Bounded();

        Assert.Equal(Workloads.SequentialSum(range), sum);
    }

    [Theory]
    [MemberData(nameof(Grid))]
    public async Task Quicksort_sorts_like_Array_Sort(ExecutionEngine engine, Model model, SchedulerKind kind, GranularityChoice granularity)
    {
        using var lease = new SchedulerLease(kind);
        var program = model == Model.Subclass ? new Workloads.QuicksortProgram(leafSize: 256) : Workloads.QuicksortLambda(leafSize: 256);
        program.Granularity = Choose(granularity);
        var source = Workloads.RandomArray(20_000, seed: 42);
        var before = (int[])source.Clone();

        int[] sorted = await program.RunAsync(source, Options(engine, lease)).Bounded();

        Assert.Equal(Workloads.SequentialSort(source), sorted);
        Assert.Equal(before, source);
    }

    [Theory]
    [MemberData(nameof(Grid))]
    public async Task Irregular_tree_merges_every_result_in_its_own_slot(ExecutionEngine engine, Model model, SchedulerKind kind, GranularityChoice granularity)
    {
        using var lease = new SchedulerLease(kind);
        var program = model == Model.Subclass ? new Workloads.IrregularProgram() : Workloads.IrregularLambda();
        program.Granularity = Choose(granularity);

        long result = await program.RunAsync(7UL, Options(engine, lease)).Bounded();

        Assert.Equal(Workloads.SequentialIrregular(7UL, 0), result);
    }

    [Fact]
    public async Task Irregular_tree_really_is_irregular()
    {
        var phases = new PhaseAggregator();
        await Workloads.IrregularLambda().RunAsync(7UL, DivideAndConquerOptions.Default with { Observer = phases }).Bounded();

        // Leaves at several depths and an average branching that is not a whole number: an uneven tree.
        var leafDepths = phases.Snapshot().Where(s => s.Phase == DivideAndConquerPhase.Execute).Select(s => s.Depth).ToArray();
        Assert.True(leafDepths.Length >= 4, $"leaves at depths {string.Join(",", leafDepths)}");
        Assert.True(phases.TotalCount(DivideAndConquerPhase.Execute) > 50);
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task A_single_leaf_problem_is_executed_once_without_split_or_merge(ExecutionEngine engine)
    {
        var phases = new PhaseAggregator();
        var program = Workloads.SumLambda(leafSize: 1000);

        long sum = await program.RunAsync(new IndexRange(0, 10), DivideAndConquerOptions.Default with { Engine = engine, Observer = phases }).Bounded();

        Assert.Equal(45, sum);
        Assert.Equal(1, phases.TotalCount(DivideAndConquerPhase.Execute));
        Assert.Equal(0, phases.TotalCount(DivideAndConquerPhase.Split));
        Assert.Equal(0, phases.TotalCount(DivideAndConquerPhase.Merge));
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task MaxDepth_stops_splitting_at_that_depth(ExecutionEngine engine)
    {
        var phases = new PhaseAggregator();
        var program = Workloads.SumLambda(leafSize: 1);
        var range = new IndexRange(0, 1000);

        long sum = await program.RunAsync(range, DivideAndConquerOptions.Default with { Engine = engine, Observer = phases, MaxDepth = 3 }).Bounded();

        Assert.Equal(Workloads.SequentialSum(range), sum);
        Assert.Equal(8, phases.GetCount(DivideAndConquerPhase.Execute, 3));
        Assert.Equal(8, phases.TotalCount(DivideAndConquerPhase.Execute));
        Assert.Equal(2, phases.MaxDepth == 3 ? phases.GetCount(DivideAndConquerPhase.Split, 1) : -1);
    }

    [Fact]
    public async Task MaxDepth_zero_executes_the_root()
    {
        var phases = new PhaseAggregator();
        long sum = await Workloads.SumLambda(leafSize: 1).RunAsync(new IndexRange(0, 100), DivideAndConquerOptions.Default with { MaxDepth = 0, Observer = phases }).Bounded();

        Assert.Equal(4950, sum);
        Assert.Equal(1, phases.TotalCount(DivideAndConquerPhase.Execute));
        Assert.Equal(0, phases.TotalCount(DivideAndConquerPhase.Split));
    }

    [Fact]
    public async Task One_program_object_runs_on_different_schedulers_with_per_run_options()
    {
        using var one = new CountingTaskScheduler(1, allowInlining: false);
        using var two = new CountingTaskScheduler(2, allowInlining: false);
        var program = new Workloads.SumProgram(leafSize: 10) { Granularity = Granularity.EveryNodeATask };
        var range = new IndexRange(0, 80); // 8 leaves, 7 splits, 7 merges: 22 tasks

        long onOne = await program.RunAsync(range, DivideAndConquerOptions.Default with { Scheduler = one }).Bounded();
        long onTwo = await program.RunAsync(range, DivideAndConquerOptions.Default with { Scheduler = two }).Bounded();

        Assert.Equal(onOne, onTwo);
        // The scheduler counts a task after it returns, which can be after the run's task completed: wait for it.
        Assert.True(SpinWait.SpinUntil(() => one.IsIdle && two.IsIdle, TestTimeouts.Generous));
        Assert.Equal(22, one.ExecutedCount);
        Assert.Equal(22, two.ExecutedCount);
        Assert.Same(DivideAndConquerOptions.Default, program.Options);
    }

    [Fact]
    public async Task Options_property_is_used_by_RunAsync_without_options()
    {
        using var one = new CountingTaskScheduler(1, allowInlining: false);
        var program = Workloads.SumLambda(leafSize: 10, DivideAndConquerOptions.Default with { Scheduler = one });
        program.Granularity = Granularity.EveryNodeATask;

        await program.RunAsync(new IndexRange(0, 20)).Bounded();
        // The scheduler counts a task after it returns, which can be after the run's task completed: wait for it.
        Assert.True(SpinWait.SpinUntil(() => one.IsIdle, TestTimeouts.Generous));
        Assert.Equal(4, one.ExecutedCount); // root split, two leaves, merge

        program.Options = DivideAndConquerOptions.Default;
        await program.RunAsync(new IndexRange(0, 20)).Bounded();
        Assert.Equal(4, one.ExecutedCount);
    }

    [Fact]
    public async Task Merge_receives_results_in_subproblem_order_even_when_children_finish_out_of_order()
    {
        // Child 0 is the slowest (it waits for child 1 through a gate that child 1 opens).
        using var two = new CountingTaskScheduler(2, allowInlining: false);
        using var childOneDone = new ManualResetEventSlim();
        var program = DivideAndConquer.Create<int, string>(
            shouldSplit: (n, depth) => depth == 0,
            split: (n, depth) => [0, 1],
            execute: (n, depth) =>
            {
                if (n == 0)
                {
                    Assert.True(childOneDone.Wait(TestTimeouts.Generous));
                }
                else
                {
                    childOneDone.Set();
                }

                return n.ToString(System.Globalization.CultureInfo.InvariantCulture);
            },
            merge: (parts, depth) => string.Concat(parts));

        string result = await program.RunAsync(0, DivideAndConquerOptions.Default with { Scheduler = two }).Bounded();

        Assert.Equal("01", result);
    }

    private static DivideAndConquerOptions Options(ExecutionEngine engine, SchedulerLease lease) =>
        DivideAndConquerOptions.Default with { Engine = engine, Scheduler = lease.Scheduler };
}
