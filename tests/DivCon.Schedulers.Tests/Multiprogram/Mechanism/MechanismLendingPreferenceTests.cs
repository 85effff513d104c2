using System.Collections.Concurrent;
using System.Diagnostics;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>
/// The lending preference in the mechanism (<see cref="MultiprogramSchedulerOptions.LendingPreference"/>): which
/// program an idle worker serves, the busy-period stamps it reads, no task lost or run twice, bad values refused.
/// </summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class MechanismLendingPreferenceTests
{
    [Fact]
    public void Oldest_run_serves_the_program_busy_longest_then_the_younger_one_and_a_new_start_last()
    {
        // One worker, owned by a. Registered so that the oldest run is last in turn: c (only a new start) comes first,
        // then d (two tasks queued, busy since later), then b (busy longest).
        using MultiprogramScheduler scheduler = Scheduler(1, LendingPreference.OldestRun);
        using ProgramTaskScheduler c = scheduler.Register("c (new start)");
        using ProgramTaskScheduler d = scheduler.Register("d (busy since later)");
        using ProgramTaskScheduler b = scheduler.Register("b (busy longest)");
        using ProgramTaskScheduler a = scheduler.Register("a (owner)");
        scheduler.SetAllocation([new(c, 0), new(d, 0), new(b, 0), new(a, 1)]);

        var order = new ConcurrentQueue<string>();
        using var release = new ManualResetEventSlim();
        Task held = Hold(a, release);

        // While the one worker is held, the others queue from outside: b first, then d, then c's single task.
        Task Record(ProgramTaskScheduler program, string name) => program.Start(() => order.Enqueue(name));

        Task[] queued =
        [
            Record(b, "b1"), Record(b, "b2"),
            Record(d, "d1"), Record(d, "d2"),
            Record(c, "c1"),
        ];
        Assert.True(b.Queues.BusySince < d.Queues.BusySince && d.Queues.BusySince < c.Queues.BusySince, "The stamps follow the arrivals.");
        release.Set();
        Assert.True(Task.WaitAll([held, .. queued], TestSchedulers.Timeout), "Not every task ran.");

        // The owner's worker, idle at home, lends itself to b (busy longest), stays while b has work, then d, then c.
        Assert.Equal(["b1", "b2", "d1", "d2", "c1"], order);
    }

    [Fact]
    public void A_busy_period_is_stamped_when_a_task_arrives_at_an_idle_program_and_not_while_it_has_work()
    {
        using MultiprogramScheduler scheduler = Scheduler(1, LendingPreference.OldestRun);
        using ProgramTaskScheduler a = scheduler.Register("a");
        using ProgramTaskScheduler b = scheduler.Register("b");
        using ProgramTaskScheduler c = scheduler.Register("c");
        scheduler.SetAllocation([new(a, 1), new(b, 0), new(c, 0)]);
        using var release = new ManualResetEventSlim();
        Task held = Hold(a, release);
        Task? first = null, second = null, third = null;
        try
        {
            long registered = b.Queues.BusySince;
            first = b.Start(() => { });
            long stamped = b.Queues.BusySince;
            second = b.Start(() => { }); // b has one task outstanding: the same busy period
            Assert.True(stamped > registered, "The first task of an idle program did not start a busy period.");
            Assert.Equal(stamped, b.Queues.BusySince);
            third = c.Start(() => { });
            Assert.True(c.Queues.BusySince > stamped, "A later arrival at another idle program is not stamped later.");
        }
        finally
        {
            release.Set();
        }

        Assert.True(Task.WaitAll([held, first!, second!, third!], TestSchedulers.Timeout));
    }

    [Fact]
    public void Without_the_oldest_run_rule_no_busy_period_is_stamped()
    {
        using MultiprogramScheduler scheduler = Scheduler(1, LendingPreference.RunsInProgress);
        using ProgramTaskScheduler a = scheduler.Register("a");
        a.Start(() => { }).AssertCompletes();
        Assert.Equal(0, a.Queues.BusySince);
        Assert.Equal(LendingPreference.RunsInProgress, scheduler.LendingPreference);
    }

    [Theory]
    [InlineData(LendingPreference.OldestRun)]
    [InlineData(LendingPreference.RunsInProgress)]
    public void No_task_is_lost_or_run_twice_across_three_programs_starting_and_stopping(LendingPreference preference)
    {
        // Three programs on four workers; each queues its work from outside in waves, the programs in rotating order,
        // so that programs go idle and busy again while the others run and lend (new busy periods, new starts).
        using MultiprogramScheduler scheduler = Scheduler(4, preference, standby: true);
        TaskLedger[] ledgers = [.. Enumerable.Range(0, 3).Select(i => new TaskLedger(scheduler.Register($"p{i}"), spinPerLeaf: 20, spawners: 40, leavesPerSpawner: 200))];
        const int Waves = 8;
        int perWave = ledgers[0].SpawnerCount / Waves;
        for (int wave = 0; wave < Waves; wave++)
        {
            for (int i = 0; i < ledgers.Length; i++)
            {
                ledgers[(i + wave) % ledgers.Length].Start(wave * perWave, perWave);
            }

            Thread.Yield();
        }

        Assert.True(Task.WaitAll([.. ledgers.Select(l => l.Done)], TestSchedulers.Timeout), "Not every program finished.");
        foreach (TaskLedger ledger in ledgers)
        {
            Assert.Equal((ledger.LeafCount, 0, 0), (ledger.RanCount, ledger.Duplicates, ledger.ThreadChanges));
            Assert.Empty(ledger.ForeignThreads);
        }
    }

    [Theory]
    [InlineData(-1)]
    [InlineData(3)]
    [InlineData(int.MaxValue)]
    public void An_undefined_lending_preference_is_refused_naming_the_options_and_the_value(int value)
    {
        var error = Assert.Throws<ArgumentOutOfRangeException>(() => new MultiprogramScheduler(new MultiprogramSchedulerOptions
        {
            Pin = false,
            WorkerCount = 1,
            LendingPreference = (LendingPreference)value,
        }));
        Assert.Equal("options", error.ParamName);
        Assert.Equal((LendingPreference)value, error.ActualValue);
        Assert.Contains(nameof(MultiprogramSchedulerOptions.LendingPreference), error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_default_is_round_robin_and_stamps_nothing()
    {
        Assert.Equal(LendingPreference.RoundRobin, new MultiprogramSchedulerOptions().LendingPreference);
        using MultiprogramScheduler scheduler = MechanismSchedulers.Unpinned(1);
        using ProgramTaskScheduler a = scheduler.Register("a");
        a.Start(() => { }).AssertCompletes();
        Assert.Equal((LendingPreference.RoundRobin, 0L), (scheduler.LendingPreference, a.Queues.BusySince));
    }

    /// <summary>
    /// Unpinned workers, equal shares, no interval decisions, strictly increasing stamps. Without standby threads unless
    /// asked for: with one thread per CPU the order in which tasks start is the order of that thread's choices (a
    /// standby that took the CPU over while the owner's task was held would be a second thread choosing).
    /// </summary>
    // Starts a task of owner that holds its worker until release is set; returns once that task runs.
    private static Task Hold(ProgramTaskScheduler owner, ManualResetEventSlim release)
    {
        using var holding = new ManualResetEventSlim();
        Task held = owner.Start(() =>
        {
            holding.Set(); // before the wait below returns: the task never touches holding after it is disposed
            Assert.True(release.Wait(TestSchedulers.Timeout), "The test never released the owner's task.");
        });
        Assert.True(holding.Wait(TestSchedulers.Timeout), "The owner's task never started.");
        return held;
    }

    private static MultiprogramScheduler Scheduler(int workers, LendingPreference preference, bool standby = false) => new(new MultiprogramSchedulerOptions
    {
        Pin = false,
        WorkerCount = workers,
        Policy = new EqualSharePolicy(),
        RebalanceInterval = Timeout.InfiniteTimeSpan,
        MoveHandoverThreshold = standby ? MultiprogramSchedulerOptions.DefaultMoveHandoverThreshold : Timeout.InfiniteTimeSpan,
        LendingPreference = preference,
        TimeProvider = new StrictlyIncreasingClock(),
    });

    /// <summary>The system clock, made strictly increasing from one reading to the next (stamps never tie).</summary>
    private sealed class StrictlyIncreasingClock : TimeProvider
    {
        private long _last;

        public override long GetTimestamp()
        {
            long last = Volatile.Read(ref _last);
            while (true)
            {
                long next = Math.Max(Stopwatch.GetTimestamp(), last + 1);
                // CAS: concurrent readers each get a distinct, later value.
                long seen = Interlocked.CompareExchange(ref _last, next, last);
                if (seen == last)
                {
                    return next;
                }

                last = seen;
            }
        }
    }
}
