using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>
/// Bursts first in the mechanism ([B1], [B2] in Workers/README.md): workers serving a program that yields serve a
/// bursty program's queued tasks from their next boundary, stay while the burst has queued tasks, then go home.
/// </summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class MechanismBurstsFirstTests
{
    /// <summary>An equal split whose decisions give the programs the roles set here (by registration index).</summary>
    private sealed class RolesPolicy(params BurstRole[] roles) : IAllocationPolicy
    {
        private readonly EqualSharePolicy _split = new();

        public string Name => "roles";

        public AllocationDecision Allocate(AllocationSnapshot snapshot)
        {
            var decision = _split.Allocate(snapshot);
            return snapshot.Programs.Count != roles.Length
                ? decision
                : new AllocationDecision(Name, snapshot, decision.Cores, usedFastPath: false, "equal split with roles") { BurstRoles = roles };
        }

        public bool IsStillValid(AllocationSnapshot current, AllocationDecision previous) => false;
    }

    /// <summary>
    /// Keeps <paramref name="program"/> saturated: every task queues two more until <paramref name="stop"/> is set, so
    /// the program always has queued work and its workers never idle.
    /// </summary>
    private static void Saturate(ProgramTaskScheduler program, ManualResetEventSlim stop, int workers)
    {
        void Stream()
        {
            Thread.SpinWait(200);
            if (!stop.IsSet)
            {
                program.Start(Stream);
                program.Start(Stream);
            }
        }

        for (int i = 0; i < workers; i++)
        {
            program.Start(Stream);
        }
    }

    /// <summary>
    /// The most of <paramref name="count"/> tasks of <paramref name="program"/> that ran at the same time. Each task
    /// waits, up to <paramref name="patience"/>, until <paramref name="meet"/> of them are running at once (a wait on an
    /// event, not a sleep: as soon as they meet, every task returns), so the count does not depend on the machine's load.
    /// </summary>
    private static int Burst(ProgramTaskScheduler program, int count, int meet, TimeSpan patience)
    {
        int running = 0, most = 0;
        using var met = new ManualResetEventSlim();
        Task[] tasks = [.. Enumerable.Range(0, count).Select(_ => program.Start(() =>
        {
            int now = Interlocked.Increment(ref running);
            TestSchedulers.InterlockedMax(ref most, now);
            if (now >= meet)
            {
                met.Set();
            }

            met.Wait(patience);
            Interlocked.Decrement(ref running);
        }))];
        Assert.True(Task.WaitAll(tasks, TestSchedulers.Timeout), $"The burst did not finish: its tasks waited for {meet} of them to run at once, and {Volatile.Read(ref most)} did.");
        return most;
    }

    [Fact]
    public void A_yielding_programs_workers_serve_a_burst_at_their_next_boundary_and_go_home_after_it()
    {
        using var scheduler = MechanismSchedulers.Unpinned(4, new RolesPolicy(BurstRole.Bursty, BurstRole.Yields));
        using var bursty = scheduler.Register("a (bursty)");
        using var saturated = scheduler.Register("b (saturated, yields)");
        Assert.Equal((2, 2), (bursty.CurrentCores, saturated.CurrentCores));
        Assert.True(SpinWait.SpinUntil(() => scheduler.GetWorkerAssignments().All(w => !w.IsAway), TestSchedulers.Timeout));

        using var stop = new ManualResetEventSlim();
        try
        {
            Saturate(saturated, stop, 4);
            Assert.True(SpinWait.SpinUntil(
                () => scheduler.GetWorkerAssignments().Count(w => w.Serving == saturated.ProgramId) == 4, TestSchedulers.Timeout),
                "a's idle workers were not lent to b.");

            // Eight tasks of a that wait for four of them to run at once: its own two workers come home, and b's two
            // serve the burst too (without them the tasks would wait out the whole timeout and meet only two).
            Assert.Equal(4, Burst(bursty, 8, meet: 4, TestSchedulers.Timeout));
            Assert.Equal((2, 2), (bursty.CurrentCores, saturated.CurrentCores)); // yielding never changes ownership

            // The burst is over: b is served by all four again (its own two home, a's two lent once a is idle).
            Assert.True(SpinWait.SpinUntil(
                () => scheduler.GetWorkerAssignments().Count(w => w.Serving == saturated.ProgramId) == 4, TestSchedulers.Timeout),
                "b's workers did not come home after the burst.");
        }
        finally
        {
            stop.Set();
        }

        Assert.True(SpinWait.SpinUntil(() => saturated.OutstandingTasks == 0, TestSchedulers.Timeout), "b's stream did not drain.");
    }

    [Fact]
    public void Without_roles_a_saturated_programs_workers_stay_with_it_during_a_burst()
    {
        using var scheduler = MechanismSchedulers.Unpinned(4, new RolesPolicy());
        using var bursty = scheduler.Register("a");
        using var saturated = scheduler.Register("b");
        Assert.True(SpinWait.SpinUntil(() => scheduler.GetWorkerAssignments().All(w => !w.IsAway), TestSchedulers.Timeout));

        using var stop = new ManualResetEventSlim();
        try
        {
            Saturate(saturated, stop, 4);
            Assert.True(SpinWait.SpinUntil(
                () => scheduler.GetWorkerAssignments().Count(w => w.Serving == saturated.ProgramId) == 4, TestSchedulers.Timeout));

            // b always has queued work, so its own workers never idle and never lend themselves: a has its two. Each of
            // a's tasks waits up to 50 ms for a third to join it; none does.
            Assert.Equal(2, Burst(bursty, 8, meet: 3, TimeSpan.FromMilliseconds(50)));
        }
        finally
        {
            stop.Set();
        }

        Assert.True(SpinWait.SpinUntil(() => saturated.OutstandingTasks == 0, TestSchedulers.Timeout));
    }

    [Fact]
    public void The_director_sends_only_a_yielding_programs_workers_to_the_first_bursty_program_with_work()
    {
        using var owner = new WorkStealingTaskScheduler(1);
        WorkQueueSet Set() => new(owner, _ => true, VictimOrder.Flat(1));
        WorkQueueSet first = Set(), second = Set(), yielding = Set(), other = Set(), idle = Set();
        var director = new WorkerDirector(lending: true, idle) { Sets = [first, second, yielding, other] };

        Assert.Null(director.BurstFor(yielding)); // no roles yet
        director.SetBurstRoles([first, second], [yielding]);
        Assert.Null(director.BurstFor(yielding)); // no burst has queued work
        Assert.False(director.StaysForBurst(yielding, first));

        Assert.True(second.TryQueue(new Task(() => { })));
        Assert.Same(second, director.BurstFor(yielding));
        Assert.True(director.StaysForBurst(yielding, second));
        Assert.Null(director.BurstFor(other));             // not a yielding program: its workers stay
        Assert.Null(director.BurstFor(first));             // a bursty program's workers stay too
        Assert.False(director.StaysForBurst(other, second)); // lent from a home that does not yield: the usual rule
        Assert.False(director.StaysForBurst(yielding, other)); // serving a set that is not bursty

        Assert.True(first.TryQueue(new Task(() => { })));
        Assert.Same(first, director.BurstFor(yielding)); // registration order: the first bursty program first

        director.SetBurstRoles([], []);
        Assert.Null(director.BurstFor(yielding));
        Assert.False(director.StaysForBurst(yielding, first));

        // Without lending there is no bursts first either.
        var noLending = new WorkerDirector(lending: false, idle) { Sets = [first, second, yielding, other] };
        noLending.SetBurstRoles([first, second], [yielding]);
        Assert.Null(noLending.BurstFor(yielding));
    }
}
