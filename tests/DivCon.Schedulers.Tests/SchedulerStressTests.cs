using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Tests;

/// <summary>A million tiny tasks: each runs exactly once and the counters add up.</summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class SchedulerStressTests
{
    private const int Spawners = 1000;
    private const int LeavesPerSpawner = 1000;
    private const int Leaves = Spawners * LeavesPerSpawner;

    public static TheoryData<SchedulerKind> Kinds => TestSchedulers.Kinds;

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void A_million_tasks_each_run_exactly_once_and_the_counters_add_up(SchedulerKind kind)
    {
        using var scheduler = TestSchedulers.Create(kind);
        var ran = new int[Leaves];
        int duplicates = 0;
        int remaining = Leaves;
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        void Leaf(object? state)
        {
            int index = (int)state!;
            // Interlocked: the flag says whether some earlier run already claimed this index.
            if (Interlocked.Exchange(ref ran[index], 1) != 0)
            {
                Interlocked.Increment(ref duplicates);
            }

            // Interlocked: the last leaf to finish completes the run.
            if (Interlocked.Decrement(ref remaining) == 0)
            {
                done.SetResult();
            }
        }

        void Spawner(object? state)
        {
            int first = (int)state! * LeavesPerSpawner;
            for (int i = 0; i < LeavesPerSpawner; i++)
            {
                Task.Factory.StartNew(Leaf, first + i, CancellationToken.None, TaskCreationOptions.None, TaskScheduler.Current);
            }
        }

        for (int s = 0; s < Spawners; s++)
        {
            Task.Factory.StartNew(Spawner, s, CancellationToken.None, TaskCreationOptions.None, scheduler);
        }

        done.Task.AssertCompletes();
        Assert.Equal(0, duplicates);
        Assert.Equal(Leaves, ran.Count(r => r == 1));

        SchedulerStatistics stats = scheduler.Statistics;
        Assert.Equal(Leaves + Spawners, stats.TasksExecuted);
        Assert.Equal(stats.TasksExecuted, stats.LocalPops + stats.GlobalDequeues + stats.Steals);
        Assert.True(stats.GlobalDequeues >= 1 && stats.GlobalDequeues <= Spawners);
        Assert.Equal(0, stats.TasksInlined);
        Assert.Equal(0, stats.AvailableTasks);
        Assert.Equal(0, scheduler.AvailableTasks);
        foreach (WorkerStatistics worker in scheduler.WorkerStatistics)
        {
            Assert.Equal(worker.TasksExecuted, worker.LocalPops + worker.GlobalDequeues + worker.Steals);
        }
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void Available_tasks_counts_queued_work_and_returns_to_zero(SchedulerKind kind)
    {
        using var scheduler = TestSchedulers.Create(kind, workers: 1);
        using var gate = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        var blocker = scheduler.Start(() =>
        {
            started.Set();
            gate.Wait(TestSchedulers.Timeout);
        });
        Assert.True(started.Wait(TestSchedulers.Timeout));
        var queued = Enumerable.Range(0, 10).Select(_ => scheduler.Start(() => { })).ToArray();

        Assert.Equal(10, scheduler.AvailableTasks);
        gate.Set();
        Task.WhenAll([blocker, .. queued]).AssertCompletes();
        Assert.Equal(0, scheduler.AvailableTasks);
    }
}
