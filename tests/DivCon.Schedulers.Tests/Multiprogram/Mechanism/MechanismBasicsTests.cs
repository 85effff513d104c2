using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Multiprogram;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>Registration, allocation bookkeeping, departure and the events they produce.</summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class MechanismBasicsTests
{
    [Fact]
    public void Programs_get_allocations_that_sum_to_the_worker_count_and_every_worker_has_one_owner()
    {
        using var scheduler = MechanismSchedulers.Unpinned(4);
        MechanismSchedulers.AssertOwnershipConsistent(scheduler);
        using var a = scheduler.Register("a");
        Assert.Equal(4, a.CurrentCores);
        MechanismSchedulers.AssertOwnershipConsistent(scheduler);
        using var b = scheduler.Register("b");
        using var c = scheduler.Register("c");
        Assert.Equal(4, a.CurrentCores + b.CurrentCores + c.CurrentCores);
        Assert.Equal([2, 1, 1], scheduler.CurrentAllocation.Select(x => x.Cores));
        MechanismSchedulers.AssertOwnershipConsistent(scheduler);
        Assert.Equal(4, a.MaximumConcurrencyLevel);
    }

    [Fact]
    public void Tasks_run_on_the_program_scheduler_and_see_it_as_current()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2);
        using var program = scheduler.Register("p");
        Task<TaskScheduler> task = program.Start(() => TaskScheduler.Current);
        task.AssertCompletes();
        Assert.Same(program, task.Result);
        Assert.True(SpinWait.SpinUntil(() => program.Statistics.TasksExecuted == 1, TestSchedulers.Timeout));
    }

    [Fact]
    public void Parallel_for_runs_on_a_program()
    {
        using var scheduler = MechanismSchedulers.Unpinned(3);
        using var program = scheduler.Register("loop");
        var hits = new int[10_000];
        Task loop = program.Start(() => Parallel.For(
            0, hits.Length, new ParallelOptions { TaskScheduler = program }, i => Interlocked.Increment(ref hits[i])));
        loop.AssertCompletes();
        Assert.All(hits, h => Assert.Equal(1, h));
    }

    [Fact]
    public void Arrival_and_departure_are_recorded_as_events_and_departure_gives_the_workers_back()
    {
        using var scheduler = MechanismSchedulers.Unpinned(4);
        var seen = new List<RebalanceEvent>();
        scheduler.Rebalanced += (_, e) => seen.Add(e);
        ProgramTaskScheduler a = scheduler.Register("a");
        using ProgramTaskScheduler b = scheduler.Register("b");
        Assert.Equal(2, b.CurrentCores);
        a.Dispose();
        Assert.True(a.Completion.IsCompleted);
        Assert.Equal(4, b.CurrentCores);
        Assert.Equal(0, a.CurrentCores);
        Assert.Equal([b], scheduler.Programs);
        Assert.Equal(
            [RebalanceReason.Arrival, RebalanceReason.Arrival, RebalanceReason.Departure],
            seen.Select(e => e.Reason));
        Assert.Equal(seen, scheduler.History);
        RebalanceEvent departure = seen[^1];
        Assert.Equal([new ProgramAllocation(b.ProgramId, 4)], departure.After);
        Assert.Equal(2, departure.Moves.Count);
        Assert.All(departure.Moves, m => Assert.Equal(a.ProgramId, m.From));
        MechanismSchedulers.AssertOwnershipConsistent(scheduler);
    }

    [Fact]
    public void A_disposed_program_refuses_new_tasks_and_the_others_keep_running()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2);
        using var a = scheduler.Register("a");
        using var b = scheduler.Register("b");
        a.Dispose();
        var refused = Assert.Throws<TaskSchedulerException>(() => Task.Factory.StartNew(static () => { }, CancellationToken.None, TaskCreationOptions.None, a).Id);
        Assert.IsType<ObjectDisposedException>(refused.InnerException);
        b.Start(() => { }).AssertCompletes();
    }

    [Fact]
    public void Bad_arguments_are_rejected_with_the_parameter_named()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2);
        Assert.Throws<ArgumentOutOfRangeException>("speedup", () => scheduler.Register("x", 0));
        Assert.Throws<ArgumentOutOfRangeException>("speedup", () => scheduler.Register("x", double.NaN));
        Assert.Throws<ArgumentException>("name", () => scheduler.Register(" "));
        using var a = scheduler.Register("a");
        Assert.Throws<ArgumentException>("cores", () => scheduler.SetAllocation([new(a, 3)]));
        Assert.Throws<ArgumentException>("cores", () => scheduler.SetAllocation([new(a, -1), new(a, 3)]));
        Assert.Throws<ArgumentOutOfRangeException>("options", () => new MultiprogramScheduler(new MultiprogramSchedulerOptions { Pin = false, WorkerCount = 0 }));
        Assert.Throws<ArgumentOutOfRangeException>("reason", () => scheduler.Rebalance((RebalanceReason)99));
    }

    [Fact]
    public void A_disposed_scheduler_refuses_registration()
    {
        var scheduler = MechanismSchedulers.Unpinned(2);
        scheduler.Dispose();
        Assert.False(scheduler.ShutdownTimedOut);
        Assert.Throws<ObjectDisposedException>(() => scheduler.Register("late"));
    }

    [Fact]
    public void Set_allocation_moves_workers_and_the_override_stands_until_cleared()
    {
        using var scheduler = MechanismSchedulers.Unpinned(4, new EqualSharePolicy());
        using var a = scheduler.Register("a");
        using var b = scheduler.Register("b");
        RebalanceEvent manual = scheduler.SetAllocation([new(a, 3), new(b, 1)]);
        Assert.Equal(RebalanceReason.Manual, manual.Reason);
        Assert.Equal("override", manual.Policy);
        Assert.Equal((3, 1), (a.CurrentCores, b.CurrentCores));
        Assert.True(SpinWait.SpinUntil(
            () => scheduler.GetWorkerAssignments().All(w => w.Serving == w.Owner || w.Owner != a.ProgramId),
            TestSchedulers.Timeout));
        Assert.True(scheduler.Rebalance(RebalanceReason.Interval).Skipped); // The override still stands.
        Assert.False(scheduler.Rebalance(RebalanceReason.Manual).Skipped);
        Assert.Equal((3, 1), (a.CurrentCores, b.CurrentCores));
        scheduler.ClearAllocationOverride();
        Assert.Equal((2, 2), (a.CurrentCores, b.CurrentCores));
        MechanismSchedulers.AssertOwnershipConsistent(scheduler);
    }

    [Fact]
    public void Unregister_is_a_departure_and_refuses_foreign_programs()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2);
        using var elsewhere = MechanismSchedulers.Unpinned(1);
        using var foreign = elsewhere.Register("foreign");
        using var stays = scheduler.Register("stays");
        var leaves = scheduler.Register("leaves");
        Assert.True(scheduler.Unregister(leaves));
        Assert.True(leaves.IsDisposed);
        Assert.Equal(RebalanceReason.Departure, scheduler.History[^1].Reason);
        Assert.Equal(2, stays.CurrentCores);
        Assert.Throws<ArgumentException>("program", () => scheduler.Unregister(foreign));
        Assert.Throws<ArgumentNullException>("program", () => scheduler.Unregister(null!));
    }

    [Fact]
    public void History_is_bounded_in_time_order_and_a_throwing_subscriber_breaks_nothing()
    {
        using var scheduler = new MultiprogramScheduler(new MultiprogramSchedulerOptions
        {
            Pin = false,
            WorkerCount = 2,
            Policy = new EqualSharePolicy(),
            RebalanceInterval = Timeout.InfiniteTimeSpan,
            HistoryCapacity = 5,
        });
        int seen = 0;
        scheduler.Rebalanced += (_, _) => throw new InvalidOperationException("subscriber bug");
        scheduler.Rebalanced += (_, _) => seen++;
        using var a = scheduler.Register("a");
        for (int i = 0; i < 9; i++)
        {
            scheduler.Rebalance();
        }

        Assert.Equal(10, seen);
        Assert.Equal(10, scheduler.DecisionCount);
        IReadOnlyList<RebalanceEvent> history = scheduler.History;
        Assert.Equal(5, history.Count);
        Assert.All(history, e => Assert.Equal(RebalanceReason.Manual, e.Reason));
        Assert.Equal(history.Select(e => e.Timestamp).Order(), history.Select(e => e.Timestamp));
        Assert.True(scheduler.TimeProvider.GetElapsedTime(history[0].Timestamp) >= TimeSpan.Zero);
        a.Start(() => { }).AssertCompletes();
    }
}
