namespace DivCon.Schedulers.Tests;

/// <summary>Disposal runs every accepted task, refuses new ones from outside, and never hangs.</summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class SchedulerDisposeTests
{
    public static TheoryData<SchedulerKind> Kinds => TestSchedulers.Kinds;

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void Dispose_runs_every_queued_task_then_refuses_new_ones(SchedulerKind kind)
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
        var queued = Enumerable.Range(0, 1000).Select(_ => scheduler.Start(() => Interlocked.Increment(ref ran))).ToArray();

        var disposal = Task.Run(scheduler.Dispose);
        Assert.True(SpinWait.SpinUntil(() => scheduler.IsDisposed, TestSchedulers.Timeout));
        var refused = Assert.Throws<TaskSchedulerException>(() => _ = scheduler.Start(() => { }).Id);
        Assert.IsType<ObjectDisposedException>(refused.InnerException);
        Assert.False(disposal.IsCompleted);

        gate.Set();
        disposal.AssertCompletes();
        Assert.Equal(1000, Volatile.Read(ref ran));
        Assert.All(queued, t => Assert.True(t.IsCompletedSuccessfully));
        Assert.True(blocker.IsCompletedSuccessfully);
        Assert.False(scheduler.ShutdownTimedOut);
        Assert.Equal(0, scheduler.AvailableTasks);
        Assert.All(scheduler.Pool.Workers, w => Assert.False(w.Thread.IsAlive));
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void Tasks_running_during_dispose_may_still_spawn_children_and_they_run(SchedulerKind kind)
    {
        var scheduler = TestSchedulers.Create(kind);
        using var gate = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        int children = 0;
        var parent = scheduler.Start(() =>
        {
            started.Set();
            gate.Wait(TestSchedulers.Timeout);
            for (int i = 0; i < 100; i++)
            {
                scheduler.Start(() => Interlocked.Increment(ref children));
            }
        });
        Assert.True(started.Wait(TestSchedulers.Timeout));

        var disposal = Task.Run(scheduler.Dispose);
        Assert.True(SpinWait.SpinUntil(() => scheduler.IsDisposed, TestSchedulers.Timeout));
        gate.Set();

        disposal.AssertCompletes();
        Assert.True(parent.IsCompletedSuccessfully);
        Assert.Equal(100, Volatile.Read(ref children));
        Assert.False(scheduler.ShutdownTimedOut);
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void Double_dispose_is_a_no_op(SchedulerKind kind)
    {
        var scheduler = TestSchedulers.Create(kind);
        scheduler.Dispose();
        scheduler.Dispose();

        Assert.True(scheduler.IsDisposed);
        Assert.False(scheduler.ShutdownTimedOut);
        Assert.True(scheduler.Shutdown(TimeSpan.Zero));
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void Dispose_from_a_worker_returns_without_waiting_for_itself(SchedulerKind kind)
    {
        var scheduler = TestSchedulers.Create(kind);
        var disposing = scheduler.Start(scheduler.Dispose);

        disposing.AssertCompletes();
        Assert.True(scheduler.IsDisposed);
        Assert.All(scheduler.Pool.Workers, w => Assert.True(w.Thread.Join(TestSchedulers.Timeout)));
        Assert.True(scheduler.ShutdownTimedOut);
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void Shutdown_with_a_task_that_never_ends_times_out_instead_of_hanging(SchedulerKind kind)
    {
        var scheduler = TestSchedulers.Create(kind, workers: 1);
        using var gate = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        var stuck = scheduler.Start(() =>
        {
            started.Set();
            gate.Wait(TestSchedulers.Timeout);
        });
        Assert.True(started.Wait(TestSchedulers.Timeout));

        Assert.False(scheduler.Shutdown(TimeSpan.FromMilliseconds(50)));
        Assert.True(scheduler.ShutdownTimedOut);

        gate.Set();
        stuck.AssertCompletes();
        Assert.All(scheduler.Pool.Workers, w => Assert.True(w.Thread.Join(TestSchedulers.Timeout)));
    }

    [Fact]
    public void Negative_shutdown_timeout_is_rejected()
    {
        using var scheduler = new WorkStealingTaskScheduler(1);
        Assert.Throws<ArgumentOutOfRangeException>(() => scheduler.Shutdown(TimeSpan.FromSeconds(-1)));
    }
}
