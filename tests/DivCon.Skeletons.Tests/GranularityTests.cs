using DivCon.Skeletons.Tests.Infrastructure;

namespace DivCon.Skeletons.Tests;

/// <summary>Granularity: the pure policy on plain numbers, and its resolution per run in the granular base class.</summary>
public sealed class GranularityTests
{
    [Theory]
    [InlineData(int.MaxValue, 8, 8)]
    [InlineData(4, 8, 4)]
    [InlineData(0, 8, 8)]
    [InlineData(-3, 2, 2)]
    [InlineData(GranularityPolicy.UnboundedConcurrencyLevel, 8, GranularityPolicy.UnboundedConcurrencyLevel)]
    [InlineData(GranularityPolicy.UnboundedConcurrencyLevel + 1, 8, 8)]
    public void WorkerCount_uses_the_processor_count_for_unbounded_schedulers(int level, int processors, int expected) =>
        Assert.Equal(expected, GranularityPolicy.WorkerCount(level, processors));

    [Theory]
    [InlineData(4, 4, 16)]
    [InlineData(1, 1, 1)]
    [InlineData(int.MaxValue, 4, int.MaxValue)]
    public void TargetLeaves_multiplies_and_saturates(int workers, int perWorker, int expected) =>
        Assert.Equal(expected, GranularityPolicy.TargetLeaves(workers, perWorker));

    [Theory]
    [InlineData(1000L, 16, 63L)]
    [InlineData(1024L, 16, 64L)]
    [InlineData(17L, 16, 2L)]
    [InlineData(16L, 16, 1L)]
    [InlineData(3L, 16, 1L)]
    [InlineData(0L, 16, 1L)]
    [InlineData(long.MaxValue, 1, long.MaxValue)]
    public void EvenSplitGranularity_is_the_ceiling_of_size_over_leaves_and_at_least_one(long size, int leaves, long expected) =>
        Assert.Equal(expected, GranularityPolicy.EvenSplitGranularity(size, leaves));

    [Fact]
    public void Granularity_values_describe_themselves()
    {
        Assert.Equal(GranularityKind.Automatic, Granularity.Automatic().Kind);
        Assert.Equal(Granularity.DefaultLeavesPerWorker, Granularity.Automatic().LeavesPerWorker);
        Assert.Equal(Granularity.DefaultMinimumTaskCost, Granularity.Automatic().MinimumTaskCost);
        Assert.Equal(Granularity.DefaultMaximumTaskDuration, Granularity.Automatic().MaximumTaskDuration);
        Assert.Equal(Granularity.ByLeafCount(4), Granularity.Automatic(4));
        Assert.Equal(GranularityKind.LeafCount, Granularity.ByLeafCount().Kind);
        Assert.NotEqual(Granularity.Automatic(), Granularity.ByLeafCount(4));
        Assert.Equal(TimeSpan.Zero, Granularity.EveryNodeATask.MinimumTaskCost);
        Assert.Equal(Granularity.Automatic(TimeSpan.FromMicroseconds(20), TimeSpan.FromMilliseconds(2)), Granularity.Automatic(TimeSpan.FromMicroseconds(20), TimeSpan.FromMilliseconds(2)));
        Assert.Equal(GranularityKind.Sequential, Granularity.Sequential.Kind);
        Assert.Equal("Fixed(128)", Granularity.Fixed(128).ToString());
        Assert.Equal("Depth(3)", Granularity.Depth(3).ToString());
        Assert.Equal(Granularity.Automatic(), new ArgumentTests.SumOfIndexes().Granularity);
    }

    [Fact]
    public async Task Fixed_granularity_splits_until_every_leaf_is_at_most_that_size()
    {
        var program = new RecordingSum { Granularity = Granularity.Fixed(100) };

        long sum = await program.RunAsync(new IndexRange(0, 1000)).Bounded();

        Assert.Equal(499_500, sum);
        Assert.Equal(100, program.EffectiveGranularity);
        Assert.Equal(16, program.LeafSizes.Length); // 1000 -> 500 -> 250 -> 125 -> 62/63
        Assert.All(program.LeafSizes, size => Assert.InRange(size, 51, 100));
    }

    [Fact]
    public async Task Depth_granularity_splits_every_problem_to_that_depth_whatever_its_size()
    {
        var phases = new PhaseAggregator();
        var program = new RecordingSum { Granularity = Granularity.Depth(3) };

        long sum = await program.RunAsync(new IndexRange(0, 10), DivideAndConquerOptions.Default with { Observer = phases }).Bounded();

        Assert.Equal(45, sum);
        Assert.Equal(0, program.EffectiveGranularity);
        Assert.Equal(8, phases.GetCount(DivideAndConquerPhase.Execute, 3));
        Assert.Equal(8, phases.TotalCount(DivideAndConquerPhase.Execute));
    }

