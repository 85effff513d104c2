using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Tests;

/// <summary>The seams a multiprogram scheduler will use: draining a worker's deque and moving a worker.</summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class WorkQueueSetTests
{
    [Fact]
    public void Draining_a_local_deque_hands_its_tasks_to_the_global_queue()
    {
        using var scheduler = new WorkStealingTaskScheduler(1);
        int childrenRan = 0;
        var root = scheduler.Start(() =>
        {
            for (int i = 0; i < 5; i++)
            {
                scheduler.Start(() => Interlocked.Increment(ref childrenRan));
            }

            long availableBefore = scheduler.AvailableTasks;
            int drained = scheduler.Queues.DrainLocalToGlobal(Worker.Current!.Index);
            return (availableBefore, drained, availableAfter: scheduler.AvailableTasks);
        });

        root.AssertCompletes();
        Assert.True(SpinWait.SpinUntil(() => Volatile.Read(ref childrenRan) == 5, TestSchedulers.Timeout));
        Assert.Equal((5L, 5, 5L), root.Result);
        Assert.True(SpinWait.SpinUntil(() => scheduler.Statistics.TasksExecuted == 6, TestSchedulers.Timeout));
        SchedulerStatistics stats = scheduler.Statistics;
        Assert.Equal(6, stats.GlobalDequeues); // The root and the five drained children.
        Assert.Equal(0, stats.LocalPops);
        Assert.Equal(0, stats.AvailableTasks);
    }

    [Fact]
    public void A_worker_moved_away_and_back_leaves_its_tasks_to_the_old_set()
    {
        using var scheduler = new WorkStealingTaskScheduler(1);
        var elsewhere = new WorkQueueSet(scheduler, _ => true, VictimOrder.Flat(1));
        int childrenRan = 0;
        var root = scheduler.Start(() =>
        {
            Worker worker = Worker.Current!;
            for (int i = 0; i < 3; i++)
            {
                scheduler.Start(() => Interlocked.Increment(ref childrenRan));
            }

            worker.MoveTo(elsewhere);
            bool servedElsewhere = ReferenceEquals(worker.Queues, elsewhere);
            worker.MoveTo(scheduler.Queues);
            return servedElsewhere && ReferenceEquals(worker.Queues, scheduler.Queues);
        });

        root.AssertCompletes();
        Assert.True(root.Result);
        Assert.True(SpinWait.SpinUntil(() => Volatile.Read(ref childrenRan) == 3, TestSchedulers.Timeout));
        Assert.True(SpinWait.SpinUntil(() => scheduler.Statistics.TasksExecuted == 4, TestSchedulers.Timeout));
        Assert.Equal(4, scheduler.Statistics.GlobalDequeues);
        Assert.Equal(0, elsewhere.AvailableTasks);
    }
}
