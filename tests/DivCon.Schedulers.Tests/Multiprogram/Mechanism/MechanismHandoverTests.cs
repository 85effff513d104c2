using System.Collections.Concurrent;
using System.Diagnostics;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Placement;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Platform;
using DivCon.Schedulers.Topology;
using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>
/// The standby handover: a CPU moved while its worker is inside a long task serves the new owner at once through the
/// CPU's standby worker. State, not timing: long tasks block until released (with a generous cap, so nothing hangs).
/// </summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class MechanismHandoverTests
{
    [Fact]
    public void A_task_that_never_returns_does_not_keep_its_cpu_from_the_new_owner()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2);
        using var release = new ManualResetEventSlim();
        using var a = scheduler.Register("a");
        Task[] stuck = BlockEveryCpu(scheduler, a, release, out int[] stuckCpus);

        using var b = scheduler.Register("b"); // Equal shares: one CPU moves from a (stuck in a task) to b.
        RebalanceEvent arrival = scheduler.History[^1];
        CpuMove move = Assert.Single(arrival.Moves);
        Assert.Equal((a.ProgramId, b.ProgramId), (move.From, move.To));
        int? ranOnCpu = null;
        Task newcomer = b.Start(() => ranOnCpu = Worker.Current!.Cpu.Index);

        newcomer.AssertCompletes();
        Assert.All(stuck, t => Assert.False(t.IsCompleted)); // Both of a's tasks still run: b did not wait for them.
        Assert.Contains(ranOnCpu!.Value, stuckCpus);
        Assert.NotNull(arrival.Arrivals.LatencyOf(0));
        Assert.True(scheduler.Handovers >= 1);
        AssertOneServerPerCpuAndTwoThreadsEach(scheduler);

        release.Set();
        Assert.True(Task.WaitAll(stuck, TestSchedulers.Timeout));
        // The old server retires once its task returns: every CPU ends with one server and one standby.
        Assert.True(SpinWait.SpinUntil(
            () => scheduler.Pool.Cpus.All(c => c.Workers.Count(w => w.IsStandby) == 1 && !c.Server.IsStandby),
            TestSchedulers.Timeout));
        MechanismSchedulers.AssertOwnershipConsistent(scheduler);
    }

    [Fact]
    public void A_cpu_inside_its_programs_task_is_kept_and_an_idle_one_moves_instead()
    {
        // a holds all 4 CPUs and runs one long task on the last of them (the run's end, which a placement blind to
        // tasks gives away first); b's arrival takes 2 CPUs: they must be idle ones, so no handover is needed.
        using var scheduler = MechanismSchedulers.Unpinned(4);
        var cpuOf = scheduler.GetWorkerAssignments().ToDictionary(w => w.WorkerIndex, w => w.CpuId);
        int last = cpuOf.Values.Max();
        using var keep = new ManualResetEventSlim();
        using var all = new CountdownEvent(scheduler.WorkerCount);
        using var a = scheduler.Register("a");
        Task[] tasks = [.. Enumerable.Range(0, scheduler.WorkerCount).Select(_ => a.Start(() =>
        {
            int cpu = cpuOf[Worker.Current!.Cpu.Index];
            all.Signal();
            Assert.True(all.Wait(TestSchedulers.Timeout)); // one task per worker: none runs two of them
            if (cpu == last)
            {
                keep.Wait(TestSchedulers.Timeout + TestSchedulers.Timeout);
            }
        }))];
        Assert.True(SpinWait.SpinUntil(() => tasks.Count(t => t.IsCompleted) == 3 && scheduler.Pool.Cpus.Count(c => c.Server.IsInTask) == 1, TestSchedulers.Timeout));

        using var b = scheduler.Register("b");
        RebalanceEvent arrival = scheduler.History[^1];
        Assert.Equal(2, arrival.Moves.Count);
        Assert.DoesNotContain(arrival.Moves, m => m.CpuId == last);
        Assert.Equal(a.ProgramId, scheduler.GetWorkerAssignments().Single(w => w.CpuId == last).Owner);
        b.Start(() => { }).AssertCompletes();
        Assert.Equal(0, scheduler.Handovers);

        keep.Set();
        Assert.True(Task.WaitAll(tasks, TestSchedulers.Timeout));
        MechanismSchedulers.AssertOwnershipConsistent(scheduler);
    }

    [Fact]
    public void Without_a_standby_a_move_waits_for_the_task_boundary()
    {
        using var scheduler = new MultiprogramScheduler(new MultiprogramSchedulerOptions
        {
            Pin = false,
            WorkerCount = 2,
            Policy = new EqualSharePolicy(),
            RebalanceInterval = Timeout.InfiniteTimeSpan,
            MoveHandoverThreshold = Timeout.InfiniteTimeSpan,
        });
        Assert.Equal(scheduler.WorkerCount, scheduler.Pool.Workers.Count);
        using var release = new ManualResetEventSlim();
        using var a = scheduler.Register("a");
        Task[] stuck = BlockEveryCpu(scheduler, a, release, out _);
        using var b = scheduler.Register("b");
        RebalanceEvent arrival = scheduler.History[^1];
        Task newcomer = b.Start(() => { });

        // Both workers are inside a's tasks and nothing else may serve b: the move has not arrived, b's task waits.
        Assert.Null(arrival.Arrivals.LatencyOf(0));
        Assert.False(newcomer.IsCompleted);
        Assert.Contains(scheduler.GetWorkerAssignments(), w => w.Owner == b.ProgramId && w.Serving == a.ProgramId);

        release.Set();
        newcomer.AssertCompletes();
        Assert.True(Task.WaitAll(stuck, TestSchedulers.Timeout));
        // The newcomer may have run on a worker lent to b before the moved one reached its boundary: wait for it.
        Assert.True(SpinWait.SpinUntil(() => arrival.Arrivals.LatencyOf(0) is not null, TestSchedulers.Timeout), "the move never arrived");
        Assert.Equal(0, scheduler.Handovers);
    }

    [Fact]
    public void Two_spinning_programs_do_not_keep_a_third_from_getting_work_done()
    {
        // The scenario a new user tried: two programs whose tasks spin for seconds, then a third registers.
        using var scheduler = Pinned(interval: TimeSpan.FromMilliseconds(20)) ?? MechanismSchedulers.Unpinned(
            2, new TaskAvailabilityPolicy(), TimeSpan.FromMilliseconds(20));
        int stop = 0;
        using var spinning = new CountdownEvent(scheduler.WorkerCount);
        ProgramTaskScheduler[] spinners = [.. Enumerable.Range(0, scheduler.WorkerCount).Select(i => scheduler.Register($"spinner{i}"))];
        Task[] spins = [.. spinners.Select(p => p.Start(() =>
        {
            spinning.Signal();
            var cap = Stopwatch.StartNew();
            while (Volatile.Read(ref stop) == 0 && cap.Elapsed < TestSchedulers.Timeout) // Volatile: set by the test thread.
            {
                Thread.SpinWait(100);
            }
        }))];
        Assert.True(spinning.Wait(TestSchedulers.Timeout), "The spinners did not all start.");

        using ProgramTaskScheduler third = scheduler.Register("third");
        int done = 0;
        Task[] work = [.. Enumerable.Range(0, 20).Select(_ => third.Start(() => Interlocked.Increment(ref done)))];
        bool finished = Task.WaitAll(work, TestSchedulers.Timeout);
        bool spinnersStillRunning = spins.All(t => !t.IsCompleted);
        Volatile.Write(ref stop, 1); // Volatile: read by the spinning tasks.

        Assert.True(finished, $"The third program ran {done} of {work.Length} tasks.");
        Assert.True(spinnersStillRunning, "A spinner ended before the third program was done: the test proves nothing.");
        Assert.True(scheduler.Handovers >= 1);
        Assert.True(Task.WaitAll(spins, TestSchedulers.Timeout));
        foreach (ProgramTaskScheduler spinner in spinners)
        {
            spinner.Dispose();
        }
    }

    [Theory]
    [InlineData(4, 3, 11)]
    [InlineData(3, 2, 12)]
    public void Every_task_runs_once_on_one_thread_under_random_moves_with_long_and_short_tasks(int workers, int programCount, int seed)
    {
        using var scheduler = MechanismSchedulers.Unpinned(workers);
        var random = new Random(seed);
        ProgramTaskScheduler[] programs = [.. Enumerable.Range(0, programCount).Select(i => scheduler.Register($"p{i}"))];
        // Spawners and leaves where one leaf in 128 is long (10 ms), the rest short.
        var ledgers = programs.Select(p => new TaskLedger(p, spinPerLeaf: 200, spawners: 40, leavesPerSpawner: 200, longLeafEvery: 128)).ToArray();
        foreach (TaskLedger ledger in ledgers)
        {
            ledger.Start();
        }

        Task all = Task.WhenAll(ledgers.Select(l => l.Done));
        var deadline = Stopwatch.StartNew();
        int changes = 0;
        while (!all.IsCompleted && deadline.Elapsed < TestSchedulers.Timeout)
        {
            // At least one core each: every program keeps a serving worker, so long tasks meet moves often.
            int[] cores = [.. Enumerable.Repeat(1, programCount)];
            for (int extra = workers - programCount; extra > 0; extra--)
            {
                cores[random.Next(programCount)]++;
            }

            scheduler.SetAllocation(programs.Select((p, i) => new KeyValuePair<ProgramTaskScheduler, int>(p, cores[i])));
            changes++;
            if (changes % 8 == 0)
            {
                MechanismSchedulers.AssertOwnershipConsistent(scheduler);
                AssertOneServerPerCpuAndTwoThreadsEach(scheduler);
            }

            all.Wait(TimeSpan.FromMilliseconds(1)); // Paces the changes; returns at once when every program is done.
        }

        Assert.True(all.IsCompleted, $"Not every program finished within {TestSchedulers.Timeout} ({changes} changes).");
        foreach (TaskLedger ledger in ledgers)
        {
            Assert.Equal(0, ledger.Duplicates);
            Assert.Equal(0, ledger.ThreadChanges);
            Assert.Equal(ledger.LeafCount, ledger.RanCount);
            Assert.Empty(ledger.ForeignThreads);
        }

        Assert.True(scheduler.Handovers >= 1, $"No standby handover in {changes} changes: the long tasks never met a move.");
        AssertOneServerPerCpuAndTwoThreadsEach(scheduler);
        MechanismSchedulers.AssertOwnershipConsistent(scheduler);
    }

    [Fact]
    public void Dispose_with_a_stuck_task_is_bounded_and_the_standbys_exit()
    {
        var scheduler = MechanismSchedulers.Unpinned(2);
        using var release = new ManualResetEventSlim();
        ProgramTaskScheduler a = scheduler.Register("a");
        var stuck = a.Start(() => release.Wait(TestSchedulers.Timeout + TestSchedulers.Timeout));
        Assert.True(SpinWait.SpinUntil(() => scheduler.Pool.Workers.Any(w => w.IsInTask), TestSchedulers.Timeout));
        ProgramTaskScheduler b = scheduler.Register("b");
        b.Start(() => { }).AssertCompletes();

        Task<bool> shutdown = Task.Run(() => scheduler.Shutdown(TimeSpan.FromMilliseconds(200)));
        Assert.True(shutdown.Wait(TestSchedulers.Timeout), "Shutdown did not return although its timeout is bounded.");
        Assert.False(shutdown.Result);
        Assert.True(scheduler.ShutdownTimedOut);
        // Every thread but the one inside the stuck task exits: standbys at once, servers once the sets are empty.
        Assert.True(SpinWait.SpinUntil(() => scheduler.Pool.Workers.Count(w => w.Thread.IsAlive) == 1, TestSchedulers.Timeout));

        release.Set();
        stuck.AssertCompletes();
        Assert.All(scheduler.Pool.Workers, w => Assert.True(w.Thread.Join(TestSchedulers.Timeout)));
    }

    [Fact]
    public void A_program_reports_the_whole_pool_as_its_concurrency_whatever_it_holds()
    {
        using var scheduler = MechanismSchedulers.Unpinned(4);
        using var a = scheduler.Register("a");
        using var b = scheduler.Register("b");
        scheduler.SetAllocation([new(a, 3), new(b, 1)]);
        // The upper bound a program may get (owned plus lent cores), not its allocation, and not the thread count
        // (a standby adds no concurrency: it serves only while the worker it replaced finishes one task).
        Assert.Equal(2 * scheduler.WorkerCount, scheduler.Pool.Workers.Count);
        Assert.Equal((4, 4), (a.MaximumConcurrencyLevel, b.MaximumConcurrencyLevel));
        Assert.Equal(scheduler.WorkerCount, a.WorkerStatistics.Count);
    }

    [Fact]
    public void A_negative_handover_threshold_is_rejected()
    {
        var bad = new MultiprogramSchedulerOptions { Pin = false, WorkerCount = 1, MoveHandoverThreshold = TimeSpan.FromMilliseconds(-2) };
        Assert.Throws<ArgumentOutOfRangeException>("options", () => new MultiprogramScheduler(bad));
    }

    private static MultiprogramScheduler? Pinned(TimeSpan interval)
    {
        if (!ThreadAffinity.IsSupported)
        {
            return null; // The unpinned scheduler runs the same scenario.
        }

        CpuTopology topology = CpuTopologyDetector.Detect();
        return new MultiprogramScheduler(new MultiprogramSchedulerOptions
        {
            Topology = topology,
            CpuIds = [.. topology.CpuIds.Take(2)],
            Policy = new TaskAvailabilityPolicy(),
            RebalanceInterval = interval,
        });
    }

    /// <summary>Starts one task per CPU on <paramref name="program"/> that blocks until released, and waits until every CPU runs one.</summary>
    private static Task[] BlockEveryCpu(MultiprogramScheduler scheduler, ProgramTaskScheduler program, ManualResetEventSlim release, out int[] cpus)
    {
        var started = new ConcurrentBag<int>();
        using var all = new CountdownEvent(scheduler.WorkerCount);
        // Spread: each task waits until every one has started, so no worker can run two of them one after the other.
        Task[] tasks = [.. Enumerable.Range(0, scheduler.WorkerCount).Select(_ => program.Start(() =>
        {
            started.Add(Worker.Current!.Cpu.Index);
            all.Signal();
            release.Wait(TestSchedulers.Timeout + TestSchedulers.Timeout);
        }))];
        Assert.True(all.Wait(TestSchedulers.Timeout), "The blocking tasks did not all start.");
        cpus = [.. started];
        Assert.Equal(scheduler.WorkerCount, cpus.Distinct().Count());
        return tasks;
    }

    private static void AssertOneServerPerCpuAndTwoThreadsEach(MultiprogramScheduler scheduler)
    {
        WorkerPool pool = scheduler.Pool;
        Assert.Equal(2 * scheduler.WorkerCount, pool.Workers.Count);
        Assert.All(pool.Cpus, cpu =>
        {
            Assert.Equal(2, cpu.Workers.Count);
            Assert.Contains(cpu.Server, cpu.Workers);
            Assert.All(cpu.Workers, w => Assert.Same(cpu, w.Cpu));
        });
    }
}
