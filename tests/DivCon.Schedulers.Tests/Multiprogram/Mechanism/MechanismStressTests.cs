using System.Diagnostics;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Platform;
using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>
/// Several programs of 10^5 tasks each while a test thread changes the allocation at random (at least one worker
/// each) about every millisecond: every task runs exactly once, never changes thread, every worker always has exactly one owner,
/// and every program finishes.
/// </summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class MechanismStressTests
{
    private static readonly TimeSpan ChangeEvery = TimeSpan.FromMilliseconds(1);

    [Theory]
    [InlineData(8, 4, 1)]
    [InlineData(6, 3, 2)]
    public void Random_moves_every_millisecond_keep_every_invariant_unpinned(int workers, int programs, int seed)
    {
        using var scheduler = MechanismSchedulers.Unpinned(workers);
        RunWithRandomMoves(scheduler, programs, seed);
    }

    [SkippableFact]
    public void Random_moves_every_millisecond_keep_every_invariant_pinned()
    {
        Skip.IfNot(ThreadAffinity.IsSupported, "Pinning is not supported on this operating system.");
        CpuTopology topology = CpuTopologyDetector.Detect();
        // Every busy program holds at least one worker (an explicit allocation may not starve one), so the
        // allocation can change only with more CPUs than programs.
        Skip.If(topology.Count < 3, "Random moves between busy programs need at least three allowed CPUs.");
        using var scheduler = new MultiprogramScheduler(new MultiprogramSchedulerOptions
        {
            Topology = topology,
            RebalanceInterval = Timeout.InfiniteTimeSpan,
        });
        Assert.True(scheduler.IsPinned);
        Assert.Equal(topology.Count, scheduler.WorkerCount);
        RunWithRandomMoves(scheduler, programCount: Math.Min(3, topology.Count - 1), seed: 3);
    }

    private static void RunWithRandomMoves(MultiprogramScheduler scheduler, int programCount, int seed)
    {
        var random = new Random(seed);
        var ledgers = Enumerable.Range(0, programCount)
            .Select(i => new TaskLedger(scheduler.Register($"p{i}")))
            .ToArray();
        // Half of every program's work now, the rest only once the allocation has moved workers at least twice: the
        // programs cannot finish before the moves this test is about, however slowly this thread gets to run (on a
        // loaded machine, or on Mono, the workers could otherwise finish everything between two changes).
        const int FirstHalf = TaskLedger.Spawners / 2;
        foreach (TaskLedger ledger in ledgers)
        {
            ledger.Start(0, FirstHalf);
        }

        Task all = Task.WhenAll(ledgers.Select(l => l.Done));
        var deadline = Stopwatch.StartNew();
        int changes = 0;
        int changesWithMoves = 0;
        bool released = false;
        while (!all.IsCompleted && deadline.Elapsed < TestSchedulers.Timeout)
        {
            if (scheduler.SetAllocation(RandomAllocation(random, ledgers, scheduler.WorkerCount)).Moves.Count > 0)
            {
                changesWithMoves++;
            }

            changes++;
            if (!released && changesWithMoves >= 2)
            {
                foreach (TaskLedger ledger in ledgers)
                {
                    ledger.Start(FirstHalf, TaskLedger.Spawners - FirstHalf);
                }

                released = true;
            }

            if (changes % 8 == 0)
            {
                MechanismSchedulers.AssertOwnershipConsistent(scheduler);
            }

            var pause = Stopwatch.StartNew();
            while (pause.Elapsed < ChangeEvery && !all.IsCompleted)
            {
                Thread.Yield();
            }
        }

        Assert.True(all.IsCompleted, $"Not every program finished within {TestSchedulers.Timeout} ({changes} changes).");
        Assert.True(changes > 1, "The allocation was never changed while the programs ran.");
        Assert.True(scheduler.History.Count(e => e.Moves.Count > 0) > 1, "No decision moved a worker while the programs ran.");
        foreach (TaskLedger ledger in ledgers)
        {
            Assert.Equal(0, ledger.Duplicates);
            Assert.Equal(0, ledger.ThreadChanges);
            Assert.Equal(TaskLedger.Leaves, ledger.RanCount);
        }

        // The counters agree once everything is done: every task of every program taken and executed once.
        foreach (TaskLedger ledger in ledgers)
        {
            Assert.True(SpinWait.SpinUntil(() => ledger.Program.OutstandingTasks == 0, TestSchedulers.Timeout));
            Assert.Equal(TaskLedger.Leaves + TaskLedger.Spawners, ledger.Program.Statistics.TasksExecuted);
            Assert.Equal(0, ledger.Program.AvailableTasks);
        }

        MechanismSchedulers.AssertOwnershipConsistent(scheduler);
    }

    private static KeyValuePair<ProgramTaskScheduler, int>[] RandomAllocation(Random random, TaskLedger[] ledgers, int workers)
    {
        // One worker each (the programs are busy: an explicit allocation may not leave one without), the rest at random.
        var counts = new int[ledgers.Length];
        Array.Fill(counts, 1);
        for (int w = ledgers.Length; w < workers; w++)
        {
            counts[random.Next(ledgers.Length)]++;
        }

        return [.. ledgers.Select((l, i) => new KeyValuePair<ProgramTaskScheduler, int>(l.Program, counts[i]))];
    }
}
