using DivCon.Skeletons.Tests.Infrastructure;

namespace DivCon.Skeletons.Tests;

/// <summary>
/// The continuation engine never blocks a thread; the fork-join engine does, and starves a one-worker scheduler
/// that refuses inlining. Deterministic: no timing, only states that cannot change by themselves.
/// </summary>
[Collection(nameof(DedicatedThreadTests))]
public sealed class NonBlockingTests
{
    private const int TreeDepth = 12;
    private const int Leaves = 1 << TreeDepth;

    [Fact]
    public async Task Continuation_engine_completes_a_4096_leaf_tree_on_one_worker_without_any_task_waiting()
    {
        // One worker, no inlining: a task that waited for another task of the run would hold the only thread, and
        // the task it waits for could never run. So completing at all proves no task of the run waited for another.
        using var scheduler = new CountingTaskScheduler(1, allowInlining: false);
        int executes = 0;
        int executesOffTheWorker = 0;
        var program = CompleteBinaryTree(onExecute: () =>
        {
            Interlocked.Increment(ref executes);
            if (!scheduler.IsCurrentThreadAWorker)
            {
                Interlocked.Increment(ref executesOffTheWorker);
            }
        });

        long leaves = await program.RunAsync(new IndexRange(0, Leaves), DivideAndConquerOptions.Default with { Scheduler = scheduler }).Bounded();

        Assert.Equal(Leaves, leaves);
        Assert.Equal(Leaves, executes);
        Assert.Equal(0, executesOffTheWorker);
        // No thread ever asked to run a task inline, which is what Task.Wait/Result on an unfinished task does.
        Assert.Equal(0, scheduler.InlineRequestCount);
        // Every node ran as its own scheduler task: one per leaf, plus a split task and a merge task per internal node.
        // The scheduler counts a task after it returns, and the root merge completes the run from inside its task,
        // so the last count can land just after this await resumes: wait for it (bounded) before comparing.
        const long expectedTasks = Leaves + (2 * (Leaves - 1));
        SpinWait.SpinUntil(() => scheduler.ExecutedCount >= expectedTasks, TimeSpan.FromSeconds(10));
        Assert.Equal(expectedTasks, scheduler.ExecutedCount);
    }

    [Fact]
    public async Task Fork_join_engine_waits_inside_tasks_where_the_continuation_engine_does_not()
    {
        // The same check as above, on a scheduler that allows inlining (so fork-join can finish): fork-join's
        // waits show up as inline requests; the continuation engine's run has none.
        using var forkJoinScheduler = new CountingTaskScheduler(1, allowInlining: true);
        using var continuationScheduler = new CountingTaskScheduler(1, allowInlining: true);
        var program = CompleteBinaryTree(onExecute: static () => { });
        var range = new IndexRange(0, 64);

        await program.RunAsync(range, DivideAndConquerOptions.Default with { Scheduler = forkJoinScheduler, Engine = ExecutionEngine.ForkJoin }).Bounded();
        await program.RunAsync(range, DivideAndConquerOptions.Default with { Scheduler = continuationScheduler }).Bounded();

        Assert.True(forkJoinScheduler.InlineRequestCount >= 63, $"fork-join inline requests: {forkJoinScheduler.InlineRequestCount}");
        Assert.Equal(0, continuationScheduler.InlineRequestCount);
    }

    [Fact]
    public async Task Fork_join_starves_a_one_worker_scheduler_that_refuses_inlining_until_cancelled()
    {
        using var scheduler = new CountingTaskScheduler(1, allowInlining: false);
        using var cancellation = new CancellationTokenSource();
        int executes = 0;
        var program = CompleteBinaryTree(onExecute: () => Interlocked.Increment(ref executes));

        var run = program.RunAsync(new IndexRange(0, 2), DivideAndConquerOptions.Default with { Scheduler = scheduler, Engine = ExecutionEngine.ForkJoin }, cancellation.Token);

        // The root task occupies the only worker and is blocked (WaitSleepJoin inside a task) while its children sit
        // in the queue. Nothing can change this state: the only thread that could run a child is the one waiting
        // for it. (SpinUntil only bounds how long we wait to observe it.)
        Assert.True(TestTimeouts.SpinUntil(scheduler.IsStarved), "the fork-join run never reached the starved state");
        Assert.True(scheduler.QueuedCount >= 1);
        Assert.Equal(1, scheduler.BusyWorkerCount);
        Assert.Equal(0, Volatile.Read(ref executes));
        Assert.False(run.IsCompleted);

        // Cancelling releases the wait; the queued children then run, see the cancellation and do nothing.
        await cancellation.CancelAsync();
        var canceled = await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run.Bounded());
        Assert.Equal(cancellation.Token, canceled.CancellationToken);
        Assert.True(run.IsCanceled);
        Assert.Equal(0, Volatile.Read(ref executes));
        Assert.True(TestTimeouts.SpinUntil(() => scheduler.IsIdle));

