using DivCon.Skeletons.Tests.Infrastructure;

namespace DivCon.Skeletons.Tests;

/// <summary>Cancellation stops splitting, spawning and executing promptly and ends the run Canceled with the run's token.</summary>
public sealed class CancellationTests
{
    private const int Leaves = 4096;

    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task An_already_cancelled_token_returns_a_cancelled_task_without_calling_the_program(ExecutionEngine engine)
    {
        using var cancellation = new CancellationTokenSource();
        await cancellation.CancelAsync();
        int calls = 0;
        var program = DivideAndConquer.Create<int, int>(
            (n, depth) => Interlocked.Increment(ref calls) < 0,
            (n, depth) => [Interlocked.Increment(ref calls)],
            (n, depth) => Interlocked.Increment(ref calls),
            (results, depth) => Interlocked.Increment(ref calls));

        var run = program.RunAsync(1, DivideAndConquerOptions.Default with { Engine = engine }, cancellation.Token);

        Assert.True(run.IsCanceled);
        var canceled = await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run);
        Assert.Equal(cancellation.Token, canceled.CancellationToken);
        Assert.Equal(0, calls);
    }

    [Fact]
    public async Task An_already_cancelled_token_does_not_claim_a_granular_program()
    {
        using var cancellation = new CancellationTokenSource();
        await cancellation.CancelAsync();
        var sum = MapReduce.Create<long>(i => i, (a, b) => a + b, 0);

        Assert.True(sum.RunAsync(new IndexRange(0, 10), cancellation.Token).IsCanceled);
        Assert.Equal(45, await sum.RunAsync(new IndexRange(0, 10)).Bounded());
    }

    [Fact]
    public async Task Cancelling_during_a_run_stops_executing_and_ends_Canceled()
    {
        // One worker, FIFO: the tree unfolds breadth-first, so all 4096 leaves are queued before the first runs. The
        // 10th execute cancels; every later node sees the token before executing and does nothing.
        using var scheduler = new CountingTaskScheduler(1, allowInlining: true);
        using var cancellation = new CancellationTokenSource();
        int executes = 0;
        var program = NonBlockingTests.CompleteBinaryTree(() =>
        {
            if (Interlocked.Increment(ref executes) == 10)
            {
                cancellation.Cancel();
            }
        });

        var run = program.RunAsync(new IndexRange(0, Leaves), DivideAndConquerOptions.Default with { Scheduler = scheduler }, cancellation.Token);

        var canceled = await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run.Bounded());
        Assert.True(run.IsCanceled);
        Assert.Equal(cancellation.Token, canceled.CancellationToken);
        Assert.Equal(10, Volatile.Read(ref executes));
        Assert.True(TestTimeouts.SpinUntil(() => scheduler.IsIdle));
    }

    [Fact]
    public async Task Cancelling_a_fork_join_run_releases_its_blocked_waits_and_ends_Canceled()
    {
        // With a cancellable token fork-join waits are never inlined, so every blocked parent holds a thread. Every
        // leaf blocks on a gate too, so every one of the 127 tasks of a 64-leaf tree blocks: the 72 threads all end
        // up blocked with tasks still queued (starved), and nothing can run until the cancellation releases the
        // waits. The gate opens only after cancelling, so no leaf that had not started by then executes.
        // (Cancelling from inside the 10th leaf instead raced with the other leaves: a canceller delayed on a loaded
        // machine, or by Mono's first-call compilation, let dozens more leaves pass their check and execute.)
        using var scheduler = new CountingTaskScheduler(72, allowInlining: false, "wide");
        using var cancellation = new CancellationTokenSource();
        using var gate = new ManualResetEventSlim();
        int executes = 0;
        var program = NonBlockingTests.CompleteBinaryTree(() =>
        {
            Interlocked.Increment(ref executes);
            gate.Wait(TestTimeouts.Generous);
        });

        var run = program.RunAsync(new IndexRange(0, 64), DivideAndConquerOptions.Default with { Scheduler = scheduler, Engine = ExecutionEngine.ForkJoin }, cancellation.Token);

        Assert.True(TestTimeouts.SpinUntil(scheduler.IsStarved), "The tree never blocked every thread.");
        int started = Volatile.Read(ref executes);
        Assert.False(run.IsCompleted);
        await cancellation.CancelAsync();
        gate.Set();

        var canceled = await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run.Bounded());
        Assert.True(run.IsCanceled);
        Assert.Equal(cancellation.Token, canceled.CancellationToken);
        // 72 threads cannot hold all 64 leaves and their 63 ancestors, so some leaves were still queued.
        Assert.InRange(started, 1, 63);
        Assert.Equal(started, Volatile.Read(ref executes));
        Assert.True(TestTimeouts.SpinUntil(() => scheduler.IsIdle));
    }

    [Fact]
    public async Task Cancelling_while_the_tree_unfolds_stops_spawning_children()
    {
        // Cancel from the 8th split on one worker: the splits that follow spawn nothing, so far fewer tasks run than
        // the 3 * 4096 a full run needs.
        using var scheduler = new CountingTaskScheduler(1, allowInlining: false);
        using var cancellation = new CancellationTokenSource();
        int splits = 0;
        var program = DivideAndConquer.Create<IndexRange, long>(
            (range, depth) => range.Length > 1,
            (range, depth) =>
            {
                if (Interlocked.Increment(ref splits) == 8)
                {
                    cancellation.Cancel();
                }

                return range.Split(2);
            },
            (range, depth) => 1,
            (counts, depth) => counts.Sum());

        var run = program.RunAsync(new IndexRange(0, Leaves), DivideAndConquerOptions.Default with { Scheduler = scheduler }, cancellation.Token);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run.Bounded());
        Assert.Equal(8, splits);
        Assert.True(scheduler.ExecutedCount < 40, $"{scheduler.ExecutedCount} tasks ran after cancelling early");
    }

    [Fact]
    public async Task Cancelling_on_the_thread_pool_stops_the_run_early()
    {
        using var cancellation = new CancellationTokenSource();
        int executes = 0;
        var program = NonBlockingTests.CompleteBinaryTree(() =>
        {
            if (Interlocked.Increment(ref executes) == 10)
            {
                cancellation.Cancel();
            }
        });

        var run = program.RunAsync(new IndexRange(0, 1 << 16), cancellation.Token);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run.Bounded());
        Assert.True(executes < (1 << 15), $"{executes} of {1 << 16} leaves executed");
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task Program_code_that_throws_for_the_runs_token_cancels_the_run(ExecutionEngine engine)
    {
        using var cancellation = new CancellationTokenSource();
        var program = DivideAndConquer.Create<int, int>(
            (n, depth) => false,
            (n, depth) => [n],
            (n, depth) =>
            {
                cancellation.Cancel();
                cancellation.Token.ThrowIfCancellationRequested();
                return n;
            },
            (results, depth) => results[0]);

        var run = program.RunAsync(1, DivideAndConquerOptions.Default with { Engine = engine }, cancellation.Token);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run.Bounded());
        Assert.True(run.IsCanceled);
    }

    [Fact]
    public async Task An_OperationCanceledException_for_another_token_is_a_fault()
    {
        using var other = new CancellationTokenSource();
        await other.CancelAsync();
        var program = DivideAndConquer.Create<int, int>(
            (n, depth) => false,
            (n, depth) => [n],
            (n, depth) => { other.Token.ThrowIfCancellationRequested(); return n; },
            (results, depth) => results[0]);

        var run = program.RunAsync(1);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run.Bounded());
        Assert.True(run.IsFaulted);
    }

    [Fact]
    public async Task An_async_merge_cancelled_with_the_runs_token_cancels_the_run()
    {
        using var cancellation = new CancellationTokenSource();
        var program = DivideAndConquer.CreateAsync<int, int>(
            (n, depth) => depth == 0,
            (n, depth, token) => new ValueTask<IReadOnlyList<int>>([1, 2]),
            (n, depth) => n,
            async (results, depth, token) =>
            {
                await Task.Yield();
                cancellation.Cancel();
                token.ThrowIfCancellationRequested();
                return 0;
            });

        var run = program.RunAsync(0, cancellation.Token);

        var canceled = await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run.Bounded());
        Assert.True(run.IsCanceled);
        Assert.Equal(cancellation.Token, canceled.CancellationToken);
    }
}