    [Fact]
    public async Task Automatic_granularity_on_the_thread_pool_uses_the_processor_count()
    {
        var program = new RecordingSum();

        await program.RunAsync(new IndexRange(0, 1 << 20)).Bounded();

        Assert.Equal(GranularityPolicy.EvenSplitGranularity(1 << 20, Environment.ProcessorCount * 4), program.EffectiveGranularity);
    }

    [Fact]
    public async Task The_automatic_resolution_can_be_overridden_for_uneven_size_reduction()
    {
        using var scheduler = new CountingTaskScheduler(2, allowInlining: false);
        var program = new QuarteringProgram { Granularity = Granularity.Automatic(leavesPerWorker: 20) };

        await program.RunAsync(4096L, DivideAndConquerOptions.Default with { Scheduler = scheduler }).Bounded();

        Assert.Equal(40, program.TargetLeavesSeen); // 2 workers x 20
        Assert.Equal(4096 / 16, program.EffectiveGranularity); // 49 leaves = 7^2: two splits, each a quarter of the size
        Assert.Equal(49, program.Executes);
    }

    [Fact]
    public async Task Runs_of_one_granular_instance_may_overlap_each_with_its_own_granularity()
    {
        // The first run's only leaf blocks one worker until a second run of the same instance, with another
        // granularity, has finished on the other worker; the first then finishes with its own rule.
        using var scheduler = new CountingTaskScheduler(2, allowInlining: false);
        using var gate = new ManualResetEventSlim();
        using var entered = new ManualResetEventSlim();
        var program = new RecordingSum { Granularity = Granularity.Sequential };
        program.BeforeExecute = () =>
        {
            entered.Set();
            Assert.True(gate.Wait(TestTimeouts.Generous));
        };
        var options = DivideAndConquerOptions.Default with { Scheduler = scheduler };

        var first = program.RunAsync(new IndexRange(0, 10), options);
        Assert.True(entered.Wait(TestTimeouts.Generous));
        program.BeforeExecute = null;
        program.Granularity = Granularity.Fixed(1);
        Assert.Equal(45, await program.RunAsync(new IndexRange(0, 10), options).Bounded());
        Assert.Equal(1, program.EffectiveGranularity);

        gate.Set();
        Assert.Equal(45, await first.Bounded());
    }

    [Fact]
    public async Task A_failing_run_releases_the_instance_too()
    {
        var program = new RecordingSum { Granularity = Granularity.Fixed(10), BeforeExecute = () => throw new InvalidTimeZoneException() };
        await Assert.ThrowsAsync<InvalidTimeZoneException>(() => program.RunAsync(new IndexRange(0, 100)).Bounded());

        program.BeforeExecute = null;
        Assert.Equal(4950, await program.RunAsync(new IndexRange(0, 100)).Bounded());
    }

    [Fact]
    public async Task A_negative_root_size_is_refused_up_front_and_releases_the_instance()
    {
        var program = new QuarteringProgram();
        Assert.Throws<InvalidOperationException>(() => { _ = program.RunAsync(-5L); });
        Assert.Equal(1, await program.RunAsync(1L).Bounded());
    }

    /// <summary>Sums indexes, recording the size of every leaf.</summary>
    private sealed class RecordingSum : GranularDivideAndConquer<IndexRange, long>
    {
        private readonly System.Collections.Concurrent.ConcurrentBag<int> _leafSizes = [];

        public Action? BeforeExecute { get; set; }

        public int[] LeafSizes => [.. _leafSizes];

        protected override long GetSize(IndexRange problem) => problem.Length;

        protected override IReadOnlyList<IndexRange> Split(IndexRange problem, int depth) => problem.Split(2);

        protected override long Execute(IndexRange problem, int depth)
        {
            BeforeExecute?.Invoke();
            _leafSizes.Add(problem.Length);
            return Workloads.SequentialSum(problem);
        }

        protected override long Merge(IReadOnlyList<long> subresults, int depth) => subresults.Sum();
    }

    /// <summary>A Strassen-shaped recursion: 7 children, each a quarter of the size; the result counts leaves.</summary>
    private sealed class QuarteringProgram : GranularDivideAndConquer<long, long>
    {
        private int _executes;

        public int TargetLeavesSeen { get; private set; }

        public int Executes => _executes;

        protected override long GetSize(long problem) => problem;

        protected override long ResolveAutomaticGranularity(long problemSize, int targetLeaves)
        {
            TargetLeavesSeen = targetLeaves;
            // Splits needed for at least targetLeaves leaves with 7 children per split: ceil(log7(targetLeaves)).
            int splits = 0;
            for (long leaves = 1; leaves < targetLeaves; leaves *= 7)
            {
                splits++;
            }

            return Math.Max(1, problemSize >> (2 * splits));
        }

        protected override IReadOnlyList<long> Split(long problem, int depth) => Enumerable.Repeat(problem / 4, 7).ToArray();

        protected override long Execute(long problem, int depth)
        {
            Interlocked.Increment(ref _executes);
            return 1;
        }

        protected override long Merge(IReadOnlyList<long> subresults, int depth) => subresults.Sum();
    }
}
