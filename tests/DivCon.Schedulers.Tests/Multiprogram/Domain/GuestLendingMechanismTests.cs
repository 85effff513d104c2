using System.Collections.Concurrent;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Domain;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Tests.Multiprogram.Mechanism;
using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Tests.Multiprogram.Domain;

/// <summary>
/// Cross-process lending driven by an in-memory guest board: a withheld CPU runs this process's tasks only while the
/// board says its holder is idle, leaves within a task once the holder is busy, loses no task however often the
/// holder's state flips, publishes its own CPUs' states, and stops with the scheduler. Flat unpinned topologies.
/// </summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class GuestLendingMechanismTests
{
    [Fact]
    public void A_guest_never_takes_a_task_while_the_holder_is_busy()
    {
        var fake = new FakeCpuArbiter();
        var board = new FakeGuestBoard { Idle = false };
        using var scheduler = Create(fake, board, workers: 4);
        using var watch = new DecisionWatch(scheduler);
        using var a = scheduler.Register("a");
        watch.ForEpoch(fake.Grant((a, [0, 1])));
        WaitUntilWithheldAsleep(scheduler, [2, 3]);
        board.WaitForRefreshes(5);

        var cpus = new ConcurrentBag<int>();
        RunRecorded(scheduler, a, 3000, 2000, cpus).AssertCompletes();

        Assert.Equal(3000, cpus.Count);
        Assert.DoesNotContain(cpus, cpu => cpu >= 2);
        Assert.Equal(0, scheduler.Guests!.Loans);
        Assert.True(board.Asked > 0, "The watcher never looked at the withheld CPUs' holders.");
    }

    [Fact]
    public void While_the_holder_is_idle_withheld_cpus_run_this_processs_tasks()
    {
        var fake = new FakeCpuArbiter();
        var board = new FakeGuestBoard { Idle = true };
        using var scheduler = Create(fake, board, workers: 4);
        using var watch = new DecisionWatch(scheduler);
        using var a = scheduler.Register("a");
        watch.ForEpoch(fake.Grant((a, [0, 1])));
        WaitUntilWithheldAsleep(scheduler, [2, 3]); // asleep in the idle set: only the watcher wakes them

        var cpus = new ConcurrentBag<int>();
        Assert.True(
            SpinWait.SpinUntil(() => { RunRecorded(scheduler, a, 500, 20_000, cpus).AssertCompletes(); return cpus.Any(c => c >= 2); }, TestSchedulers.Timeout),
            "No task ran on a withheld CPU whose holder was idle.");

        GuestLending guests = scheduler.Guests!;
        Assert.True(guests.Loans > 0);
        Assert.True(guests.Wakes > 0); // the watcher woke a parked withheld worker
        Assert.Equal(2, a.CurrentCores); // lending changes no grant
        Assert.Equal([2, 3], scheduler.WithheldCpus.Order());
    }

    [Fact]
    public void Once_the_holder_is_busy_each_guest_starts_at_most_one_more_task_and_none_is_lost()
    {
        var fake = new FakeCpuArbiter();
        var board = new FakeGuestBoard { Idle = true };
        using var scheduler = Create(fake, board, workers: 4);
        using var watch = new DecisionWatch(scheduler);
        using var a = scheduler.Register("a");
        watch.ForEpoch(fake.Grant((a, [0, 1])));
        WaitUntilWithheldAsleep(scheduler, [2, 3]); // CPUs 2 and 3 serve a's tasks from now on only as guests

        // Every task started before the flip waits for it, so the program's queue is still full when the holder turns
        // busy: a guest lent at the flip cannot leave because its borrower ran dry, only by handing the CPU back.
        const int Count = 20_000;
        int sequence = 0;
        var started = new ConcurrentQueue<(int Sequence, int Cpu)>();
        using var guestSeen = new ManualResetEventSlim();
        using var flipped = new ManualResetEventSlim();
        Task all = Task.WhenAll(Enumerable.Range(0, Count).Select(_ => a.Run(() =>
        {
            int cpu = scheduler.CpuOfWorker(Worker.Current!.Cpu.Index);
            started.Enqueue((Interlocked.Increment(ref sequence), cpu));
            if (cpu >= 2)
            {
                guestSeen.Set();
            }

            flipped.Wait(TestSchedulers.Timeout);
            Thread.SpinWait(3000);
        })));
        Assert.True(guestSeen.Wait(TestSchedulers.Timeout), "No guest ran before the flip.");

        board.Idle = false; // the holder has work again
        int flip = Interlocked.Increment(ref sequence);
        Assert.True(Count - started.Count > 4, "The queue ran dry before the flip."); // at most one waiting task per worker
        flipped.Set();
        all.AssertCompletes();

        Assert.Equal(Count, started.Count); // every task ran once
        int late = started.Count(s => s.Sequence > flip && s.Cpu >= 2);
        Assert.InRange(late, 0, 2 * 2); // per guest CPU: the task it was taking at the flip and the one after its last look
        // A guest counts its hand-back at the boundary after its task, which can come after the last task completed.
        Assert.True(SpinWait.SpinUntil(() => scheduler.Guests!.Handbacks >= 1, TestSchedulers.Timeout), "No guest handed its CPU back.");
    }

    [Fact]
    public void Flipping_the_holders_state_during_a_divide_and_conquer_run_loses_and_duplicates_nothing()
    {
        var fake = new FakeCpuArbiter();
        var board = new FakeGuestBoard { Idle = true };
        using var scheduler = Create(fake, board, workers: 4);
        using var watch = new DecisionWatch(scheduler);
        using var a = scheduler.Register("a");
        using var b = scheduler.Register("b");
        watch.ForEpoch(fake.Grant((a, [0]), (b, [1])));
        var ledgerA = new TaskLedger(a, spinPerLeaf: 200, spawners: 40, leavesPerSpawner: 500, longLeafEvery: 499);
        var ledgerB = new TaskLedger(b, spinPerLeaf: 200, spawners: 40, leavesPerSpawner: 500);
        ledgerA.Start();
        ledgerB.Start();

        // The holder stays idle until the first loan, so that the flips below act on loans under way even where the
        // watcher is slow to be scheduled (a loaded machine, Mono, where both runs have been seen to end before any loan).
        Task both = Task.WhenAll(ledgerA.Done, ledgerB.Done);
        Assert.True(SpinWait.SpinUntil(() => scheduler.Guests!.Loans > 0 || both.IsCompleted, TestSchedulers.Timeout));
        var random = new Random(11);
        while (!both.Wait(TimeSpan.FromMilliseconds(random.Next(1, 4))))
        {
            board.Idle = !board.Idle;
        }

        Assert.Equal((ledgerA.LeafCount, ledgerB.LeafCount), (ledgerA.RanCount, ledgerB.RanCount));
        Assert.Equal(0, ledgerA.Duplicates + ledgerB.Duplicates);
        Assert.True(scheduler.Guests!.Loans > 0);
    }

    [Fact]
    public void Servers_publish_idle_when_they_park_on_granted_cpus_busy_when_they_wake_and_nothing_on_withheld_ones()
    {
        var fake = new FakeCpuArbiter();
        var board = new FakeGuestBoard { Idle = false };
        using var scheduler = Create(fake, board, workers: 4);
        using var watch = new DecisionWatch(scheduler);
        using var a = scheduler.Register("a");
        watch.ForEpoch(fake.Grant((a, [0, 1])));
        WaitUntilWithheldAsleep(scheduler, [2, 3]);

        Assert.True(
            SpinWait.SpinUntil(
                () => board.Last(0) == GuestCpuState.Idle && board.Last(1) == GuestCpuState.Idle && board.Last(2) == GuestCpuState.None && board.Last(3) == GuestCpuState.None,
                TestSchedulers.Timeout),
            $"Published: {board.Describe()}");
        int before = board.PublishedCount; // earlier: CPUs 2 and 3 were a's until the grant

        a.Run(() => Thread.SpinWait(1000)).AssertCompletes();

        Assert.Contains(board.PublishedSince(before), p => p.Cpu is 0 or 1 && p.State == GuestCpuState.Busy);
        Assert.DoesNotContain(board.PublishedSince(before), p => p.Cpu >= 2 && p.State != GuestCpuState.None);
    }

    [Fact]
    public void Disposing_mid_loan_runs_every_accepted_task_and_frees_the_board()
    {
        var fake = new FakeCpuArbiter();
        var board = new FakeGuestBoard { Idle = true };
        var scheduler = Create(fake, board, workers: 4);
        using var watch = new DecisionWatch(scheduler);
        var a = scheduler.Register("a");
        watch.ForEpoch(fake.Grant((a, [0, 1])));
        int ran = 0;
        using var guestSeen = new ManualResetEventSlim();
        Task all = Task.WhenAll(Enumerable.Range(0, 5000).Select(_ => a.Run(() =>
        {
            if (scheduler.CpuOfWorker(Worker.Current!.Cpu.Index) >= 2)
            {
                guestSeen.Set();
            }

            Thread.SpinWait(3000);
            Interlocked.Increment(ref ran);
        })));
        Assert.True(guestSeen.Wait(TestSchedulers.Timeout), "No guest ran.");

        Assert.True(scheduler.Shutdown(TestSchedulers.Timeout));

        all.AssertCompletes();
        Assert.Equal(5000, Volatile.Read(ref ran));
        Assert.True(board.Disposed);
        Assert.Null(scheduler.Guests);
        scheduler.Dispose(); // a second disposal does nothing
        a.Dispose();
    }

    [Fact]
    public void Without_the_option_no_board_is_opened_and_a_board_that_fails_leaves_the_cpus_withheld()
    {
        var fake = new FakeCpuArbiter();
        int opened = 0;
        using (var plain = new MultiprogramScheduler(Options(fake, _ => { Interlocked.Increment(ref opened); return new FakeGuestBoard(); }, workers: 2, guests: false)))
        {
            Assert.Null(plain.Guests);
        }

        Assert.Equal(0, opened);

        var failing = new FakeCpuArbiter();
        using var scheduler = new MultiprogramScheduler(Options(failing, _ => { Interlocked.Increment(ref opened); throw new IOException("no board"); }, workers: 4, guests: true));
        using var watch = new DecisionWatch(scheduler);
        using var a = scheduler.Register("a");
        watch.ForEpoch(failing.Grant((a, [0, 1])));
        WaitUntilWithheldAsleep(scheduler, [2, 3]); // a worker spinning in a's set at the grant may still take one task
        Assert.True(SpinWait.SpinUntil(() => Volatile.Read(ref opened) > 0, TestSchedulers.Timeout));
        var cpus = new ConcurrentBag<int>();
        RunRecorded(scheduler, a, 1000, 2000, cpus).AssertCompletes();

        Assert.False(scheduler.Guests!.HasBoard);
        Assert.DoesNotContain(cpus, cpu => cpu >= 2);
    }

    private static MultiprogramScheduler Create(FakeCpuArbiter fake, FakeGuestBoard board, int workers) =>
        new(Options(fake, _ => board, workers, guests: true));

    private static MultiprogramSchedulerOptions Options(FakeCpuArbiter fake, Func<MachineDomainOptions, IGuestBoard?> board, int workers, bool guests) => new()
    {
        Pin = false,
        WorkerCount = workers,
        Policy = new EqualSharePolicy(),
        RebalanceInterval = Timeout.InfiniteTimeSpan,
        MachineDomain = new MachineDomainOptions { Name = "test", Guests = guests },
        ArbiterFactory = _ => fake,
        GuestBoardFactory = board,
    };

    private static Task RunRecorded(MultiprogramScheduler scheduler, ProgramTaskScheduler program, int count, int spin, ConcurrentBag<int> cpus) =>
        Task.WhenAll(Enumerable.Range(0, count).Select(_ => program.Run(() =>
        {
            cpus.Add(scheduler.CpuOfWorker(Worker.Current!.Cpu.Index));
            Thread.SpinWait(spin);
        })));

    private static void WaitUntilWithheldAsleep(MultiprogramScheduler scheduler, int[] withheld) =>
        Assert.True(
            SpinWait.SpinUntil(
                () => withheld.All(cpu => scheduler.GetWorkerAssignments()[cpu].Serving is null && scheduler.Pool.Cpus[cpu].Server.IsParked),
                TestSchedulers.Timeout),
            "A withheld CPU's worker never went to sleep.");

    /// <summary>A board in memory: one holder state for every CPU, every publication recorded.</summary>
    private sealed class FakeGuestBoard : IGuestBoard
    {
        private readonly ConcurrentQueue<(int Cpu, GuestCpuState State)> _published = new();
        private readonly ConcurrentDictionary<int, GuestCpuState> _last = new();
        private readonly ManualResetEventSlim _refreshed = new();
        private volatile bool _idle;
        private int _refreshes;
        private int _asked;
        private int _disposed;

        public bool Idle
        {
            get => _idle;
            set => _idle = value;
        }

        public int Asked => Volatile.Read(ref _asked);

        public bool Disposed => Volatile.Read(ref _disposed) != 0;

        public int PublishedCount => _published.Count;

        public GuestCpuState? Last(int cpu) => _last.TryGetValue(cpu, out GuestCpuState state) ? state : null;

        public IReadOnlyList<(int Cpu, GuestCpuState State)> PublishedSince(int index) => [.. _published.Skip(index)];

        public string Describe() => string.Join(", ", _last.OrderBy(p => p.Key).Select(p => $"{p.Key}={p.Value}"));

        public void WaitForRefreshes(int count) =>
            Assert.True(SpinWait.SpinUntil(() => Volatile.Read(ref _refreshes) >= count, TestSchedulers.Timeout), "The watcher never refreshed the board.");

        public bool Refresh(long now)
        {
            Interlocked.Increment(ref _refreshes);
            return !Disposed;
        }

        public void Publish(int cpu, GuestCpuState state)
        {
            _published.Enqueue((cpu, state));
            _last[cpu] = state;
        }

        public bool OwnerIdle(int cpu)
        {
            Interlocked.Increment(ref _asked);
            return !Disposed && _idle;
        }

        public void Dispose()
        {
            Interlocked.Exchange(ref _disposed, 1);
            _refreshed.Dispose();
        }
    }
}
