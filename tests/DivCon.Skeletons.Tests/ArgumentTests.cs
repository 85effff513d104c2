namespace DivCon.Skeletons.Tests;

/// <summary>Every bad argument is rejected up front with an ArgumentException naming the parameter.</summary>
public sealed class ArgumentTests
{
    private static readonly Func<int, int, bool> s_shouldSplit = (n, d) => false;
    private static readonly Func<int, int, IReadOnlyList<int>> s_split = (n, d) => [n];
    private static readonly Func<int, int, int> s_execute = (n, d) => n;
    private static readonly Func<IReadOnlyList<int>, int, int> s_merge = (r, d) => r[0];
    private static readonly Func<int, int, CancellationToken, ValueTask<IReadOnlyList<int>>> s_splitAsync = (n, d, t) => new([n]);
    private static readonly Func<IReadOnlyList<int>, int, CancellationToken, ValueTask<int>> s_mergeAsync = (r, d, t) => new(r[0]);
    private static readonly Func<int, IReadOnlyList<int>, int, CancellationToken, ValueTask<int>> s_mergeWithProblemAsync = (p, r, d, t) => new(r[0]);

    [Fact]
    public void Create_rejects_each_null_delegate_by_name()
    {
        Assert.Equal("shouldSplit", Assert.Throws<ArgumentNullException>(() => DivideAndConquer.Create(null!, s_split, s_execute, s_merge)).ParamName);
        Assert.Equal("split", Assert.Throws<ArgumentNullException>(() => DivideAndConquer.Create(s_shouldSplit, null!, s_execute, s_merge)).ParamName);
        Assert.Equal("execute", Assert.Throws<ArgumentNullException>(() => DivideAndConquer.Create(s_shouldSplit, s_split, null!, s_merge)).ParamName);
        Assert.Equal("merge", Assert.Throws<ArgumentNullException>(() => DivideAndConquer.Create(s_shouldSplit, s_split, s_execute, (Func<IReadOnlyList<int>, int, int>)null!)).ParamName);
    }

    [Fact]
    public void CreateAsync_rejects_each_null_delegate_by_name()
    {
        Assert.Equal("shouldSplit", Assert.Throws<ArgumentNullException>(() => DivideAndConquer.CreateAsync(null!, s_splitAsync, s_execute, s_mergeAsync)).ParamName);
        Assert.Equal("splitAsync", Assert.Throws<ArgumentNullException>(() => DivideAndConquer.CreateAsync(s_shouldSplit, (Func<int, int, CancellationToken, ValueTask<IReadOnlyList<int>>>)null!, s_execute, s_mergeAsync)).ParamName);
        Assert.Equal("split", Assert.Throws<ArgumentNullException>(() => DivideAndConquer.CreateAsync(s_shouldSplit, (Func<int, int, IReadOnlyList<int>>)null!, s_execute, s_mergeAsync)).ParamName);
        Assert.Equal("mergeAsync", Assert.Throws<ArgumentNullException>(() => DivideAndConquer.CreateAsync(s_shouldSplit, s_split, s_execute, (Func<IReadOnlyList<int>, int, CancellationToken, ValueTask<int>>)null!)).ParamName);
        Assert.Equal("execute", Assert.Throws<ArgumentNullException>(() => DivideAndConquer.CreateAsync(s_shouldSplit, s_split, null!, s_mergeWithProblemAsync)).ParamName);
        Assert.Equal("execute", Assert.Throws<ArgumentNullException>(() => DivideAndConquer.CreateAsync(s_shouldSplit, s_splitAsync, null!, s_mergeAsync)).ParamName);
        Assert.Equal("mergeAsync", Assert.Throws<ArgumentNullException>(() => DivideAndConquer.CreateAsync(s_shouldSplit, s_splitAsync, s_execute, (Func<IReadOnlyList<int>, int, CancellationToken, ValueTask<int>>)null!)).ParamName);
        Assert.Equal("mergeAsync", Assert.Throws<ArgumentNullException>(() => DivideAndConquer.CreateAsync(s_shouldSplit, s_splitAsync, s_execute, (Func<int, IReadOnlyList<int>, int, CancellationToken, ValueTask<int>>)null!)).ParamName);
        Assert.Equal("shouldSplit", Assert.Throws<ArgumentNullException>(() => DivideAndConquer.CreateAsync(null!, s_splitAsync, s_execute, s_mergeWithProblemAsync)).ParamName);
    }

    [Fact]
    public void MapReduce_factories_reject_null_delegates_and_small_branching_factors()
    {
        Assert.Equal("map", Assert.Throws<ArgumentNullException>(() => MapReduce.Create<int>(null!, (a, b) => a + b, 0)).ParamName);
        Assert.Equal("reduce", Assert.Throws<ArgumentNullException>(() => MapReduce.Create<int>(i => i, null!, 0)).ParamName);
        Assert.Equal("mapRange", Assert.Throws<ArgumentNullException>(() => MapReduce.CreateRanged<int>(null!, (a, b) => a + b, 0)).ParamName);
        Assert.Equal("reduce", Assert.Throws<ArgumentNullException>(() => MapReduce.CreateRanged<int>(r => r.Length, null!, 0)).ParamName);

        var error = Assert.Throws<ArgumentOutOfRangeException>(() => MapReduce.Create<int>(i => i, (a, b) => a + b, 0, branchingFactor: 1));
        Assert.Equal("branchingFactor", error.ParamName);
        Assert.Equal(1, error.ActualValue);
        Assert.Throws<ArgumentOutOfRangeException>(() => MapReduce.CreateRanged<int>(r => r.Length, (a, b) => a + b, 0, branchingFactor: 0));
    }

