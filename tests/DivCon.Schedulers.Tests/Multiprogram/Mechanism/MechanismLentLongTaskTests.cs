using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>
/// A worker lent to another program that starts a long task of that program: its owner gets the CPU back through
/// the CPU's standby once it has work, instead of waiting for the borrower's task to end. State, not timing: the long
/// tasks block until released (with a generous cap, so nothing hangs).
/// </summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class MechanismLentLongTaskTests
{
    [Fact]
    public void The_owner_takes_back_a_cpu_lent_to_a_long_task_when_it_has_work()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2);
        using var release = new ManualResetEventSlim();
        using var owner = scheduler.Register("owner");
        using var borrower = scheduler.Register("borrower");
        Assert.Equal((1, 1), (owner.CurrentCores, borrower.CurrentCores));
        Task[] longTasks = StartLongTasksOnBothCpus(scheduler, owner, borrower, release);
        Assert.Equal(0, scheduler.ReclaimLentCpus()); // The owner has no work: its CPU stays lent.

        Task ownersWork = owner.Run(() => Assert.True(owner.IsCurrentThreadServing));
        Assert.Equal(1, scheduler.ReclaimLentCpus());

        ownersWork.AssertCompletes();
        Assert.All(longTasks, t => Assert.False(t.IsCompleted)); // The owner did not wait for the borrower's task.
        Assert.True(scheduler.Handovers >= 1);
        Assert.True(SpinWait.SpinUntil(() => scheduler.Reclaims == 1, TestSchedulers.Timeout), "The reclaim never arrived.");
        Assert.Equal((1, 1), (owner.CurrentCores, borrower.CurrentCores)); // Taking back a lent CPU is not a decision.

        release.Set();
        Assert.True(Task.WaitAll(longTasks, TestSchedulers.Timeout));
        Assert.True(SpinWait.SpinUntil(
            () => scheduler.Pool.Cpus.All(c => c.Workers.Count(w => w.IsStandby) == 1 && !c.Server.IsStandby),
            TestSchedulers.Timeout));
        MechanismSchedulers.AssertOwnershipConsistent(scheduler);
        // The borrower keeps working on its own CPU afterwards.
        borrower.Run(() => Assert.True(borrower.IsCurrentThreadServing)).AssertCompletes();
    }

    [Fact]
    public void The_interval_sweep_takes_the_cpu_back_without_being_asked()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2, new EqualSharePolicy(), TimeSpan.FromMilliseconds(10));
        using var release = new ManualResetEventSlim();
        using var owner = scheduler.Register("owner");
        using var borrower = scheduler.Register("borrower");
        Task[] longTasks = StartLongTasksOnBothCpus(scheduler, owner, borrower, release);

        Task ownersWork = owner.Run(() => { });

        ownersWork.AssertCompletes();
        Assert.All(longTasks, t => Assert.False(t.IsCompleted));
        release.Set();
        Assert.True(Task.WaitAll(longTasks, TestSchedulers.Timeout));
    }

    [Fact]
    public void Without_standby_threads_nothing_is_taken_back_and_the_owner_waits_for_the_task()
    {
        using var scheduler = new MultiprogramScheduler(new MultiprogramSchedulerOptions
        {
            Pin = false,
            WorkerCount = 2,
            Policy = new EqualSharePolicy(),
            RebalanceInterval = Timeout.InfiniteTimeSpan,
            MoveHandoverThreshold = Timeout.InfiniteTimeSpan,
        });
        using var release = new ManualResetEventSlim();
        using var owner = scheduler.Register("owner");
        using var borrower = scheduler.Register("borrower");
        Task[] longTasks = StartLongTasksOnBothCpus(scheduler, owner, borrower, release);

        Task ownersWork = owner.Run(() => { });
        Assert.Equal(0, scheduler.ReclaimLentCpus());
        Assert.False(ownersWork.Wait(TimeSpan.FromMilliseconds(50)));

        release.Set();
        ownersWork.AssertCompletes();
        Assert.True(Task.WaitAll(longTasks, TestSchedulers.Timeout));
    }

    /// <summary>
    /// Two long tasks of the borrower, one on its own CPU and one on the owner's CPU, lent to it (the owner is idle).
    /// Returns once both run.
    /// </summary>
    private static Task[] StartLongTasksOnBothCpus(
        MultiprogramScheduler scheduler, ProgramTaskScheduler owner, ProgramTaskScheduler borrower, ManualResetEventSlim release)
    {
        using var started = new CountdownEvent(2);
        Task[] tasks = [.. Enumerable.Range(0, 2).Select(_ => borrower.Run(() =>
        {
            started.Signal();
            Assert.True(release.Wait(TestSchedulers.Timeout), "The long task was never released.");
        }))];
        Assert.True(started.Wait(TestSchedulers.Timeout), "The owner's idle worker was not lent to the borrower.");
        Assert.Contains(scheduler.GetWorkerAssignments(), w => w.Owner == owner.ProgramId && w.Serving == borrower.ProgramId);
        return tasks;
    }
}
