namespace DivCon.Schedulers.Tests;

/// <summary>Idle workers park instead of spinning, and queuing a task always wakes one (no lost wake-ups).</summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class SchedulerParkingTests
{
    public static TheoryData<SchedulerKind> Kinds => TestSchedulers.Kinds;

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void Idle_workers_park_and_wake_for_new_work(SchedulerKind kind)
    {
        using var scheduler = TestSchedulers.Create(kind);
        scheduler.Start(() => { }).AssertCompletes();

        // Parked = announced asleep; the park counter is bumped just before blocking, so wait for both.
        Assert.True(SpinWait.SpinUntil(
            () => AllParked(scheduler) && scheduler.Statistics.Parks >= scheduler.WorkerCount, TestSchedulers.Timeout));
        long parksWhenIdle = scheduler.Statistics.Parks;

        scheduler.Start(() => { }).AssertCompletes();
        Assert.True(SpinWait.SpinUntil(
            () => AllParked(scheduler) && scheduler.Statistics.Parks > parksWhenIdle, TestSchedulers.Timeout));
    }

    private static bool AllParked(WorkerPoolTaskScheduler scheduler) =>
        scheduler.ParkedWorkerCount == scheduler.WorkerCount && scheduler.Queues.Sleepers == scheduler.WorkerCount;

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void An_idle_scheduler_stays_parked(SchedulerKind kind)
    {
        using var scheduler = TestSchedulers.Create(kind);
        scheduler.Start(() => { }).AssertCompletes();
        Assert.True(SpinWait.SpinUntil(
            () => AllParked(scheduler) && scheduler.Statistics.Parks >= scheduler.WorkerCount, TestSchedulers.Timeout));
        long parks = scheduler.Statistics.Parks;
        long executed = scheduler.Statistics.TasksExecuted;

        // Parked workers block in the kernel: no periodic wake-ups, so nothing changes while nothing is queued.
        using var neverSet = new ManualResetEventSlim();
        Assert.False(neverSet.Wait(TimeSpan.FromMilliseconds(200)));
        Assert.True(AllParked(scheduler));
        Assert.Equal(parks, scheduler.Statistics.Parks);
        Assert.Equal(executed, scheduler.Statistics.TasksExecuted);
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void Every_task_queued_from_outside_wakes_a_worker(SchedulerKind kind)
    {
        using var scheduler = TestSchedulers.Create(kind);
        // Ping-pong: each task is queued while the workers are on their way to sleep or asleep; a lost wake-up
        // would leave a task unrun and fail the bounded wait.
        for (int i = 0; i < 2000; i++)
        {
            scheduler.Start(() => { }).AssertCompletes();
        }

        Assert.Equal(0, scheduler.AvailableTasks);
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void Tasks_pushed_by_a_worker_wake_parked_siblings(SchedulerKind kind)
    {
        using var scheduler = TestSchedulers.Create(kind);
        Skip.If(scheduler.WorkerCount < 2, "Needs a second worker (a second allowed CPU for the affinity kind) to wake.");

        for (int round = 0; round < 50; round++)
        {
            Assert.True(SpinWait.SpinUntil(() => AllParked(scheduler), TestSchedulers.Timeout));
            AssertSiblingPicksUpPushedTask(scheduler, round);
        }

        Assert.True(scheduler.Statistics.Steals >= 50);
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void Pushes_racing_with_a_sibling_going_to_sleep_are_never_lost(SchedulerKind kind)
    {
        using var scheduler = TestSchedulers.Create(kind);
        Skip.If(scheduler.WorkerCount < 2, "Needs a second worker (a second allowed CPU for the affinity kind) to wake.");

        var random = new Random(7);
        for (int round = 0; round < 400; round++)
        {
            // A random pause puts the idle sibling at a different point of spin -> announce -> recheck -> park.
            Thread.SpinWait(random.Next(0, 1 << random.Next(1, 17)));
            AssertSiblingPicksUpPushedTask(scheduler, round);
        }
    }

    // The first task pushes a second onto its own deque and waits for it at a barrier: only a woken sibling
    // (which steals it) can get both past the barrier.
    private static void AssertSiblingPicksUpPushedTask(WorkerPoolTaskScheduler scheduler, int round)
    {
        using var barrier = new Barrier(2);
        var pair = scheduler.Start(() =>
        {
            var sibling = scheduler.Start(() => barrier.SignalAndWait(TestSchedulers.Timeout));
            bool met = barrier.SignalAndWait(TestSchedulers.Timeout);
            return met && sibling.Wait(TestSchedulers.Timeout) && sibling.Result;
        });

        pair.AssertCompletes();
        Assert.True(pair.Result, $"Round {round}: the pushed task was not picked up by a sibling.");
    }
}
