using DivCon.Skeletons.Tests.Infrastructure;

namespace DivCon.Skeletons.Tests;

/// <summary>The observer sees exactly one split and merge per internal node and one execute per leaf, at the right depths.</summary>
public sealed class ObserverTests
{
    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task Counts_per_phase_and_depth_match_a_complete_binary_tree(ExecutionEngine engine)
    {
        var phases = new PhaseAggregator();
        var program = NonBlockingTests.CompleteBinaryTree(static () => { });

        await program.RunAsync(new IndexRange(0, 32), DivideAndConquerOptions.Default with { Observer = phases, Engine = engine }).Bounded();

        Assert.Equal(32, phases.TotalCount(DivideAndConquerPhase.Execute));
        Assert.Equal(31, phases.TotalCount(DivideAndConquerPhase.Split));
        Assert.Equal(31, phases.TotalCount(DivideAndConquerPhase.Merge));
        for (int depth = 0; depth < 5; depth++)
        {
            Assert.Equal(1L << depth, phases.GetCount(DivideAndConquerPhase.Split, depth));
            Assert.Equal(1L << depth, phases.GetCount(DivideAndConquerPhase.Merge, depth));
            Assert.Equal(0, phases.GetCount(DivideAndConquerPhase.Execute, depth));
        }

        Assert.Equal(32, phases.GetCount(DivideAndConquerPhase.Execute, 5));
        Assert.Equal(0, phases.GetCount(DivideAndConquerPhase.Split, 5));
        Assert.Equal(5, phases.MaxDepth);
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task Counts_per_depth_match_a_sequential_walk_of_the_irregular_tree(ExecutionEngine engine)
    {
        var expectedLeaves = new Dictionary<int, long>();
        var expectedInternal = new Dictionary<int, long>();
        Walk(7UL, 0);
        var phases = new PhaseAggregator();

        await Workloads.IrregularLambda().RunAsync(7UL, DivideAndConquerOptions.Default with { Observer = phases, Engine = engine }).Bounded();

        for (int depth = 0; depth <= Workloads.IrregularMaxDepth; depth++)
        {
            Assert.Equal(expectedLeaves.GetValueOrDefault(depth), phases.GetCount(DivideAndConquerPhase.Execute, depth));
            Assert.Equal(expectedInternal.GetValueOrDefault(depth), phases.GetCount(DivideAndConquerPhase.Split, depth));
            Assert.Equal(expectedInternal.GetValueOrDefault(depth), phases.GetCount(DivideAndConquerPhase.Merge, depth));
        }

        void Walk(ulong id, int depth)
        {
            if (Workloads.IrregularIsInternal(id, depth))
            {
                expectedInternal[depth] = expectedInternal.GetValueOrDefault(depth) + 1;
                foreach (var child in Workloads.IrregularChildren(id))
                {
                    Walk(child, depth + 1);
                }
            }
            else
            {
                expectedLeaves[depth] = expectedLeaves.GetValueOrDefault(depth) + 1;
            }
        }
    }

    [Fact]
    public async Task Asynchronous_splits_and_merges_are_observed_once_each_with_their_full_duration()
    {
        var phases = new PhaseAggregator();
        var program = DivideAndConquer.CreateAsync<IndexRange, long>(
            (range, depth) => range.Length > 1,
            async (range, depth, token) => { await Task.Yield(); return range.Split(2); },
            (range, depth) => range.Length,
            async (counts, depth, token) => { await Task.Yield(); return counts[0] + counts[1]; });

        long leaves = await program.RunAsync(new IndexRange(0, 16), DivideAndConquerOptions.Default with { Observer = phases }).Bounded();

        Assert.Equal(16, leaves);
        Assert.Equal(15, phases.TotalCount(DivideAndConquerPhase.Split));
        Assert.Equal(15, phases.TotalCount(DivideAndConquerPhase.Merge));
        Assert.True(phases.TotalTime(DivideAndConquerPhase.Split) > TimeSpan.Zero);
    }

    [Fact]
    public async Task Sequential_granularity_gives_exactly_one_execute_and_no_split()
    {
        var phases = new PhaseAggregator();
        var sum = MapReduce.Create<long>(i => i, (a, b) => a + b, 0, granularity: Granularity.Sequential);

        long total = await sum.RunAsync(new IndexRange(0, 100_000), DivideAndConquerOptions.Default with { Observer = phases }).Bounded();

        Assert.Equal(4_999_950_000L, total);
        Assert.Equal(1, phases.TotalCount(DivideAndConquerPhase.Execute));
        Assert.Equal(1, phases.GetCount(DivideAndConquerPhase.Execute, 0));
        Assert.Equal(0, phases.TotalCount(DivideAndConquerPhase.Split));
        Assert.Equal(0, phases.TotalCount(DivideAndConquerPhase.Merge));
        Assert.Equal(100_000, sum.EffectiveGranularity);
    }

    [Fact]
    public async Task Automatic_granularity_on_four_workers_gives_sixteen_leaves_for_a_halving_problem()
    {
        using var scheduler = new CountingTaskScheduler(4, allowInlining: false);
        var phases = new PhaseAggregator();
        var sum = MapReduce.Create<long>(i => i, (a, b) => a + b, 0);

        // The instance's first run probes with smaller leaves (it has no leaf cost to predict from); the second predicts
        // from the first, finds the leaves cheap and keeps the leaf-count floor.
        await sum.RunAsync(new IndexRange(0, 1000), DivideAndConquerOptions.Default with { Scheduler = scheduler }).Bounded();
        long total = await sum.RunAsync(new IndexRange(0, 1000), DivideAndConquerOptions.Default with { Observer = phases, Scheduler = scheduler }).Bounded();

        Assert.Equal(499_500, total);
        Assert.Equal(63, sum.EffectiveGranularity); // ceil(1000 / (4 workers * 4 leaves))
        Assert.Equal(16, phases.TotalCount(DivideAndConquerPhase.Execute));
        Assert.Equal(16, phases.GetCount(DivideAndConquerPhase.Execute, 4));
    }

    [Fact]
    public void PhaseAggregator_counts_exactly_under_concurrent_recording()
    {
        var phases = new PhaseAggregator();
        const int PerThread = 20_000;

        Parallel.For(0, 8, thread =>
        {
            for (int i = 0; i < PerThread; i++)
            {
                phases.OnPhase(DivideAndConquerPhase.Execute, i % 3, 2);
                phases.OnPhase(DivideAndConquerPhase.Merge, 100 + (i % 2), 1);
            }
        });

        Assert.Equal(8 * PerThread, phases.TotalCount(DivideAndConquerPhase.Execute));
        Assert.Equal(Ticks(2 * 8 * PerThread), phases.TotalTime(DivideAndConquerPhase.Execute));
        Assert.Equal(8 * PerThread, phases.TotalCount(DivideAndConquerPhase.Merge));
        Assert.Equal(4 * PerThread, phases.GetCount(DivideAndConquerPhase.Merge, 101));
        Assert.Equal(0, phases.TotalCount(DivideAndConquerPhase.Split));
        Assert.Equal(101, phases.MaxDepth);
    }

    [Fact]
    public void PhaseAggregator_snapshot_is_ordered_and_reset_clears_everything()
    {
        var phases = new PhaseAggregator();
        Assert.Equal(-1, phases.MaxDepth);
        Assert.Empty(phases.Snapshot());

        phases.OnPhase(DivideAndConquerPhase.Merge, 0, 30);
        phases.OnPhase(DivideAndConquerPhase.Execute, 1, 10);
        phases.OnPhase(DivideAndConquerPhase.Split, 0, 5);
        phases.OnPhase(DivideAndConquerPhase.Execute, 70, 7);

        Assert.Equal(
            [
                new PhaseLevelStatistics(DivideAndConquerPhase.Split, 0, 1, Ticks(5)),
                new PhaseLevelStatistics(DivideAndConquerPhase.Merge, 0, 1, Ticks(30)),
                new PhaseLevelStatistics(DivideAndConquerPhase.Execute, 1, 1, Ticks(10)),
                new PhaseLevelStatistics(DivideAndConquerPhase.Execute, 70, 1, Ticks(7)),
            ],
            phases.Snapshot());
        Assert.Equal(Ticks(7), phases.GetTotalTime(DivideAndConquerPhase.Execute, 70));
        Assert.Equal(0, phases.GetCount(DivideAndConquerPhase.Execute, 500));

        phases.Reset();

        Assert.Empty(phases.Snapshot());
        Assert.Equal(-1, phases.MaxDepth);
        Assert.Equal(TimeSpan.Zero, phases.TotalTime(DivideAndConquerPhase.Execute));
    }

    /// <summary>Stopwatch ticks as the aggregator reports them.</summary>
    private static TimeSpan Ticks(long ticks) => System.Diagnostics.Stopwatch.GetElapsedTime(0, ticks);
}
