using DivCon.Skeletons.Tests.Infrastructure;

namespace DivCon.Skeletons.Tests;

/// <summary>A failure in any user function faults the run with that very exception, after the run has quiesced.</summary>
public sealed class ExceptionTests
{
    private const int WideThreads = 72;

    public enum FailingPhase
    {
        ShouldSplit,
        Split,
        Execute,
        Merge,
        SplitAsync,
        MergeAsync,
        SplitAsyncLater,
        MergeAsyncLater,
    }

    public static TheoryData<FailingPhase, ExecutionEngine> Phases()
    {
        var data = new TheoryData<FailingPhase, ExecutionEngine>();
        foreach (var phase in Enum.GetValues<FailingPhase>())
        {
            foreach (var engine in Enum.GetValues<ExecutionEngine>())
            {
                data.Add(phase, engine);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Phases))]
    public async Task The_same_exception_instance_surfaces_and_the_scheduler_stays_healthy(FailingPhase phase, ExecutionEngine engine)
    {
        using var scheduler = new CountingTaskScheduler(2, allowInlining: true);
        var boom = new InvalidTimeZoneException($"boom in {phase}");
        var program = FailingTree(phase, boom);
        // Fork-join blocks a thread on an unfinished asynchronous split or merge, whose continuation (Task.Yield's)
        // needs another thread of the same scheduler: those cases get a thread per node (64 leaves, 63 internal).
        bool blocksPerNode = engine == ExecutionEngine.ForkJoin && phase is FailingPhase.SplitAsyncLater or FailingPhase.MergeAsyncLater;
        using var wide = blocksPerNode ? new CountingTaskScheduler(WideThreads, allowInlining: true, "wide") : null;
        var options = DivideAndConquerOptions.Default with { Scheduler = wide ?? scheduler, Engine = engine };

        var run = program.RunAsync(new IndexRange(0, 64), options);

        var thrown = await Assert.ThrowsAsync<InvalidTimeZoneException>(() => run.Bounded());
        Assert.Same(boom, thrown);
        Assert.True(run.IsFaulted);
        Assert.Same(boom, Assert.Single(run.Exception!.InnerExceptions));

        // The scheduler still runs work, and the same program object runs again once nothing throws.
        long leaves = await NonBlockingTests.CompleteBinaryTree(static () => { }).RunAsync(new IndexRange(0, 64), options).Bounded();
        Assert.Equal(64, leaves);
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task The_run_completes_only_after_every_task_of_it_finished(ExecutionEngine engine)
    {
        using var scheduler = new CountingTaskScheduler(2, allowInlining: true);
        var boom = new InvalidTimeZoneException("first leaf fails");
        Task<long>? run = null;
        int inFlight = 0;
        int startedAfterCompletion = 0;
        int executes = 0;

        void Enter()
        {
            if (Volatile.Read(ref run) is { IsCompleted: true })
            {
                Interlocked.Increment(ref startedAfterCompletion);
            }

            Interlocked.Increment(ref inFlight);
        }

        var program = DivideAndConquer.Create<IndexRange, long>(
            shouldSplit: (range, depth) => { Enter(); try { return range.Length > 1; } finally { Interlocked.Decrement(ref inFlight); } },
            split: (range, depth) => { Enter(); try { return range.Split(2); } finally { Interlocked.Decrement(ref inFlight); } },
            execute: (range, depth) =>
            {
                Enter();
                try
                {
                    Interlocked.Increment(ref executes);
                    if (range.Start == 100)
                    {
                        throw boom;
                    }

                    return Spin(20_000);
                }
                finally
                {
                    Interlocked.Decrement(ref inFlight);
                }
            },
            merge: (results, depth) => { Enter(); try { return results[0] + results[1]; } finally { Interlocked.Decrement(ref inFlight); } });

        Volatile.Write(ref run, program.RunAsync(new IndexRange(0, 256), DivideAndConquerOptions.Default with { Scheduler = scheduler, Engine = engine }));
        var thrown = await Assert.ThrowsAsync<InvalidTimeZoneException>(() => run!.Bounded());

        Assert.Same(boom, thrown);
        Assert.Equal(0, Volatile.Read(ref inFlight));
        Assert.True(TestTimeouts.SpinUntil(() => scheduler.IsIdle));
        Assert.Equal(0, Volatile.Read(ref startedAfterCompletion));
        Assert.True(executes < 256, $"{executes} executes: the failure should have stopped the run");
    }

    [Fact]
    public async Task The_first_exception_wins()
    {
        // One worker, FIFO: leaf [0,1) runs before leaf [1,2).
        using var scheduler = new CountingTaskScheduler(1, allowInlining: false);
        var first = new InvalidTimeZoneException("first");
        var second = new InvalidTimeZoneException("second");
        var program = DivideAndConquer.Create<IndexRange, long>(
            (range, depth) => range.Length > 1,
            (range, depth) => range.Split(2),
            (range, depth) => throw (range.Start == 0 ? first : second),
            (results, depth) => results.Sum());

        var run = program.RunAsync(new IndexRange(0, 2), DivideAndConquerOptions.Default with { Scheduler = scheduler });

        Assert.Same(first, await Assert.ThrowsAsync<InvalidTimeZoneException>(() => run.Bounded()));
        Assert.Same(first, Assert.Single(run.Exception!.InnerExceptions));
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task An_observer_that_throws_fails_the_run(ExecutionEngine engine)
    {
        var boom = new InvalidTimeZoneException("observer");
        var observer = new ThrowingObserver(DivideAndConquerPhase.Merge, boom);

        var run = Workloads.SumLambda(10).RunAsync(new IndexRange(0, 100), DivideAndConquerOptions.Default with { Observer = observer, Engine = engine });

        Assert.Same(boom, await Assert.ThrowsAsync<InvalidTimeZoneException>(() => run.Bounded()));
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation, true)]
    [InlineData(ExecutionEngine.Continuation, false)]
    [InlineData(ExecutionEngine.ForkJoin, true)]
    [InlineData(ExecutionEngine.ForkJoin, false)]
    public async Task Split_returning_null_or_empty_faults_the_run_with_InvalidOperationException(ExecutionEngine engine, bool returnNull)
    {
        var program = DivideAndConquer.Create<int, int>(
            (n, depth) => depth == 0,
            (n, depth) => returnNull ? null! : Array.Empty<int>(),
            (n, depth) => n,
            (results, depth) => results.Sum());

        var run = program.RunAsync(1, DivideAndConquerOptions.Default with { Engine = engine });

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => run.Bounded());
        Assert.Contains(returnNull ? "null" : "no subproblems", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task A_scheduler_that_refuses_the_root_task_faults_the_run_and_releases_a_granular_program(ExecutionEngine engine)
    {
        var scheduler = new CountingTaskScheduler(1, allowInlining: false);
        scheduler.Dispose(); // QueueTask now throws
        var sum = MapReduce.Create<long>(i => i, (a, b) => a + b, 0);

        var run = sum.RunAsync(new IndexRange(0, 100), DivideAndConquerOptions.Default with { Scheduler = scheduler, Engine = engine });

        await Assert.ThrowsAsync<TaskSchedulerException>(() => run.Bounded());
        Assert.Equal(4950, await sum.RunAsync(new IndexRange(0, 100)).Bounded());
    }

    private static long Spin(int iterations)
    {
        long x = 1;
        for (int i = 0; i < iterations; i++)
        {
            x = (x * 6364136223846793005L) + 1442695040888963407L;
        }

        return (x & 1) + 1;
    }

    /// <summary>A 64-leaf binary tree whose <paramref name="phase"/> throws <paramref name="boom"/> at one node of depth 2.</summary>
    private static DivideAndConquer<IndexRange, long> FailingTree(FailingPhase phase, Exception boom)
    {
        bool IsVictim(IndexRange range, int depth) => depth == 2 && range.Start == 16;

        bool ShouldSplit(IndexRange range, int depth) =>
            phase == FailingPhase.ShouldSplit && IsVictim(range, depth) ? throw boom : range.Length > 1;

        long Execute(IndexRange range, int depth) =>
            phase == FailingPhase.Execute && range.Start == 37 ? throw boom : (range.Start == 16 ? -16 : 0);

        IReadOnlyList<IndexRange> Split(IndexRange range, int depth) =>
            phase == FailingPhase.Split && IsVictim(range, depth) ? throw boom : range.Split(2);

        long Merge(IReadOnlyList<long> results, int depth) =>
            phase == FailingPhase.Merge && depth == 5 && results[0] == -16 ? throw boom : results[0] + results[1];

        switch (phase)
        {
            case FailingPhase.SplitAsync or FailingPhase.MergeAsync or FailingPhase.SplitAsyncLater or FailingPhase.MergeAsyncLater:
                bool later = phase is FailingPhase.SplitAsyncLater or FailingPhase.MergeAsyncLater;
                bool inSplit = phase is FailingPhase.SplitAsync or FailingPhase.SplitAsyncLater;
                return DivideAndConquer.CreateAsync<IndexRange, long>(
                    ShouldSplit,
                    async (range, depth, token) =>
                    {
                        if (later)
                        {
                            await Task.Yield();
                        }

                        return inSplit && IsVictim(range, depth) ? throw boom : range.Split(2);
                    },
                    Execute,
                    async (results, depth, token) =>
                    {
                        if (later)
                        {
                            await Task.Yield();
                        }

                        return !inSplit && depth == 5 && results[0] == -16 ? throw boom : results[0] + results[1];
                    });
            default:
                return DivideAndConquer.Create<IndexRange, long>(ShouldSplit, Split, Execute, Merge);
        }
    }

    private sealed class ThrowingObserver(DivideAndConquerPhase phase, Exception boom) : IDivideAndConquerObserver
    {
        public void OnPhase(DivideAndConquerPhase observed, int depth, long elapsedTicks)
        {
            if (observed == phase)
            {
                throw boom;
            }
        }
    }
}
