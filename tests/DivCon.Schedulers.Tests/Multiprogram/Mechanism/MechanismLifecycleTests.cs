using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>Programs arriving and leaving mid-run, faulting programs, and disposal under load.</summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class MechanismLifecycleTests
{
    [Fact]
    public void Programs_arrive_and_leave_while_others_run_and_every_task_runs_once()
    {
        using var scheduler = MechanismSchedulers.Unpinned(4, new Schedulers.Multiprogram.Policies.TaskAvailabilityPolicy());
        var first = new TaskLedger(scheduler.Register("first"), spinPerLeaf: 20);
        first.Start();
        var second = new TaskLedger(scheduler.Register("second (arrives mid-run)"));
        second.Start();
        MechanismSchedulers.AssertOwnershipConsistent(scheduler);

        // A third program arrives, runs briefly and leaves while the others still run.
        ProgramTaskScheduler third = scheduler.Register("third");
        var quick = Enumerable.Range(0, 100).Select(i => third.Start(() => i)).ToArray();
        third.Dispose();
        Assert.True(third.Completion.IsCompleted);
        Assert.All(quick, t => Assert.True(t.IsCompletedSuccessfully));
        MechanismSchedulers.AssertOwnershipConsistent(scheduler);

        Assert.True(Task.WaitAll([first.Done, second.Done], TestSchedulers.Timeout));
        foreach (TaskLedger ledger in new[] { first, second })
        {
            Assert.Equal(0, ledger.Duplicates);
            Assert.Equal(0, ledger.ThreadChanges);
            Assert.Equal(TaskLedger.Leaves, ledger.RanCount);
        }

        first.Program.Dispose();
        second.Program.Dispose();
        Assert.Empty(scheduler.Programs);
        MechanismSchedulers.AssertOwnershipConsistent(scheduler);
        Assert.Equal(3, scheduler.History.Count(e => e.Reason == RebalanceReason.Departure));
        Assert.Empty(scheduler.History[^1].After);
    }

    [Fact]
    public void A_program_whose_tasks_throw_faults_them_and_leaves_the_others_and_the_scheduler_healthy()
    {
        using var scheduler = MechanismSchedulers.Unpinned(3);
        using var faulty = scheduler.Register("faulty");
        using var healthy = scheduler.Register("healthy");
        Task[] failing = [.. Enumerable.Range(0, 1000).Select(i => faulty.Start(() => throw new InvalidOperationException($"boom {i}")))];
        var good = new TaskLedger(healthy);
        good.Start();

        Assert.True(good.Done.Wait(TestSchedulers.Timeout));
        Assert.Equal(TaskLedger.Leaves, good.RanCount);
        Assert.True(SpinWait.SpinUntil(() => failing.All(t => t.IsCompleted), TestSchedulers.Timeout));
        Assert.All(failing, t =>
        {
            Assert.True(t.IsFaulted);
            Assert.IsType<InvalidOperationException>(t.Exception!.InnerException);
        });

        // The faulty program still accepts and runs work.
        faulty.Start(() => { }).AssertCompletes();
        Assert.Equal(3, scheduler.WorkerCount);
        MechanismSchedulers.AssertOwnershipConsistent(scheduler);
    }

    [Fact]
    public void Disposing_the_scheduler_under_load_runs_every_accepted_task_and_nothing_hangs()
    {
        var scheduler = MechanismSchedulers.Unpinned(4, interval: TimeSpan.FromMilliseconds(5));
        var ledgers = Enumerable.Range(0, 3).Select(i => new TaskLedger(scheduler.Register($"p{i}"))).ToArray();
        foreach (TaskLedger ledger in ledgers)
        {
            ledger.Start();
        }

        Assert.True(scheduler.Shutdown(TestSchedulers.Timeout), "Shutdown timed out.");
        Assert.False(scheduler.ShutdownTimedOut);
        foreach (TaskLedger ledger in ledgers)
        {
            Assert.True(ledger.Done.IsCompleted);
            Assert.Equal(TaskLedger.Leaves, ledger.RanCount);
            Assert.Equal(0, ledger.Duplicates);
            Assert.True(ledger.Program.Completion.IsCompleted);
        }

        Assert.All(scheduler.Pool.Workers, w => Assert.False(w.Thread.IsAlive));
        var refused = Assert.Throws<TaskSchedulerException>(
            () => Task.Factory.StartNew(static () => { }, CancellationToken.None, TaskCreationOptions.None, ledgers[0].Program).Id);
        Assert.IsType<ObjectDisposedException>(refused.InnerException);
    }

    [Fact]
    public void A_program_disposed_with_queued_work_runs_it_before_leaving()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2);
        using var other = scheduler.Register("other");
        ProgramTaskScheduler leaving = scheduler.Register("leaving");
        var ledger = new TaskLedger(leaving);
        ledger.Start();
        Assert.True(leaving.Shutdown(TestSchedulers.Timeout));
        Assert.True(ledger.Done.IsCompleted);
        Assert.Equal(TaskLedger.Leaves, ledger.RanCount);
        Assert.Equal(0, leaving.OutstandingTasks);
        Assert.Equal(2, other.CurrentCores);
        RebalanceEvent departure = scheduler.History[^1];
        Assert.Equal(RebalanceReason.Departure, departure.Reason);
        Assert.Equal([new Schedulers.Multiprogram.Model.ProgramAllocation(other.ProgramId, 2)], departure.After);
    }

    [Fact]
    public void A_program_disposed_from_its_own_task_leaves_once_that_task_finishes()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2);
        using var other = scheduler.Register("other");
        ProgramTaskScheduler self = scheduler.Register("self-disposing");
        Task<bool> task = self.Start(() => self.Shutdown(TimeSpan.Zero));
        task.AssertCompletes();
        Assert.False(task.Result); // It cannot have left while its own task ran.
        Assert.True(self.Completion.Wait(TestSchedulers.Timeout));
        Assert.Equal(2, other.CurrentCores);
    }

    [Fact]
    public void A_program_disposed_while_outside_producers_race_to_queue_still_leaves_and_runs_what_it_accepted()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2);
        using var other = scheduler.Register("other");
        for (int round = 0; round < 20; round++)
        {
            ProgramTaskScheduler target = scheduler.Register($"target {round}");
            int accepted = 0;
            int ran = 0;
            using var go = new ManualResetEventSlim();
            Task[] producers = [.. Enumerable.Range(0, 3).Select(_ => Task.Run(() =>
            {
                go.Wait(TestSchedulers.Timeout);
                while (true)
                {
                    try
                    {
                        Task.Factory.StartNew(() => Interlocked.Increment(ref ran), CancellationToken.None, TaskCreationOptions.None, target);
                        Interlocked.Increment(ref accepted);
                    }
                    catch (TaskSchedulerException)
                    {
                        return;
                    }
                }
            }))];
            go.Set();
            Thread.Yield();
            Assert.True(target.Shutdown(TestSchedulers.Timeout), $"Round {round}: the program never left.");
            Assert.True(Task.WaitAll(producers, TestSchedulers.Timeout));
            Assert.Equal(Volatile.Read(ref accepted), Volatile.Read(ref ran));
            Assert.Equal(2, other.CurrentCores);
        }
    }
}
