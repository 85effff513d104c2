using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Platform;
using DivCon.Schedulers.Topology;
using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>The rebalancer thread and the policy at work on two real programs, pinned and unpinned.</summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class MechanismEndToEndTests
{
    [Fact]
    public void When_one_program_runs_out_of_tasks_the_interval_rebalance_gives_its_cores_to_the_other()
    {
        using var scheduler = MechanismSchedulers.Unpinned(4, new TaskAvailabilityPolicy(), TimeSpan.FromMilliseconds(2));
        ProgramTaskScheduler shortLived = scheduler.Register("short tree");
        using ProgramTaskScheduler longLived = scheduler.Register("long stream");
        var shifted = new TaskCompletionSource<RebalanceEvent>(TaskCreationOptions.RunContinuationsAsynchronously);
        scheduler.Rebalanced += (_, e) =>
        {
            if (!e.Skipped && e.Reason == RebalanceReason.Interval &&
                e.After.Contains(new ProgramAllocation(longLived.ProgramId, 3)))
            {
                shifted.TrySetResult(e);
            }
        };

        // The short program: a divide-and-conquer tree of tasks (no worker ever blocks) that finishes.
        const int Depth = 12;
        int leavesLeft = 1 << Depth;
        var treeDone = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        void Node(object? state)
        {
            int depth = (int)state!;
            if (depth == 0)
            {
                Thread.SpinWait(200);
                // Interlocked: the last leaf completes the tree.
                if (Interlocked.Decrement(ref leavesLeft) == 0)
                {
                    treeDone.SetResult();
                }

                return;
            }

            for (int child = 0; child < 2; child++)
            {
                Task.Factory.StartNew(Node, depth - 1, CancellationToken.None, TaskCreationOptions.None, TaskScheduler.Current);
            }
        }

        Task.Factory.StartNew(Node, Depth, CancellationToken.None, TaskCreationOptions.None, shortLived);
        Task tree = treeDone.Task;

        // The long program: 16 chains of tasks that keep going until the shift is seen.
        int links = 0;
        void Chain()
        {
            Interlocked.Increment(ref links);
            Thread.SpinWait(500);
            if (!shifted.Task.IsCompleted)
            {
                longLived.Start(Chain);
            }
        }

        for (int i = 0; i < 16; i++)
        {
            longLived.Start(Chain);
        }

        Assert.True(tree.Wait(TestSchedulers.Timeout), Dump(scheduler));
        Assert.True(shifted.Task.Wait(TestSchedulers.Timeout), "No interval decision gave the remaining program 3 of 4 cores.");
        RebalanceEvent shift = shifted.Task.Result;
        Assert.Contains(new ProgramAllocation(shortLived.ProgramId, 1), shift.After);
        Assert.Contains(shift.Moves, m => m.To == longLived.ProgramId);
        Assert.True(scheduler.DecisionCount > scheduler.History.Count - 1);

        // The short program leaves: its last core goes to the other at once.
        shortLived.Dispose();
        RebalanceEvent departure = scheduler.History[^1];
        Assert.Equal(RebalanceReason.Departure, departure.Reason);
        Assert.Equal([new ProgramAllocation(longLived.ProgramId, 4)], departure.After);
        Assert.True(SpinWait.SpinUntil(() => longLived.OutstandingTasks == 0, TestSchedulers.Timeout));
        Assert.True(Volatile.Read(ref links) >= 16);

    }

    private static string Dump(MultiprogramScheduler scheduler) =>
        string.Join("\n", scheduler.GetWorkerAssignments().Select(w => $"{w} parked={scheduler.Pool.Workers[w.WorkerIndex].IsParked}")) + "\n" +
        string.Join("\n", scheduler.Programs.Select(p => $"{p} cores={p.CurrentCores} avail={p.AvailableTasks} out={p.OutstandingTasks} sleepers={p.Queues.Sleepers} stats={p.Statistics}"));

    [Fact]
    public void Interval_decisions_with_nothing_changed_are_skipped_and_counted()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2, new EqualSharePolicy(), TimeSpan.FromMilliseconds(1));
        using var a = scheduler.Register("a");
        using var b = scheduler.Register("b");
        Assert.True(SpinWait.SpinUntil(() => scheduler.SkippedDecisions >= 3, TestSchedulers.Timeout));
        Assert.All(scheduler.History, e => Assert.False(e.Skipped));
        Assert.Equal(2, scheduler.History.Count);
    }

    [SkippableFact]
    public void Pinned_workers_keep_their_cpu_whichever_program_they_serve()
    {
        Skip.IfNot(ThreadAffinity.IsSupported, "Pinning is not supported on this operating system.");

        CpuTopology topology = CpuTopologyDetector.Detect();
        using var scheduler = new MultiprogramScheduler(new MultiprogramSchedulerOptions
        {
            Topology = topology,
            Policy = new EqualSharePolicy(),
            RebalanceInterval = Timeout.InfiniteTimeSpan,
        });
        Assert.Equal(topology.CpuIds.Order(), scheduler.GetWorkerAssignments().Select(w => w.CpuId).Order());
        using var a = scheduler.Register("a");
        using var b = scheduler.Register("b");
        var wrong = new System.Collections.Concurrent.ConcurrentBag<string>();
        void Check()
        {
            Worker worker = Worker.Current!;
            IReadOnlyList<int> mask = ThreadAffinity.GetCurrentThreadAffinity();
            int expected = scheduler.CpuOfWorker(worker.Cpu.Index);
            if (mask.Count != 1 || mask[0] != expected)
            {
                wrong.Add($"worker {worker.Index}: mask [{string.Join(",", mask)}], expected [{expected}]");
            }
        }

        for (int round = 0; round < 20; round++)
        {
            scheduler.SetAllocation([new(a, round % 2 == 0 ? scheduler.WorkerCount : 0), new(b, round % 2 == 0 ? 0 : scheduler.WorkerCount)]);
            Task[] tasks = [.. Enumerable.Range(0, 50).Select(i => (i % 2 == 0 ? a : b).Start(Check))];
            Assert.True(Task.WaitAll(tasks, TestSchedulers.Timeout));
        }

        Assert.Empty(wrong);
        Assert.All(a.WorkerStatistics, w => Assert.NotNull(w.CpuId));
    }
}