    [Fact]
    public void BranchingFactor_init_rejects_values_below_two()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new SumOfIndexes { BranchingFactor = 1 });
        Assert.Equal(7, new SumOfIndexes { BranchingFactor = 7 }.BranchingFactor);
        Assert.Equal(2, new SumOfIndexes().BranchingFactor);
    }

    [Theory]
    [InlineData(0L)]
    [InlineData(-1L)]
    [InlineData(long.MinValue)]
    public void Granularity_Fixed_rejects_sizes_below_one(long size)
    {
        var error = Assert.Throws<ArgumentOutOfRangeException>(() => Granularity.Fixed(size));
        Assert.Equal("size", error.ParamName);
        Assert.Equal(size, error.ActualValue);
    }

    [Fact]
    public void Granularity_Depth_and_Automatic_reject_bad_values()
    {
        Assert.Equal("maxDepth", Assert.Throws<ArgumentOutOfRangeException>(() => Granularity.Depth(-1)).ParamName);
        Assert.Equal("leavesPerWorker", Assert.Throws<ArgumentOutOfRangeException>(() => Granularity.Automatic(0)).ParamName);
        Assert.Equal(0, Granularity.Depth(0).TargetDepth);
        Assert.Equal(1, Granularity.Fixed(1).Size);
    }

    [Fact]
    public void Options_reject_negative_MaxDepth_null_scheduler_and_undefined_engine()
    {
        var depth = Assert.Throws<ArgumentOutOfRangeException>(() => DivideAndConquerOptions.Default with { MaxDepth = -1 });
        Assert.Equal(-1, depth.ActualValue);
        Assert.Throws<ArgumentNullException>(() => DivideAndConquerOptions.Default with { Scheduler = null! });
        Assert.Throws<ArgumentOutOfRangeException>(() => DivideAndConquerOptions.Default with { Engine = (ExecutionEngine)42 });
        Assert.Equal(0, (DivideAndConquerOptions.Default with { MaxDepth = 0 }).MaxDepth);
    }

    [Fact]
    public void Options_defaults_are_the_documented_ones()
    {
        var options = DivideAndConquerOptions.Default;
        // Outside any task the caller's scheduler is the thread pool's.
        Assert.Same(TaskScheduler.Default, options.Scheduler);
        Assert.True(options.InheritsScheduler);
        Assert.Null(options.Granularity);
        Assert.Equal(ExecutionEngine.Continuation, options.Engine);
        Assert.Null(options.Observer);
        Assert.Null(options.MaxDepth);
    }

    [Fact]
    public void Program_rejects_null_options_and_granularity()
    {
        var program = DivideAndConquer.Create(s_shouldSplit, s_split, s_execute, s_merge);
        Assert.Throws<ArgumentNullException>(() => program.Options = null!);
        Assert.Equal("options", Assert.Throws<ArgumentNullException>(() => { _ = program.RunAsync(1, null!); }).ParamName);
        Assert.Throws<ArgumentNullException>(() => new SumOfIndexes().Granularity = null!);
    }

    [Theory]
    [InlineData(-1, 0)]
    [InlineData(5, 4)]
    [InlineData(0, -1)]
    public void IndexRange_rejects_negative_start_and_end_before_start(int start, int end) =>
        Assert.Throws<ArgumentOutOfRangeException>(() => new IndexRange(start, end));

    [Fact]
    public void IndexRange_Split_rejects_zero_parts() =>
        Assert.Equal("parts", Assert.Throws<ArgumentOutOfRangeException>(() => new IndexRange(0, 4).Split(0)).ParamName);

    [Fact]
    public void PhaseAggregator_rejects_negative_depths_and_undefined_phases()
    {
        var phases = new PhaseAggregator();
        Assert.Throws<ArgumentOutOfRangeException>(() => phases.OnPhase(DivideAndConquerPhase.Split, -1, 0));
        Assert.Throws<ArgumentOutOfRangeException>(() => phases.GetCount((DivideAndConquerPhase)9, 0));
        Assert.Throws<ArgumentOutOfRangeException>(() => phases.TotalTime((DivideAndConquerPhase)(-1)));
    }

    [Fact]
    public void GranularityPolicy_rejects_bad_values()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => GranularityPolicy.WorkerCount(4, 0));
        Assert.Throws<ArgumentOutOfRangeException>(() => GranularityPolicy.TargetLeaves(0, 4));
        Assert.Throws<ArgumentOutOfRangeException>(() => GranularityPolicy.TargetLeaves(4, 0));
        Assert.Throws<ArgumentOutOfRangeException>(() => GranularityPolicy.EvenSplitGranularity(-1, 4));
        Assert.Throws<ArgumentOutOfRangeException>(() => GranularityPolicy.EvenSplitGranularity(10, 0));
    }

    [Fact]
    public async Task A_null_problem_is_passed_through_to_the_program_untouched()
    {
        // The skeleton does not interpret problems: null is a problem like any other for a program that accepts it.
        var program = DivideAndConquer.Create<string?, int>(
            (text, depth) => depth == 0,
            (text, depth) => [text, "ab"],
            (text, depth) => text?.Length ?? -1,
            (lengths, depth) => lengths[0] * 10 + lengths[1]);

        Assert.Equal(-8, await program.RunAsync(null));
    }

    /// <summary>A minimal subclass of the map-reduce skeleton: the sum of the indexes.</summary>
    internal sealed class SumOfIndexes : MapReduce<long>
    {
        protected override long Identity => 0;

        protected override long Map(int index) => index;

        protected override long Reduce(long left, long right) => left + right;
    }
}
