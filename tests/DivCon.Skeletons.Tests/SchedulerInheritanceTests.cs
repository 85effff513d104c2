using DivCon.Skeletons.Tests.Infrastructure;

namespace DivCon.Skeletons.Tests;

/// <summary>
/// A run whose options name no scheduler runs on its caller's (<see cref="TaskScheduler.Current"/> when it starts);
/// naming one, <see cref="TaskScheduler.Default"/> included, overrides that. Per-run granularity overrides the program's.
/// </summary>
public sealed class SchedulerInheritanceTests
{
    [Fact]
    public void Naming_the_default_scheduler_differs_from_naming_none()
    {
        var unnamed = DivideAndConquerOptions.Default;
        var pool = DivideAndConquerOptions.Default with { Scheduler = TaskScheduler.Default };

        Assert.True(unnamed.InheritsScheduler);
        Assert.False(pool.InheritsScheduler);
        Assert.NotEqual(unnamed, pool);
        Assert.True((pool with { MaxDepth = 3 }) is { InheritsScheduler: false });
        Assert.True((unnamed with { MaxDepth = 3 }).InheritsScheduler);
    }

    [Theory]
    [InlineData(false, ExecutionEngine.Continuation)]
    [InlineData(true, ExecutionEngine.Continuation)]
    [InlineData(false, ExecutionEngine.ForkJoin)]
    public async Task A_run_started_in_a_task_of_a_custom_scheduler_runs_every_node_there_unless_told_otherwise(bool namePool, ExecutionEngine engine)
    {
        using var scheduler = new CountingTaskScheduler(2, allowInlining: true, "caller");
        int onScheduler = 0;
        int offScheduler = 0;
        var program = DivideAndConquer.Create<IndexRange, long>(
            shouldSplit: (range, depth) => range.Length > 8,
            split: (range, depth) => range.Split(2),
            execute: (range, depth) =>
            {
                Interlocked.Increment(ref scheduler.IsCurrentThreadAWorker ? ref onScheduler : ref offScheduler);
                return Workloads.SequentialSum(range);
            },
            merge: (sums, depth) => sums[0] + sums[1],
            granularity: Granularity.EveryNodeATask);
        var options = DivideAndConquerOptions.Default with { Engine = engine };
        if (namePool)
        {
            options = options with { Scheduler = TaskScheduler.Default };
        }

        var run = Task.Factory.StartNew(
            () => program.RunAsync(new IndexRange(0, 1024), options),
            CancellationToken.None,
            TaskCreationOptions.DenyChildAttach,
            scheduler).Unwrap();
        long sum = await run.Bounded();

        Assert.Equal(Workloads.SequentialSum(new IndexRange(0, 1024)), sum);
        Assert.Equal(namePool ? 0 : 128, onScheduler);
        Assert.Equal(namePool ? 128 : 0, offScheduler);
    }

    [Fact]
    public async Task A_nested_run_started_in_a_merge_without_options_stays_on_the_outer_runs_scheduler()
    {
        using var scheduler = new CountingTaskScheduler(2, allowInlining: false, "outer");
        int innerOff = 0;
        int innerNodes = 0;
        var inner = DivideAndConquer.Create<IndexRange, long>(
            shouldSplit: (range, depth) => range.Length > 4,
            split: (range, depth) => range.Split(2),
            execute: (range, depth) =>
            {
                Interlocked.Increment(ref innerNodes);
                if (!scheduler.IsCurrentThreadAWorker)
                {
                    Interlocked.Increment(ref innerOff);
                }

                return range.Length;
            },
            merge: (sums, depth) => sums[0] + sums[1],
            granularity: Granularity.EveryNodeATask);
        var outer = DivideAndConquer.CreateAsync<int, long>(
            shouldSplit: (n, depth) => n > 0,
            split: (n, depth) => [n - 1, n - 1],
            execute: (n, depth) => 0,
            mergeAsync: async (results, depth, token) => results[0] + results[1] + await inner.RunAsync(new IndexRange(0, 64), token),
            granularity: Granularity.EveryNodeATask);

        long total = await outer.RunAsync(3, DivideAndConquerOptions.Default with { Scheduler = scheduler }).Bounded();

        Assert.Equal(7 * 64, total);
        Assert.Equal(7 * 16, innerNodes);
        Assert.Equal(0, innerOff);
    }

    [Fact]
    public async Task The_options_granularity_overrides_the_programs_for_that_run_only()
    {
        var program = Workloads.SumLambda(leafSize: 4);
        program.Granularity = Granularity.EveryNodeATask;
        var sequential = new PhaseAggregator();
        var everyNode = new PhaseAggregator();

        await program.RunAsync(new IndexRange(0, 256), DivideAndConquerOptions.Default with { Observer = sequential, Granularity = Granularity.Sequential }).Bounded();
        await program.RunAsync(new IndexRange(0, 256), DivideAndConquerOptions.Default with { Observer = everyNode }).Bounded();

        Assert.Equal(1, sequential.TaskNodes);
        Assert.Equal(126, sequential.InlineNodes);
        Assert.Equal(127, everyNode.TaskNodes);
        Assert.Same(Granularity.EveryNodeATask, program.Granularity);
    }

    [Fact]
    public async Task The_options_granularity_sets_a_granular_programs_leaves()
    {
        var sum = MapReduce.Create<long>(map: i => i, reduce: (a, b) => a + b, identity: 0, granularity: Granularity.Fixed(1000));
        var phases = new PhaseAggregator();

        long total = await sum.RunAsync(new IndexRange(0, 4096), DivideAndConquerOptions.Default with { Observer = phases, Granularity = Granularity.Fixed(512) }).Bounded();

        Assert.Equal(4096L * 4095 / 2, total);
        Assert.Equal(8, phases.TotalCount(DivideAndConquerPhase.Execute));
        Assert.Equal(512, sum.EffectiveGranularity);
    }
}
