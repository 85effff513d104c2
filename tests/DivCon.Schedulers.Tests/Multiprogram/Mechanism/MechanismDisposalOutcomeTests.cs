using DivCon.Schedulers.Multiprogram;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>What disposal leaves behind: no async method left waiting, and a shutdown outcome that stays true.</summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class MechanismDisposalOutcomeTests
{
    [Fact]
    public async Task An_await_that_resumes_after_its_program_was_disposed_still_ends_its_method()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2);
        ProgramTaskScheduler program = scheduler.Register("async");
        using var awaiting = new ManualResetEventSlim();
        using var release = new CancellationTokenSource();
        TaskScheduler? resumedOn = null;

        // The method awaits without ConfigureAwait(false), so it resumes on TaskScheduler.Current: the program.
        Task<int> method = Task.Factory.StartNew(
            async () =>
            {
                Task delay = Task.Delay(Timeout.Infinite, release.Token);
                awaiting.Set();
                try
                {
                    await delay;
                }
                catch (OperationCanceledException)
                {
                }

                resumedOn = TaskScheduler.Current;
                return 42;
            },
            CancellationToken.None,
            TaskCreationOptions.None,
            program).Unwrap();

        Assert.True(awaiting.Wait(TestSchedulers.Timeout));
        // Nothing of the program runs or is queued while the method waits: the program leaves at once.
        Assert.True(program.Shutdown(TestSchedulers.Timeout));
        release.Cancel(); // The resumption is now queued on a program that has left.

        Task finished = await Task.WhenAny(method, Task.Delay(TestSchedulers.Timeout));
        Assert.Same(method, finished);
        Assert.Equal(42, await method);
        Assert.Same(program, resumedOn);
        Assert.Equal(1, scheduler.LateResumptions);
    }

    [Fact]
    public async Task A_method_that_queues_work_after_its_program_was_disposed_faults_instead_of_waiting()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2);
        ProgramTaskScheduler program = scheduler.Register("async");
        using var awaiting = new ManualResetEventSlim();
        var release = new TaskCompletionSource<bool>();

        Task method = Task.Factory.StartNew(
            async () =>
            {
                awaiting.Set();
                await release.Task;
                // TaskScheduler.Current is still the program, which refuses new work.
                await Task.Factory.StartNew(static () => { }, CancellationToken.None, TaskCreationOptions.None, TaskScheduler.Current);
            },
            CancellationToken.None,
            TaskCreationOptions.None,
            program).Unwrap();

        Assert.True(awaiting.Wait(TestSchedulers.Timeout));
        Assert.True(program.Shutdown(TestSchedulers.Timeout));
        _ = Task.Run(() => release.SetResult(true));

        Task finished = await Task.WhenAny(method, Task.Delay(TestSchedulers.Timeout));
        Assert.Same(method, finished);
        Assert.True(method.IsFaulted);
        var refused = Assert.IsType<TaskSchedulerException>(method.Exception!.InnerException);
        Assert.IsType<ObjectDisposedException>(refused.InnerException);
    }

    [Fact]
    public void Tasks_queued_from_outside_after_disposal_are_still_refused()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2);
        ProgramTaskScheduler program = scheduler.Register("closed");
        program.Dispose();

        var refused = Assert.Throws<TaskSchedulerException>(
            () => Task.Factory.StartNew(static () => { }, CancellationToken.None, TaskCreationOptions.None, program).Id);
        Assert.IsType<ObjectDisposedException>(refused.InnerException);
        var state = Assert.Throws<TaskSchedulerException>(
            () => Task.Factory.StartNew(static _ => { }, "state", CancellationToken.None, TaskCreationOptions.None, program).Id);
        Assert.IsType<ObjectDisposedException>(state.InnerException);
        Assert.Equal(0, scheduler.LateResumptions);
    }

    [Fact]
    public async Task ShutdownTimedOut_turns_false_once_a_later_ShutdownAsync_has_completed()
    {
        var scheduler = MechanismSchedulers.Unpinned(2);
        using var release = new ManualResetEventSlim();
        ProgramTaskScheduler program = scheduler.Register("stuck");
        Task stuck = program.Start(() => release.Wait(TestSchedulers.Timeout));
        Assert.True(SpinWait.SpinUntil(() => scheduler.Pool.Workers.Any(w => w.IsInTask), TestSchedulers.Timeout));

        Assert.False(scheduler.Shutdown(TimeSpan.Zero));
        Assert.True(scheduler.ShutdownTimedOut);

        release.Set();
        await scheduler.ShutdownAsync().WaitAsync(TestSchedulers.Timeout);
        Assert.True(stuck.IsCompletedSuccessfully);
        Assert.False(scheduler.ShutdownTimedOut);
        Assert.True(scheduler.Shutdown(TimeSpan.Zero));
    }
}
