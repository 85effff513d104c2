using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Tests.Multiprogram.Mechanism;

namespace DivCon.Schedulers.Tests;

/// <summary>
/// The asynchronous disposal of every DivCon scheduler: it returns at once while a task still runs, refuses new
/// tasks from outside, runs every accepted task, and completes when the workers have exited; cancelling the wait
/// does not cancel the shutdown.
/// </summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class SchedulerDisposeAsyncTests
{
    public static TheoryData<SchedulerKind> Kinds => TestSchedulers.Kinds;

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public async Task DisposeAsync_does_not_block_runs_every_accepted_task_and_completes_when_the_workers_exit(SchedulerKind kind)
    {
        var scheduler = TestSchedulers.Create(kind, workers: 1);
        using var gate = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        int ran = 0;
        var blocker = scheduler.Start(() =>
        {
            started.Set();
            gate.Wait(TestSchedulers.Timeout);
        });
        Assert.True(started.Wait(TestSchedulers.Timeout));
        var queued = Enumerable.Range(0, 100).Select(_ => scheduler.Start(() => Interlocked.Increment(ref ran))).ToArray();

        // The only worker is held by the blocker: disposal cannot finish, and the call must not wait for it.
        Task disposal = scheduler.DisposeAsync().AsTask();
        Assert.False(disposal.IsCompleted);
        Assert.True(scheduler.IsDisposed);
        var refused = Assert.Throws<TaskSchedulerException>(() => _ = scheduler.Start(() => { }).Id);
        Assert.IsType<ObjectDisposedException>(refused.InnerException);

        gate.Set();
        await disposal.WaitAsync(TestSchedulers.Timeout);
        Assert.Equal(100, Volatile.Read(ref ran));
        Assert.All(queued, t => Assert.True(t.IsCompletedSuccessfully));
        Assert.True(blocker.IsCompletedSuccessfully);
        Assert.False(scheduler.ShutdownTimedOut);
        Assert.All(scheduler.Pool.Workers, w => Assert.True(w.Thread.Join(TestSchedulers.Timeout)));
        await scheduler.DisposeAsync(); // A second call does nothing.
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public async Task Cancelling_ShutdownAsync_stops_the_wait_not_the_shutdown(SchedulerKind kind)
    {
        var scheduler = TestSchedulers.Create(kind, workers: 1);
        using var gate = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        var blocker = scheduler.Start(() =>
        {
            started.Set();
            gate.Wait(TestSchedulers.Timeout);
        });
        Assert.True(started.Wait(TestSchedulers.Timeout));
        var queued = scheduler.Start(() => { });
        using var cancellation = new CancellationTokenSource();

        Task waiting = scheduler.ShutdownAsync(cancellation.Token);
        await cancellation.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => waiting.WaitAsync(TestSchedulers.Timeout));

        gate.Set();
        await scheduler.ShutdownAsync().WaitAsync(TestSchedulers.Timeout);
        Assert.True(queued.IsCompletedSuccessfully);
        Assert.True(blocker.IsCompletedSuccessfully);
        Assert.False(scheduler.ShutdownTimedOut);
        scheduler.Dispose();
    }

    [Fact]
    public async Task A_program_and_the_multiprogram_scheduler_dispose_asynchronously()
    {
        var scheduler = MechanismSchedulers.Unpinned(2);
        ProgramTaskScheduler a = scheduler.Register("a");
        ProgramTaskScheduler b = scheduler.Register("b");
        using var gate = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        var blocker = a.Start(() =>
        {
            started.Set();
            gate.Wait(TestSchedulers.Timeout);
        });
        Assert.True(started.Wait(TestSchedulers.Timeout));

        Task leaving = a.DisposeAsync().AsTask();
        Assert.False(leaving.IsCompleted); // a's task still runs: a cannot have left
        Assert.True(a.IsDisposed);
        Assert.Throws<TaskSchedulerException>(() => _ = a.Start(() => { }).Id);
        b.Start(() => { }).AssertCompletes();

        Task disposing = scheduler.DisposeAsync().AsTask();
        Assert.False(disposing.IsCompleted);
        Assert.True(scheduler.IsDisposed);
        Assert.Throws<ObjectDisposedException>(() => scheduler.Register("late"));

        gate.Set();
        await Task.WhenAll(leaving, disposing).WaitAsync(TestSchedulers.Timeout);
        Assert.True(blocker.IsCompletedSuccessfully);
        Assert.True(a.Completion.IsCompletedSuccessfully);
        Assert.True(b.Completion.IsCompletedSuccessfully);
        Assert.False(scheduler.ShutdownTimedOut);
        Assert.All(scheduler.Pool.Workers, w => Assert.True(w.Thread.Join(TestSchedulers.Timeout)));
        await scheduler.ShutdownAsync().WaitAsync(TestSchedulers.Timeout); // Later calls wait for the same end.
    }
}