        // The continuation engine completes the same problem on the same scheduler.
        long leaves = await program.RunAsync(new IndexRange(0, 2), DivideAndConquerOptions.Default with { Scheduler = scheduler }).Bounded();
        Assert.Equal(2, leaves);
        Assert.Equal(2, Volatile.Read(ref executes));
    }

    [Fact]
    public async Task Fork_join_starves_a_two_worker_scheduler_once_both_workers_wait()
    {
        using var scheduler = new CountingTaskScheduler(2, allowInlining: false);
        using var cancellation = new CancellationTokenSource();
        var program = CompleteBinaryTree(onExecute: static () => { });

        // A depth-3 tree: the root and a child (or two children) block both workers; grandchildren stay queued.
        var run = program.RunAsync(new IndexRange(0, 8), DivideAndConquerOptions.Default with { Scheduler = scheduler, Engine = ExecutionEngine.ForkJoin }, cancellation.Token);

        Assert.True(TestTimeouts.SpinUntil(scheduler.IsStarved), "the fork-join run never starved the two workers");
        Assert.False(run.IsCompleted);

        await cancellation.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run.Bounded());
    }

    [Fact]
    public async Task Fork_join_blocking_on_an_async_split_that_continues_on_the_same_scheduler_starves_it()
    {
        // The root's split yields: its continuation is queued to the only worker, which the fork-join root blocks
        // while waiting for that very split. The continuation engine runs the same program on the same scheduler.
        using var scheduler = new CountingTaskScheduler(1, allowInlining: true);
        using var cancellation = new CancellationTokenSource();
        int executes = 0;
        var program = DivideAndConquer.CreateAsync<int, int>(
            (n, depth) => depth == 0,
            async (n, depth, token) =>
            {
                await Task.Yield();
                return [1, 2];
            },
            (n, depth) => Interlocked.Increment(ref executes) > 0 ? n : 0,
            (results, depth, token) => new ValueTask<int>(results[0] + results[1]));

        var stuck = program.RunAsync(0, DivideAndConquerOptions.Default with { Scheduler = scheduler, Engine = ExecutionEngine.ForkJoin }, cancellation.Token);

        Assert.True(TestTimeouts.SpinUntil(scheduler.IsStarved), "fork-join never blocked on its own split");
        Assert.Equal(1, scheduler.QueuedCount); // the split's continuation, not children: none was spawned
        Assert.Equal(0, Volatile.Read(ref executes));
        Assert.False(stuck.IsCompleted);

        // Cancelling releases the blocked wait; the run ends Canceled.
        await cancellation.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => stuck.Bounded());
        Assert.True(TestTimeouts.SpinUntil(() => scheduler.IsIdle));

        Assert.Equal(3, await program.RunAsync(0, DivideAndConquerOptions.Default with { Scheduler = scheduler }).Bounded());
        Assert.Equal(2, Volatile.Read(ref executes));
    }

    /// <summary>A complete binary tree over a range of leaves: each leaf returns 1, so the result counts leaves.</summary>
    /// <summary>A complete binary tree whose every node is a task (these tests count tasks and waits per node).</summary>
    internal static DivideAndConquer<IndexRange, long> CompleteBinaryTree(Action onExecute) =>
        DivideAndConquer.Create<IndexRange, long>(
            shouldSplit: (range, depth) => range.Length > 1,
            split: (range, depth) => range.Split(2),
            execute: (range, depth) =>
            {
                onExecute();
                return range.Length;
            },
            merge: (counts, depth) => counts[0] + counts[1],
            granularity: Granularity.EveryNodeATask);
}
