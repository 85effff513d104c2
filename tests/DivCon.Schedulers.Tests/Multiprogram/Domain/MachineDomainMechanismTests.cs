using System.Collections.Concurrent;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Tests.Multiprogram.Mechanism;
using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Tests.Multiprogram.Domain;

/// <summary>
/// A multiprogram scheduler under a machine domain, driven by an in-memory arbiter: grants applied exactly, withheld
/// CPUs run nothing, no grant means the local policy, bad grants ignored, no task lost, no deadlock with grant changes
/// on another thread, disposal with a grant pending. Flat unpinned topologies (slot ids 0 to n - 1).
/// </summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class MachineDomainMechanismTests
{
    [Fact]
    public void A_grant_gives_each_program_exactly_its_cpus_and_withholds_the_rest()
    {
        var fake = new FakeCpuArbiter();
        using var scheduler = Create(fake, workers: 4);
        using var watch = new DecisionWatch(scheduler);
        using var a = scheduler.Register("a");
        using var b = scheduler.Register("b");
        Assert.Equal((2, 2), (a.CurrentCores, b.CurrentCores)); // No grant yet: the local policy on all CPUs.

        RebalanceEvent applied = watch.ForEpoch(fake.Grant((a, [0, 1]), (b, [3])));

        AssertPlacement(scheduler, (a, [0, 1]), (b, [3]), (null, [2]));
        Assert.Contains(applied.Moves, m => m.CpuId == 2 && m.To is null);
        Assert.Equal(RebalanceReason.Manual, applied.Reason);
        Assert.Contains("1 withheld", applied.Explanation, StringComparison.Ordinal);
        Assert.True(scheduler.HasArbiter);
    }

    [Fact]
    public void A_decision_that_applies_a_grant_carries_its_receipt_time_and_a_local_one_none()
    {
        var fake = new FakeCpuArbiter();
        using var scheduler = Create(fake, workers: 2);
        using var watch = new DecisionWatch(scheduler);
        using var a = scheduler.Register("a");

        fake.ReceivedAt = 123_456_789;
        RebalanceEvent received = watch.ForEpoch(fake.Grant((a, [0])));
        fake.ReceivedAt = 0;
        RebalanceEvent unknown = watch.ForEpoch(fake.Grant((a, [0, 1])));

        Assert.Equal(123_456_789, received.DomainGrantReceivedAt);
        Assert.Contains(received.Moves, m => m.CpuId == 1 && m.To is null);
        Assert.Null(unknown.DomainGrantReceivedAt); // a grant without a receipt time (not from a socket)
        Assert.Contains(unknown.Moves, m => m.CpuId == 1 && m.To == a.ProgramId);
    }

    [Fact]
    public void Withheld_cpus_run_no_task_and_their_workers_sleep()
    {
        var fake = new FakeCpuArbiter();
        using var scheduler = Create(fake, workers: 6);
        using var watch = new DecisionWatch(scheduler);
        using var a = scheduler.Register("a");
        using var b = scheduler.Register("b");
        watch.ForEpoch(fake.Grant((a, [0, 1]), (b, [2])));
        WaitUntilWithheldAsleep(scheduler, [3, 4, 5]);

        long parksBefore = WithheldParks(scheduler, 3);
        var cpus = new ConcurrentBag<int>();
        Assert.True(Task.WaitAll([RunRecorded(scheduler, a, 2000, cpus), RunRecorded(scheduler, b, 2000, cpus)], TestSchedulers.Timeout));

        Assert.Equal(4000, cpus.Count);
        Assert.DoesNotContain(cpus, cpu => cpu >= 3);
        Assert.Equal(parksBefore, WithheldParks(scheduler, 3)); // Never woken (to lend): each wake-up would park again.
        Assert.All([3, 4, 5], cpu => Assert.Null(scheduler.GetWorkerAssignments()[cpu].Serving));
    }

    [Fact]
    public void A_busy_program_without_granted_cpus_is_served_only_by_idle_granted_cpus()
    {
        var fake = new FakeCpuArbiter();
        using var scheduler = Create(fake, workers: 4);
        using var watch = new DecisionWatch(scheduler);
        using var a = scheduler.Register("a");
        using var b = scheduler.Register("b");
        watch.ForEpoch(fake.Grant((b, [0, 1])));
        AssertPlacement(scheduler, (a, []), (b, [0, 1]), (null, [2, 3]));
        WaitUntilWithheldAsleep(scheduler, [2, 3]);

        // The starvation guard does not act under a domain: a stays at 0 cores, b's idle CPUs lend themselves to it.
        var cpus = new ConcurrentBag<int>();
        RunRecorded(scheduler, a, 500, cpus).AssertCompletes();

        Assert.Equal(500, cpus.Count);
        Assert.All(cpus, cpu => Assert.InRange(cpu, 0, 1));
        Assert.Equal(0, a.CurrentCores);
    }

    [Fact]
    public void Withdrawing_the_grant_restores_the_local_policy_on_all_cpus()
    {
        var fake = new FakeCpuArbiter();
        using var scheduler = Create(fake, workers: 4);
        using var watch = new DecisionWatch(scheduler);
        using var a = scheduler.Register("a");
        using var b = scheduler.Register("b");
        watch.ForEpoch(fake.Grant((a, [3])));
        AssertPlacement(scheduler, (a, [3]), (b, []), (null, [0, 1, 2]));

        int seen = watch.Count;
        fake.Withdraw();
        RebalanceEvent local = watch.ForLocal(seen);

        Assert.Equal(new EqualSharePolicy().Name, local.Policy);
        Assert.Equal((2, 2), (a.CurrentCores, b.CurrentCores));
        Assert.Empty(scheduler.WithheldCpus);
        MechanismSchedulers.AssertOwnershipConsistent(scheduler);
        var cpus = new ConcurrentBag<int>();
        RunRecorded(scheduler, b, 200, cpus).AssertCompletes();
    }

    [Fact]
    public void Taking_all_of_a_programs_cpus_mid_run_then_returning_them_loses_no_task()
    {
        var fake = new FakeCpuArbiter();
        using var scheduler = Create(fake, workers: 4, lending: false);
        using var watch = new DecisionWatch(scheduler);
        using var a = scheduler.Register("a");
        using var b = scheduler.Register("b");
        var ledger = new TaskLedger(a, spinPerLeaf: 400, longLeafEvery: 997);
        ledger.Start();

        // Mid-run: a loses every CPU (its deques drain to its global queue); without lending nothing serves it.
        watch.ForEpoch(fake.Grant((b, [0, 1])));
        Assert.Equal(0, a.CurrentCores);
        int ranWhileWithout = ledger.RanCount;
        Assert.False(ledger.Done.Wait(TimeSpan.FromMilliseconds(100)));
        Assert.InRange(ledger.RanCount - ranWhileWithout, 0, 2 * scheduler.WorkerCount); // At most the tasks in flight.

        watch.ForEpoch(fake.Grant((a, [2, 3]), (b, [0, 1])));

        ledger.Done.AssertCompletes();
        Assert.Equal(ledger.LeafCount, ledger.RanCount);
        Assert.Equal(0, ledger.Duplicates);
        Assert.Equal(0, ledger.ThreadChanges);
        Assert.Empty(ledger.ForeignThreads);
    }

    [Fact]
    public void A_grant_listing_a_cpu_twice_is_ignored_whole_and_the_last_valid_grant_stands()
    {
        var fake = new FakeCpuArbiter();
        using var scheduler = Create(fake, workers: 4);
        using var watch = new DecisionWatch(scheduler);
        using var a = scheduler.Register("a");
        using var b = scheduler.Register("b");
        watch.ForEpoch(fake.Grant((a, [0]), (b, [1])));

        int seen = watch.Count;
        long bad = fake.Set(new Dictionary<ProgramId, IReadOnlyList<int>> { [a.ProgramId] = [2, 3], [b.ProgramId] = [3] });
        RebalanceEvent kept = watch.For(e => e.Explanation.Contains($"bad grant epoch {bad} ignored", StringComparison.Ordinal), seen);

        Assert.Empty(kept.Moves);
        AssertPlacement(scheduler, (a, [0]), (b, [1]), (null, [2, 3]));
        Assert.Equal(1, scheduler.BadGrants);

        // A bad grant before any valid one: the local policy decides, as if it never came.
        var fresh = new FakeCpuArbiter();
        using var local = Create(fresh, workers: 2);
        using var localWatch = new DecisionWatch(local);
        using var c = local.Register("c");
        int before = localWatch.Count;
        fresh.Set(new Dictionary<ProgramId, IReadOnlyList<int>> { [c.ProgramId] = [0, 0] });
        RebalanceEvent decided = localWatch.For(e => e.Explanation.Contains("ignored", StringComparison.Ordinal) || e.Policy == new EqualSharePolicy().Name, before);
        Assert.Equal(new EqualSharePolicy().Name, decided.Policy);
        Assert.Equal(2, c.CurrentCores);
        Assert.Equal(1, local.BadGrants);
    }

    [Fact]
    public void Entries_for_unknown_programs_and_foreign_cpus_are_ignored_and_the_rest_applies()
    {
        var fake = new FakeCpuArbiter();
        using var scheduler = Create(fake, workers: 4);
        using var watch = new DecisionWatch(scheduler);
        using var a = scheduler.Register("a");
        var stranger = new ProgramId(999, "elsewhere");

        RebalanceEvent applied = watch.ForEpoch(fake.Set(new Dictionary<ProgramId, IReadOnlyList<int>>
        {
            [a.ProgramId] = [1, 2, 17],
            [stranger] = [0, 40],
        }));

        AssertPlacement(scheduler, (a, [1, 2]), (null, [0, 3]));
        Assert.Equal(3, scheduler.IgnoredGrantEntries); // the program, cpu 17, cpu 40
        Assert.Contains("3 entries ignored", applied.Explanation, StringComparison.Ordinal);
    }

    [Fact]
    public void Every_decision_and_registration_publishes_the_local_view()
    {
        var fake = new FakeCpuArbiter();
        using var scheduler = Create(fake, workers: 4);
        Assert.Equal(1, fake.Publishes); // Joining introduces the process and its CPUs.
        Assert.Equal([0, 1, 2, 3], fake.Last!.Value.OwnCpus);

        using var a = scheduler.Register("alpha");
        using var b = scheduler.Register("beta");
        Assert.Equal(3, fake.Publishes);
        var last = fake.Last!.Value;
        Assert.Equal(4, last.Local.CoreCount);
        Assert.Equal([a.ProgramId, b.ProgramId], last.Local.Programs.Select(p => p.Id));
        Assert.Equal("alpha", last.Names[a.ProgramId]);
        Assert.Equal("beta", last.Names[b.ProgramId]);

        scheduler.Rebalance();
        Assert.Equal(4, fake.Publishes);
        Assert.True(a.Shutdown(TestSchedulers.Timeout));
        Assert.Equal(5, fake.Publishes); // The departure's decision.
        Assert.Equal([b.ProgramId], fake.Last!.Value.Local.Programs.Select(p => p.Id));
    }

    [Fact]
    public void Grant_changes_from_another_thread_while_decisions_run_neither_deadlock_nor_lose_tasks()
    {
        var fake = new FakeCpuArbiter { RaiseInsidePublish = true };
        using var scheduler = Create(fake, workers: 8, interval: TimeSpan.FromMilliseconds(1));
        using var watch = new DecisionWatch(scheduler);
        ProgramTaskScheduler[] programs = [scheduler.Register("a"), scheduler.Register("b"), scheduler.Register("c")];
        var ledgers = programs.Select(p => new TaskLedger(p, spinPerLeaf: 20, spawners: 20, leavesPerSpawner: 200)).ToArray();
        foreach (TaskLedger ledger in ledgers)
        {
            ledger.Start();
        }

        using var stop = new CancellationTokenSource();
        var granter = Task.Factory.StartNew(
            () =>
            {
                var random = new Random(28);
                for (int i = 0; i < 300 && !stop.IsCancellationRequested; i++)
                {
                    if (i % 17 == 16)
                    {
                        fake.Withdraw();
                        continue;
                    }

                    // Each CPU to a random program or withheld; always one CPU for each program so nothing waits.
                    var sets = programs.Select((p, k) => (p, new List<int> { k })).ToArray();
                    for (int cpu = programs.Length; cpu < 8; cpu++)
                    {
                        int to = random.Next(programs.Length + 1);
                        if (to < programs.Length)
                        {
                            sets[to].Item2.Add(cpu);
                        }
                    }

                    fake.Grant([.. sets.Select(s => (s.p, s.Item2.ToArray()))]);
                }
            },
            stop.Token,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default);
        var rebalancer = Task.Factory.StartNew(
            () =>
            {
                for (int i = 0; i < 300 && !stop.IsCancellationRequested; i++)
                {
                    scheduler.Rebalance();
                }
            },
            stop.Token,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default);

        bool finished = Task.WaitAll([granter, rebalancer, .. ledgers.Select(l => l.Done)], TestSchedulers.Timeout);
        stop.Cancel();
        Assert.True(finished, "Grant changes and decisions deadlocked or tasks were lost.");

        // The last grant is applied exactly once the rebalancer thread catches up.
        long last = fake.Grant((programs[0], [0, 1]), (programs[1], [2]), (programs[2], [7]));
        watch.ForEpoch(last);
        AssertPlacement(scheduler, (programs[0], [0, 1]), (programs[1], [2]), (programs[2], [7]), (null, [3, 4, 5, 6]));
        Assert.All(ledgers, l => Assert.Equal((l.LeafCount, 0), (l.RanCount, l.Duplicates)));
        Assert.Equal(0, scheduler.BadGrants);
        foreach (ProgramTaskScheduler program in programs)
        {
            program.Dispose();
        }
    }

    [Fact]
    public void Disposing_with_a_grant_pending_runs_every_queued_task_and_leaves_the_domain()
    {
        var fake = new FakeCpuArbiter();
        var scheduler = Create(fake, workers: 4, lending: false);
        using var watch = new DecisionWatch(scheduler);
        var a = scheduler.Register("a");
        var b = scheduler.Register("b");
        watch.ForEpoch(fake.Grant((b, [0])));
        int ran = 0;
        Task[] queued = [.. Enumerable.Range(0, 300).Select(_ => a.Run(() => Interlocked.Increment(ref ran)))];
        Assert.False(Task.WhenAll(queued).Wait(TimeSpan.FromMilliseconds(50))); // a holds no CPU, nobody lends.

        fake.Grant((b, [0, 1])); // Pending: the rebalancer thread may or may not apply it before the shutdown.
        bool done = scheduler.Shutdown(TestSchedulers.Timeout);

        Assert.True(done, "The shutdown timed out.");
        Assert.True(Task.WaitAll(queued, TestSchedulers.Timeout));
        Assert.Equal(300, Volatile.Read(ref ran));
        Assert.True(fake.IsDisposed);
        Assert.False(scheduler.HasArbiter);
        Assert.True(a.Completion.IsCompleted && b.Completion.IsCompleted);
        int publishes = fake.Publishes;
        fake.Grant((a, [0])); // After leaving: nothing happens, nothing throws.
        Assert.Equal(publishes, fake.Publishes);
    }

    [Fact]
    public void A_domain_that_cannot_be_joined_leaves_the_scheduler_local_and_construction_succeeds()
    {
        var options = new MultiprogramSchedulerOptions
        {
            Pin = false,
            WorkerCount = 2,
            Policy = new EqualSharePolicy(),
            RebalanceInterval = Timeout.InfiniteTimeSpan,
            // World-writable (mode 1777): the client refuses it as a domain directory (anyone could plant a socket).
            MachineDomain = new MachineDomainOptions { Name = "nowhere", Directory = "/tmp" },
        };

        // The library's own factory (the client refuses the directory, or the platform has no domain) and a factory
        // that fails.
        using var builtIn = new MultiprogramScheduler(options);
        using var failing = new MultiprogramScheduler(options with { ArbiterFactory = _ => throw new IOException("no coordinator") });

        Assert.False(builtIn.HasArbiter);
        Assert.Contains("PlatformNotSupportedException", builtIn.DomainStatus, StringComparison.Ordinal);
        Assert.Contains("domain nowhere in /tmp", builtIn.DomainStatus, StringComparison.Ordinal);
        Assert.Contains("no coordinator", failing.DomainStatus, StringComparison.Ordinal);
        using var p = failing.Register("p");
        Assert.Equal(2, p.CurrentCores);
        p.Run(() => { }).AssertCompletes();

        using var none = MechanismSchedulers.Unpinned(2);
        Assert.Null(none.DomainStatus);
    }

    [Fact]
    public void A_joined_process_samples_at_the_domain_interval_and_at_its_own_once_it_has_left()
    {
        var fake = new FakeCpuArbiter();
        using var joined = Create(fake, workers: 2, interval: TimeSpan.FromMilliseconds(100)); // disposed twice: only the first does anything
        using var a = joined.Register("a");
        Assert.True(joined.HasArbiter);
        Assert.Equal(MachineDomainOptions.DefaultEstimatorSampleInterval, joined.SampleInterval);
        a.Dispose();
        joined.Dispose(); // leaves the domain first: the local interval again
        Assert.Equal(TimeSpan.FromMilliseconds(10), joined.SampleInterval);
    }

    [Fact]
    public void A_joined_process_samples_at_its_own_interval_while_an_early_decision_waits()
    {
        var clock = new ManualClock(); // the program's age is what the test sets
        using var scheduler = new MultiprogramScheduler(new MultiprogramSchedulerOptions
        {
            Pin = false,
            WorkerCount = 2,
            TimeProvider = clock,
            Policy = new LearnedScalabilityPolicy { DecidesEarly = true },
            MachineDomain = new MachineDomainOptions { Name = "test" },
            ArbiterFactory = _ => new FakeCpuArbiter(),
        });
        Assert.Equal(MachineDomainOptions.DefaultEstimatorSampleInterval, scheduler.SampleInterval);
        using var a = scheduler.Register("a");
        Thread.Sleep(60); // samples at 10 ms of real time; the program stays 0 ms old
        Assert.Equal(TimeSpan.FromMilliseconds(10), scheduler.SampleInterval);
        clock.Advance(TimeSpan.FromMilliseconds(30)); // idle past 20 ms: given up on (no work to learn from)
        Assert.True(SpinWait.SpinUntil(() => scheduler.SampleInterval == MachineDomainOptions.DefaultEstimatorSampleInterval, TestSchedulers.Timeout));
    }

    [Fact]
    public void The_rebalancer_takes_a_changed_sampling_interval_at_its_next_wake_up()
    {
        int samples = 0;
        using var rebalancer = new Rebalancer(
            _ => { }, () => { }, TimeSpan.FromSeconds(30), ex => Assert.Fail(ex.ToString()), () => Interlocked.Increment(ref samples), TimeSpan.FromSeconds(20));
        Assert.Equal(TimeSpan.FromSeconds(20), rebalancer.SampleInterval);
        rebalancer.Start();
        try
        {
            rebalancer.SampleInterval = TimeSpan.FromMilliseconds(5);
            rebalancer.RequestDecision(); // a wake-up (no decision is asked for: OnRequest is null)
            Assert.True(SpinWait.SpinUntil(() => Volatile.Read(ref samples) >= 3, TestSchedulers.Timeout)); // not 20 s away

            rebalancer.SampleInterval = Timeout.InfiniteTimeSpan;
            Assert.Equal(TimeSpan.Zero, rebalancer.SampleInterval); // none between decisions
            // The wait under way (at most 5 ms) may still end in a sample; then none for as long as the test looks. At
            // 5 ms sampling a 100 ms look would see about 20, so the loop ends only once sampling has stopped.
            var looking = System.Diagnostics.Stopwatch.StartNew();
            int before;
            do
            {
                before = Volatile.Read(ref samples);
                Thread.Sleep(100);
            }
            while (Volatile.Read(ref samples) != before && looking.Elapsed < TestSchedulers.Timeout);
            Assert.Equal(before, Volatile.Read(ref samples));
        }
        finally
        {
            Assert.True(rebalancer.Stop(TestSchedulers.Timeout));
        }
    }

    private static MultiprogramScheduler Create(FakeCpuArbiter fake, int workers, bool lending = true, TimeSpan? interval = null) =>
        new(new MultiprogramSchedulerOptions
        {
            Pin = false,
            WorkerCount = workers,
            Policy = new EqualSharePolicy(),
            RebalanceInterval = interval ?? Timeout.InfiniteTimeSpan,
            EnableLending = lending,
            MachineDomain = new MachineDomainOptions { Name = "test" },
            ArbiterFactory = _ => fake,
        });

    private static Task RunRecorded(MultiprogramScheduler scheduler, ProgramTaskScheduler program, int count, ConcurrentBag<int> cpus) =>
        Task.WhenAll(Enumerable.Range(0, count).Select(_ => program.Run(() =>
        {
            cpus.Add(scheduler.CpuOfWorker(Worker.Current!.Cpu.Index));
            Thread.SpinWait(100);
        })));

    /// <summary>Parks in the idle set of the CPUs from <paramref name="first"/> on (both their workers).</summary>
    private static long WithheldParks(MultiprogramScheduler scheduler, int first) =>
        scheduler.Pool.InitialSet.ReadWorkerStatistics(_ => null, scheduler.WorkerCount).Where(w => w.WorkerIndex >= first).Sum(w => w.Parks);

    /// <summary>The servers of the withheld CPUs have gone home to the idle set and parked (bounded wait).</summary>
    private static void WaitUntilWithheldAsleep(MultiprogramScheduler scheduler, int[] withheld) =>
        Assert.True(
            SpinWait.SpinUntil(
                () => withheld.All(cpu => scheduler.GetWorkerAssignments()[cpu].Serving is null && scheduler.Pool.Cpus[cpu].Server.IsParked),
                TestSchedulers.Timeout),
            "A withheld CPU's worker never went to sleep.");

    /// <summary>Each program holds exactly its CPUs (null: withheld); counts and withheld CPUs sum to the workers.</summary>
    private static void AssertPlacement(MultiprogramScheduler scheduler, params (ProgramTaskScheduler? Program, int[] Cpus)[] expected)
    {
        IReadOnlyList<WorkerAssignment> workers = scheduler.GetWorkerAssignments();
        foreach (var (program, cpus) in expected)
        {
            Assert.All(cpus, cpu => Assert.Equal(program?.ProgramId, workers.Single(w => w.CpuId == cpu).Owner));
            if (program is not null)
            {
                Assert.Equal(cpus.Length, program.CurrentCores);
                Assert.Equal(cpus.Length, workers.Count(w => w.Owner == program.ProgramId));
            }
        }

        int[] withheld = [.. expected.Where(e => e.Program is null).SelectMany(e => e.Cpus).Order()];
        Assert.Equal(withheld, scheduler.WithheldCpus.Order());
        Assert.Equal(scheduler.WorkerCount, scheduler.Programs.Sum(p => p.CurrentCores) + scheduler.WithheldCpus.Count);
    }
}
