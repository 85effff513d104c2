using DivCon.Skeletons.Engines;
using DivCon.Skeletons.Tests.Infrastructure;
using static DivCon.Skeletons.Tests.CorrectnessTests;

namespace DivCon.Skeletons.Tests;

/// <summary>
/// Serial elision and its guards: inline subtrees count, cancel and fail like task nodes; merge sees its problem;
/// runaway recursions end with a clear error. No assertion depends on how long anything took.
/// </summary>
public sealed class TimeGranularityTests
{
    private const int Length = 4096;

    public static TheoryData<ExecutionEngine, GranularityChoice> EnginesAndGranularities()
    {
        var data = new TheoryData<ExecutionEngine, GranularityChoice>();
        foreach (var engine in Enum.GetValues<ExecutionEngine>())
        {
            foreach (var granularity in Enum.GetValues<GranularityChoice>())
            {
                data.Add(engine, granularity);
            }
        }

        return data;
    }

    public static TheoryData<ExecutionEngine, GranularityChoice, FailingPhase, ProgramForm> FailureGrid()
    {
        var data = new TheoryData<ExecutionEngine, GranularityChoice, FailingPhase, ProgramForm>();
        foreach (var engine in Enum.GetValues<ExecutionEngine>())
        {
            foreach (var granularity in new[] { GranularityChoice.EveryNodeATask, GranularityChoice.Sequential, GranularityChoice.Depth2, GranularityChoice.AutomaticInlineAll })
            {
                foreach (var phase in Enum.GetValues<FailingPhase>())
                {
                    foreach (var form in Enum.GetValues<ProgramForm>())
                    {
                        data.Add(engine, granularity, phase, form);
                    }
                }
            }
        }

        return data;
    }

    /// <summary>How a test program's lambdas are shaped: a list-shaped split and merge, or a binary program.</summary>
    public enum ProgramForm
    {
        /// <summary><see cref="DivideAndConquer.Create{TProblem, TResult}(Func{TProblem, int, bool}, Func{TProblem, int, IReadOnlyList{TProblem}}, Func{TProblem, int, TResult}, Func{TProblem, IReadOnlyList{TResult}, int, TResult}, DivideAndConquerOptions?, Granularity?)"/>.</summary>
        List,

        /// <summary><see cref="DivideAndConquer.CreateBinary{TProblem, TResult}"/> (its own allocation-free inline recursion).</summary>
        Binary,
    }

    public enum FailingPhase
    {
        ShouldSplit,
        Split,
        Execute,
        Merge,
    }

