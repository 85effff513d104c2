using DivCon.Schedulers.Multiprogram;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>Work conservation: idle workers of one program help another and go home when their owner has work.</summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class MechanismLendingTests
{
    [Fact]
    public void Idle_workers_of_a_program_without_work_help_a_busy_program_and_return_when_their_owner_gets_work()
    {
        using var scheduler = MechanismSchedulers.Unpinned(4);
        using var idle = scheduler.Register("a (no work yet)");
        using var busy = scheduler.Register("b (busy)");
        Assert.Equal((2, 2), (idle.CurrentCores, busy.CurrentCores));

        // Four tasks that can only finish together: b owns two workers, so a's two must be lent to it.
        using var rendezvous = new CountdownEvent(4);
        int lentSeen = 0;
        Task[] together = [.. Enumerable.Range(0, 4).Select(_ => busy.Start(() =>
        {
            rendezvous.Signal();
            Assert.True(rendezvous.Wait(TestSchedulers.Timeout), "Not all four tasks ran at once: no lending.");
            int lent = scheduler.GetWorkerAssignments().Count(w => w.Owner == idle.ProgramId && w.Serving == busy.ProgramId);
            TestSchedulers.InterlockedMax(ref lentSeen, lent);
        }))];
        Assert.True(Task.WaitAll(together, TestSchedulers.Timeout));
        Assert.Equal(2, lentSeen);
        Assert.Equal((2, 2), (idle.CurrentCores, busy.CurrentCores)); // Lending never changes ownership.

        // b keeps all four workers busy with a stream of tasks until a's task has run: a's workers must go home.
        var ownerTaskRan = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        int streamed = 0;
        void Stream()
        {
            Interlocked.Increment(ref streamed);
            Thread.SpinWait(200);
            if (!ownerTaskRan.Task.IsCompleted)
            {
                busy.Start(Stream);
                busy.Start(Stream);
            }
        }

        for (int i = 0; i < 4; i++)
        {
            busy.Start(Stream);
        }

        Assert.True(SpinWait.SpinUntil(
            () => scheduler.GetWorkerAssignments().Count(w => w.Serving == busy.ProgramId) == 4 || Volatile.Read(ref streamed) > 100_000,
            TestSchedulers.Timeout));
        int? ranOnOwner = null;
        Task home = idle.Start(() =>
        {
            ranOnOwner = scheduler.GetWorkerAssignments().Count(w => w.Owner == idle.ProgramId && w.Serving == idle.ProgramId);
            ownerTaskRan.SetResult();
        });
        home.AssertCompletes();
        Assert.True(ranOnOwner >= 1, "The owner's task did not run on one of its own workers serving it.");
        Assert.True(SpinWait.SpinUntil(() => busy.OutstandingTasks == 0, TestSchedulers.Timeout));
    }

    [Fact]
    public void Without_lending_idle_workers_stay_home()
    {
        using var scheduler = MechanismSchedulers.Unpinned(4, lending: false);
        using var idle = scheduler.Register("a");
        using var busy = scheduler.Register("b");
        // Moves requested by the arrival complete at the workers' next boundary; wait for them first.
        Assert.True(SpinWait.SpinUntil(() => scheduler.GetWorkerAssignments().All(w => !w.IsAway), TestSchedulers.Timeout));
        using var started = new CountdownEvent(2);
        using var release = new ManualResetEventSlim();
        int maxServingB = 0;
        int awayWhileBlocked = -1;
        Task[] tasks = [.. Enumerable.Range(0, 6).Select(_ => busy.Start(() =>
        {
            TestSchedulers.InterlockedMax(ref maxServingB, scheduler.GetWorkerAssignments().Count(w => w.Serving == busy.ProgramId));
            if (!started.IsSet)
            {
                started.Signal();
            }

            Assert.True(release.Wait(TestSchedulers.Timeout));
        }))];
        try
        {
            Assert.True(started.Wait(TestSchedulers.Timeout));
            awayWhileBlocked = scheduler.GetWorkerAssignments().Count(w => w.IsAway);
        }
        finally
        {
            release.Set();
        }

        Assert.True(Task.WaitAll(tasks, TestSchedulers.Timeout));
        Assert.Equal(0, awayWhileBlocked);
        Assert.Equal(2, Volatile.Read(ref maxServingB));
    }
}