    [Theory]
    [MemberData(nameof(EnginesAndGranularities))]
    public async Task Task_and_inline_node_counts_add_up_to_the_tree(ExecutionEngine engine, GranularityChoice choice)
    {
        var phases = new PhaseAggregator();
        var program = Workloads.SumLambda(leafSize: 4);
        program.Granularity = Choose(choice);
        var range = new IndexRange(0, Length);

        long sum = await program.RunAsync(range, DivideAndConquerOptions.Default with { Engine = engine, Observer = phases }).Bounded();

        Assert.Equal(Workloads.SequentialSum(range), sum);
        long nodes = phases.TotalCount(DivideAndConquerPhase.Split) + phases.TotalCount(DivideAndConquerPhase.Execute);
        Assert.Equal((2 * (Length / 4)) - 1, nodes);
        Assert.Equal(nodes, phases.TaskNodes + phases.InlineNodes);
        switch (choice)
        {
            case GranularityChoice.EveryNodeATask:
                Assert.Equal(0, phases.InlineNodes);
                break;
            case GranularityChoice.Sequential:
                Assert.Equal(1, phases.TaskNodes);
                break;
            case GranularityChoice.Depth2:
                Assert.Equal(1 + 2 + 4, phases.TaskNodes);
                break;
        }
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task Automatic_granularity_inlines_subtrees_once_it_has_measured_one(ExecutionEngine engine)
    {
        // Bounds of 30 s: every measured subtree is far below them, so every node decided after the first
        // measurement runs inline. What is learned, not how fast anything ran, decides this.
        var phases = new PhaseAggregator();
        var program = Workloads.SumLambda(leafSize: 4);
        program.Granularity = Granularity.Automatic(TimeSpan.FromSeconds(30), TimeSpan.FromSeconds(30));

        await program.RunAsync(new IndexRange(0, Length), DivideAndConquerOptions.Default with { Engine = engine, Observer = phases }).Bounded();

        Assert.True(phases.InlineNodes > 0, $"task nodes {phases.TaskNodes}, inline nodes {phases.InlineNodes}");
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task A_granular_program_keeps_splitting_leaves_predicted_longer_than_the_upper_bound(ExecutionEngine engine)
    {
        // Every leaf sleeps at least 1 ms whatever its size, so after four leaves the cheapest cost per element is at
        // least 1 ms / 125 and every problem of 2 or more elements is predicted above the 1 us bound: the leaf-count
        // floor (8 leaves of 125 on 2 workers) is split further, down to single elements.
        using var two = new CountingTaskScheduler(2, allowInlining: true);
        var program = new SleepingSum { Granularity = Granularity.Automatic(TimeSpan.Zero, TimeSpan.FromMicroseconds(1)) };
        var range = new IndexRange(0, 1000);

        long sum = await program.RunAsync(range, DivideAndConquerOptions.Default with { Engine = engine, Scheduler = two }).Bounded();

        Assert.Equal(Workloads.SequentialSum(range), sum);
        Assert.Equal(125, program.EffectiveGranularity);
        Assert.Contains(1, program.LeafSizes);
        Assert.All(program.LeafSizes, size => Assert.True(size <= 125, $"leaf of {size}"));
    }

    [Fact]
    public async Task An_instance_s_first_run_probes_with_small_leaves_and_its_next_run_predicts_from_the_first()
    {
        // 2^16 elements on 2 workers: the leaf-count floor is 8 leaves of 8192. With nothing to predict from, the
        // first leaves are probes of at most 8192 / 64 = 128: each of the first four leaves to start was decided
        // before four leaves had finished. The next run of the same instance predicts from what the first measured
        // (a sum of 8192 elements takes microseconds, far below the 1 ms bound), so it does not probe.
        using var two = new CountingTaskScheduler(2, allowInlining: true);
        var program = new OrderedLeaves { Granularity = Granularity.Automatic(TimeSpan.Zero, Granularity.DefaultMaximumTaskDuration) };
        var range = new IndexRange(0, 1 << 16);
        var options = DivideAndConquerOptions.Default with { Scheduler = two };

        Assert.Equal(Workloads.SequentialSum(range), await program.RunAsync(range, options).Bounded());
        Assert.Equal(8192, program.EffectiveGranularity);
        int[] first = program.TakeLeafSizes();
        Assert.All(first.Take(4), size => Assert.True(size <= 8192 / GranularDivideAndConquer<IndexRange, long>.ProbeDivisor, $"probe leaf of {size}"));

        Assert.Equal(Workloads.SequentialSum(range), await program.RunAsync(range, options).Bounded());
        int[] second = program.TakeLeafSizes();
        Assert.Equal(1 << 16, second.Sum());
        Assert.True(second.Any(size => size > 128), $"second run leaves: {second.Length}, largest {second.Max()}, first run leaves: {first.Length}, largest {first.Max()}");
    }

    [Fact]
    public void A_run_predicts_from_the_previous_run_until_it_has_measured_four_leaves_of_its_own()
    {
        var memory = new LeafCostMemory();
        var first = new CostEstimator(memory);
        Assert.True(first.IsLeafCostUnknown);
        Assert.Equal(CostEstimator.Unknown, first.PredictLeaf(50));
        for (int i = 0; i < CostEstimator.LeavesBeforePrediction; i++)
        {
            first.AddLeaf(100, 1000);   // 10 ticks per unit
        }

        Assert.Equal(10.0, memory.CostPerUnit);
        Assert.Equal(500, first.PredictLeaf(50));

        var second = new CostEstimator(memory);
        Assert.False(second.IsLeafCostUnknown);
        Assert.Equal(500, second.PredictLeaf(50));     // remembered, before any leaf of its own
        for (int i = 0; i < CostEstimator.LeavesBeforePrediction; i++)
        {
            second.AddLeaf(100, 2000);  // this run is slower: 20 ticks per unit
        }

        Assert.Equal(1000, second.PredictLeaf(50));
        Assert.Equal(20.0, memory.CostPerUnit);         // the last run's cheapest unit, not the cheapest ever

        Assert.True(new CostEstimator().IsLeafCostUnknown);
        memory.Remember(double.NaN);
        memory.Remember(0);
        Assert.Equal(20.0, memory.CostPerUnit);
    }

    [Fact]
    public async Task An_aggregator_sums_node_counts_over_runs_and_reset_clears_them()
    {
        var phases = new PhaseAggregator();
        var program = Workloads.SumLambda(leafSize: 4);
        program.Granularity = Granularity.Sequential;
        var options = DivideAndConquerOptions.Default with { Observer = phases };

        await program.RunAsync(new IndexRange(0, 64), options).Bounded();
        await program.RunAsync(new IndexRange(0, 64), options).Bounded();

        Assert.Equal(2, phases.TaskNodes);
        Assert.Equal(2 * 30, phases.InlineNodes);
        phases.Reset();
        Assert.Equal(0, phases.TaskNodes + phases.InlineNodes);
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation, ProgramForm.List)]
    [InlineData(ExecutionEngine.ForkJoin, ProgramForm.List)]
    [InlineData(ExecutionEngine.Continuation, ProgramForm.Binary)]
    [InlineData(ExecutionEngine.ForkJoin, ProgramForm.Binary)]
    public async Task An_inline_subtree_stops_at_the_next_node_after_cancellation(ExecutionEngine engine, ProgramForm form)
    {
        // The whole tree runs inline in the root's task: the 100th execute cancels, and no node starts after it.
        using var cancellation = new CancellationTokenSource();
        int executes = 0;
        var program = Halving(
            form,
            shouldSplit: (range, depth) => range.Length > 1,
            execute: (range, depth) =>
            {
                if (Interlocked.Increment(ref executes) == 100)
                {
                    cancellation.Cancel();
                }

                return range.Length;
            },
            merge: (range, left, right, depth) => left + right,
            granularity: Granularity.Sequential);

        var run = program.RunAsync(new IndexRange(0, 1024), DivideAndConquerOptions.Default with { Engine = engine }, cancellation.Token);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run.Bounded());
        Assert.True(run.IsCanceled);
        Assert.Equal(100, executes);
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation, ProgramForm.List)]
    [InlineData(ExecutionEngine.ForkJoin, ProgramForm.List)]
    [InlineData(ExecutionEngine.Continuation, ProgramForm.Binary)]
    [InlineData(ExecutionEngine.ForkJoin, ProgramForm.Binary)]
    public async Task A_failure_in_a_task_stops_inline_subtrees_elsewhere(ExecutionEngine engine, ProgramForm form)
    {
        // Tasks down to depth 1, inline below: the left subtree fails at once, the right one stops when it sees the
        // failure (at the latest when its own nodes check the stop flag) and the run faults with that exception.
        using var two = new CountingTaskScheduler(2, allowInlining: true);
        var failure = new InvalidProgramException("left");
        int rightExecutes = 0;
        var program = Halving(
            form,
            shouldSplit: (range, depth) => range.Length > 1,
            execute: (range, depth) =>
            {
                if (range.Start < 1 << 15)
                {
                    throw failure;
                }

                Interlocked.Increment(ref rightExecutes);
                Thread.SpinWait(2000);
                return range.Length;
            },
            merge: (range, left, right, depth) => left + right,
            granularity: Granularity.Depth(1));

        var error = await Assert.ThrowsAsync<InvalidProgramException>(
            () => program.RunAsync(new IndexRange(0, 1 << 16), DivideAndConquerOptions.Default with { Engine = engine, Scheduler = two }).Bounded());

        Assert.Same(failure, error);
        Assert.True(rightExecutes < 1 << 15, $"the right half ran all its {rightExecutes} leaves");
    }

    [Theory]
    [MemberData(nameof(FailureGrid))]
    public async Task An_exception_in_any_phase_faults_the_run_with_that_exception_inline_or_not(ExecutionEngine engine, GranularityChoice choice, FailingPhase phase, ProgramForm form)
    {
        var failure = new InvalidTimeZoneException(phase.ToString());
        bool Fails(IndexRange range, int depth) => depth == 3 && range.Start == 0;
        var program = Halving(
            form,
            shouldSplit: (range, depth) => phase == FailingPhase.ShouldSplit && Fails(range, depth) ? throw failure : range.Length > 4,
            execute: (range, depth) => phase == FailingPhase.Execute && range.Start == 0 ? throw failure : Workloads.SequentialSum(range),
            merge: (range, left, right, depth) => phase == FailingPhase.Merge && depth == 3 ? throw failure : left + right,
            granularity: Choose(choice),
            beforeSplit: (range, depth) =>
            {
                if (phase == FailingPhase.Split && Fails(range, depth))
                {
                    throw failure;
                }
            });

        var error = await Assert.ThrowsAsync<InvalidTimeZoneException>(
            () => program.RunAsync(new IndexRange(0, 256), DivideAndConquerOptions.Default with { Engine = engine }).Bounded());

        Assert.Same(failure, error);
    }

    [Theory]
    [MemberData(nameof(EnginesAndGranularities))]
    public async Task Merge_receives_the_problem_that_was_split(ExecutionEngine engine, GranularityChoice choice)
    {
        // Each merge adds its own range's length: the result is the summed length of every internal node's range.
        var options = DivideAndConquerOptions.Default with { Engine = engine };
        var lambda = DivideAndConquer.Create<IndexRange, long>(
            shouldSplit: (range, depth) => range.Length > 3,
            split: (range, depth) => range.Split(2),
            execute: (range, depth) => 0,
            merge: (range, parts, depth) => parts[0] + parts[1] + range.Length,
            granularity: Choose(choice));
        var subclass = new LengthOfInternalNodes { Granularity = Choose(choice) };
        var range = new IndexRange(5, 1005);

        Assert.Equal(SummedInternalLengths(range), await lambda.RunAsync(range, options).Bounded());
        Assert.Equal(SummedInternalLengths(range), await subclass.RunAsync(range, options).Bounded());

        static long SummedInternalLengths(IndexRange range) =>
            range.Length > 3 ? range.Length + range.Split(2).Sum(SummedInternalLengths) : 0;
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation, true)]
    [InlineData(ExecutionEngine.Continuation, false)]
    [InlineData(ExecutionEngine.ForkJoin, false)]
    public async Task Async_merge_receives_the_problem_that_was_split(ExecutionEngine engine, bool completesLater)
    {
        // As above, with an asynchronous split and merge (completing at once or later): each merge adds its
        // own range's length, and the lambda gets the very problem its node split.
        var options = DivideAndConquerOptions.Default with { Engine = engine };
        var program = DivideAndConquer.CreateAsync<IndexRange, long>(
            shouldSplit: (range, depth) => range.Length > 3,
            splitAsync: (range, depth, token) => new ValueTask<IReadOnlyList<IndexRange>>(range.Split(2)),
            execute: (range, depth) => 0,
            mergeAsync: async (range, parts, depth, token) =>
            {
                if (completesLater)
                {
                    // Completes on the thread pool. (Not with the fork-join engine: it blocks a worker per waiting
                    // merge, and hundreds of merges completing later starve the pool this continuation needs.)
                    await Task.Run(static () => { }, token).ConfigureAwait(false);
                }

                return parts[0] + parts[1] + range.Length;
            });
        var range = new IndexRange(5, 1005);

        Assert.Equal(SummedInternalLengths(range), await program.RunAsync(range, options).Bounded());

        static long SummedInternalLengths(IndexRange range) =>
            range.Length > 3 ? range.Length + range.Split(2).Sum(SummedInternalLengths) : 0;
    }

    [Fact]
    public async Task Async_merge_with_the_problem_faults_the_run_with_its_exception()
    {
        var failure = new InvalidTimeZoneException("merge");
        var program = DivideAndConquer.CreateAsync<IndexRange, long>(
            shouldSplit: (range, depth) => range.Length > 3,
            splitAsync: (range, depth, token) => new ValueTask<IReadOnlyList<IndexRange>>(range.Split(2)),
            execute: (range, depth) => range.Length,
            mergeAsync: (range, parts, depth, token) => range.Start == 0 && depth == 2 ? throw failure : new ValueTask<long>(parts[0] + parts[1]));

        var error = await Assert.ThrowsAsync<InvalidTimeZoneException>(() => program.RunAsync(new IndexRange(0, 64)).Bounded());

        Assert.Same(failure, error);
    }

    [Fact]
    public void A_program_that_overrides_no_merge_is_refused_when_it_runs()
    {
        var error = Assert.Throws<InvalidOperationException>(() => { _ = new NoMerge().RunAsync(1); });
        Assert.Contains("Merge", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation, GranularityChoice.EveryNodeATask)]
    [InlineData(ExecutionEngine.Continuation, GranularityChoice.AutomaticInlineAll)]
    [InlineData(ExecutionEngine.ForkJoin, GranularityChoice.EveryNodeATask)]
    [InlineData(ExecutionEngine.ForkJoin, GranularityChoice.AutomaticInlineAll)]
    public async Task A_split_whose_child_is_as_large_as_its_parent_ends_the_run(ExecutionEngine engine, GranularityChoice choice)
    {
        // The left half shrinks normally (so the run measures subtrees and may inline), the right half stops
        // shrinking at 8 elements.
        var program = new StuckSplit { Granularity = Choose(choice) };

        var error = await Assert.ThrowsAsync<InvalidOperationException>(
            () => program.RunAsync(new IndexRange(0, 4096), DivideAndConquerOptions.Default with { Engine = engine }).Bounded());

        Assert.Contains("smaller than its parent", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation, GranularityChoice.EveryNodeATask, ProgramForm.List)]
    [InlineData(ExecutionEngine.Continuation, GranularityChoice.Sequential, ProgramForm.List)]
    [InlineData(ExecutionEngine.ForkJoin, GranularityChoice.EveryNodeATask, ProgramForm.List)]
    [InlineData(ExecutionEngine.ForkJoin, GranularityChoice.Sequential, ProgramForm.List)]
    [InlineData(ExecutionEngine.Continuation, GranularityChoice.EveryNodeATask, ProgramForm.Binary)]
    [InlineData(ExecutionEngine.Continuation, GranularityChoice.Sequential, ProgramForm.Binary)]
    [InlineData(ExecutionEngine.ForkJoin, GranularityChoice.EveryNodeATask, ProgramForm.Binary)]
    [InlineData(ExecutionEngine.ForkJoin, GranularityChoice.Sequential, ProgramForm.Binary)]
    public async Task A_recursion_past_the_limit_ends_the_run(ExecutionEngine engine, GranularityChoice choice, ProgramForm form)
    {
        var program = EndlessRecursion(Choose(choice), form);

        var error = await Assert.ThrowsAsync<InvalidOperationException>(
            () => program.RunAsync(0, DivideAndConquerOptions.Default with { Engine = engine, RecursionLimit = 200 }).Bounded());

        Assert.Contains("RecursionLimit", error.Message, StringComparison.Ordinal);
        Assert.Contains("200", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task An_endless_inline_recursion_fails_the_run_instead_of_overflowing_the_stack(ExecutionEngine engine)
    {
        // The default limit (10,000 levels) inline on one thread: either the limit or the stack check ends it;
        // a stack overflow would end the test process instead.
        var program = EndlessRecursion(Granularity.Sequential);

        var error = await Assert.ThrowsAnyAsync<Exception>(
            () => program.RunAsync(0, DivideAndConquerOptions.Default with { Engine = engine }).Bounded());

        Assert.True(error is InvalidOperationException or InsufficientExecutionStackException, error.ToString());
    }

    [Fact]
    public void RecursionLimit_rejects_values_below_one()
    {
        var error = Assert.Throws<ArgumentOutOfRangeException>(() => DivideAndConquerOptions.Default with { RecursionLimit = 0 });
        Assert.Equal("value", error.ParamName);
        Assert.Equal(DivideAndConquerOptions.DefaultRecursionLimit, DivideAndConquerOptions.Default.RecursionLimit);
    }

    [Fact]
    public void Automatic_bounds_are_validated()
    {
        Assert.Equal("minimumTaskCost", Assert.Throws<ArgumentOutOfRangeException>(() => Granularity.Automatic(TimeSpan.FromTicks(-1), TimeSpan.FromMilliseconds(1))).ParamName);
        Assert.Equal("maximumTaskDuration", Assert.Throws<ArgumentOutOfRangeException>(() => Granularity.Automatic(TimeSpan.Zero, TimeSpan.Zero)).ParamName);
        Assert.Equal("maximumTaskDuration", Assert.Throws<ArgumentOutOfRangeException>(() => Granularity.Automatic(TimeSpan.FromMilliseconds(2), TimeSpan.FromMilliseconds(1))).ParamName);
        Assert.Equal("leavesPerWorker", Assert.Throws<ArgumentOutOfRangeException>(() => Granularity.Automatic(TimeSpan.Zero, TimeSpan.FromMilliseconds(1), 0)).ParamName);
        Assert.Equal("maximumTaskDuration", Assert.Throws<ArgumentOutOfRangeException>(() => Granularity.Automatic(TimeSpan.Zero, TimeSpan.Zero, 4)).ParamName);
    }

    [Theory]
    [InlineData(4)]
    [InlineData(64)]
    public async Task The_leaf_count_floor_of_automatic_granularity_is_its_leaves_per_worker(int leavesPerWorker)
    {
        // On one worker, with inlining off and an upper bound no leaf reaches, a granular program's leaves are the
        // floor's: 4096 elements / (1 worker x leaves per worker). The first run probes with smaller leaves; the
        // second predicts from it, so its leaves are the floor's.
        using var one = new CountingTaskScheduler(1, allowInlining: true);
        var phases = new PhaseAggregator();
        var sum = MapReduce.CreateRanged<long>(
            mapRange: range => Workloads.SequentialSum(range),
            reduce: (left, right) => left + right,
            identity: 0,
            granularity: Granularity.Automatic(TimeSpan.Zero, TimeSpan.FromHours(1), leavesPerWorker));
        var range = new IndexRange(0, 4096);
        var options = DivideAndConquerOptions.Default with { Scheduler = one };
        await sum.RunAsync(range, options).Bounded();

        long total = await sum.RunAsync(range, options with { Observer = phases }).Bounded();

        Assert.Equal(Workloads.SequentialSum(range), total);
        Assert.Equal(leavesPerWorker, phases.TotalCount(DivideAndConquerPhase.Execute));
    }

    private static DivideAndConquer<int, int> EndlessRecursion(Granularity granularity, ProgramForm form = ProgramForm.List) =>
        form == ProgramForm.List
            ? DivideAndConquer.Create<int, int>(
                shouldSplit: (n, depth) => true,
                split: (n, depth) => [n + 1],
                execute: (n, depth) => n,
                merge: (results, depth) => results[0],
                granularity: granularity)
            : DivideAndConquer.CreateBinary<int, int>(
                shouldSplit: (n, depth) => true,
                split: (n, depth) => (n + 1, n + 1),
                execute: (n, depth) => n,
                merge: (n, left, right, depth) => left,
                granularity: granularity);

    /// <summary>
    /// A program over index ranges that halves a range as <see cref="IndexRange.Split"/> does (the first half gets the
    /// odd element), written in the given form from the same functions; <paramref name="beforeSplit"/> runs before
    /// each split (a test's hook).
    /// </summary>
    internal static DivideAndConquer<IndexRange, long> Halving(
        ProgramForm form,
        Func<IndexRange, int, bool> shouldSplit,
        Func<IndexRange, int, long> execute,
        Func<IndexRange, long, long, int, long> merge,
        Granularity granularity,
        Action<IndexRange, int>? beforeSplit = null) =>
        form == ProgramForm.List
            ? DivideAndConquer.Create<IndexRange, long>(
                shouldSplit,
                split: (range, depth) =>
                {
                    beforeSplit?.Invoke(range, depth);
                    return range.Split(2);
                },
                execute,
                merge: (range, parts, depth) => merge(range, parts[0], parts[1], depth),
                granularity: granularity)
            : DivideAndConquer.CreateBinary<IndexRange, long>(
                shouldSplit,
                split: (range, depth) =>
                {
                    beforeSplit?.Invoke(range, depth);
                    var halves = range.Split(2);
                    return (halves[0], halves[1]);
                },
                execute,
                merge,
                granularity: granularity);

    /// <summary>The subclass form of the merge that receives its problem.</summary>
    private sealed class LengthOfInternalNodes : DivideAndConquer<IndexRange, long>
    {
        protected override bool ShouldSplit(IndexRange problem, int depth) => problem.Length > 3;

        protected override IReadOnlyList<IndexRange> Split(IndexRange problem, int depth) => problem.Split(2);

        protected override long Execute(IndexRange problem, int depth) => 0;

        protected override long Merge(IndexRange problem, IReadOnlyList<long> subresults, int depth) =>
            subresults[0] + subresults[1] + problem.Length;
    }

    /// <summary>Overrides neither merge.</summary>
    private sealed class NoMerge : DivideAndConquer<int, int>
    {
        protected override bool ShouldSplit(int problem, int depth) => false;

        protected override IReadOnlyList<int> Split(int problem, int depth) => [problem];

        protected override int Execute(int problem, int depth) => problem;
    }

    /// <summary>A granular sum whose leaves sleep at least 1 ms, recording their sizes.</summary>
    private sealed class SleepingSum : GranularDivideAndConquer<IndexRange, long>
    {
        private readonly System.Collections.Concurrent.ConcurrentBag<int> _leafSizes = [];

        public int[] LeafSizes => [.. _leafSizes];

        protected override long GetSize(IndexRange problem) => problem.Length;

        protected override IReadOnlyList<IndexRange> Split(IndexRange problem, int depth) => problem.Split(2);

        protected override long Execute(IndexRange problem, int depth)
        {
            Thread.Sleep(1);
            _leafSizes.Add(problem.Length);
            return Workloads.SequentialSum(problem);
        }

        protected override long Merge(IReadOnlyList<long> subresults, int depth) => subresults.Sum();
    }

    /// <summary>A granular sum that records its leaves' sizes in the order they start.</summary>
    private sealed class OrderedLeaves : GranularDivideAndConquer<IndexRange, long>
    {
        private System.Collections.Concurrent.ConcurrentQueue<int> _leafSizes = new();

        public int[] TakeLeafSizes() => [.. Interlocked.Exchange(ref _leafSizes, new())];

        protected override long GetSize(IndexRange problem) => problem.Length;

        protected override IReadOnlyList<IndexRange> Split(IndexRange problem, int depth) => problem.Split(2);

        protected override long Execute(IndexRange problem, int depth)
        {
            Volatile.Read(ref _leafSizes).Enqueue(problem.Length);
            return Workloads.SequentialSum(problem);
        }

        protected override long Merge(IReadOnlyList<long> subresults, int depth) => subresults.Sum();
    }

    /// <summary>A granular program whose split stops shrinking the right half at 8 elements.</summary>
    private sealed class StuckSplit : GranularDivideAndConquer<IndexRange, long>
    {
        protected override long GetSize(IndexRange problem) => problem.Length;

        protected override bool ShouldSplit(IndexRange problem, int depth) => problem.Length > 1;

        protected override IReadOnlyList<IndexRange> Split(IndexRange problem, int depth) =>
            problem.Length <= 8 && problem.Start >= 2048 ? [problem] : problem.Split(2);

        protected override long Execute(IndexRange problem, int depth) => problem.Length;

        protected override long Merge(IReadOnlyList<long> subresults, int depth) => subresults.Sum();
    }
}
