using Xunit.Abstractions;

namespace DivCon.Schedulers.Tests.ModelChecking;

/// <summary>
/// Exhaustive checks of the park/wake protocol (README-wakeups.md) on <see cref="WorkerPoolModel"/> under
/// x86-TSO: no lost wake-up, no task run twice, sleeper counts consistent, one release per sleep. Removing the
/// sleeper-side barrier or the producer's wake is found with a counterexample.
/// </summary>
public sealed class WakeProtocolModelTests(ITestOutputHelper output)
{
    /// <summary>W0 runs a task that pushes task 1 and then runs for good; W1 is about to look for work and park.</summary>
    internal static readonly PoolScenario PushWhileParking = new("push while a worker parks")
    {
        Workers = 2,
        RunningWorker = 0,
        PushedByRunningTask = [1],
        RunningTaskNeverEnds = true,
    };

    /// <summary>W0 pushes two tasks and runs for good; W1 and W2 look for work, park and wake each other's way.</summary>
    internal static readonly PoolScenario TwoPushesTwoSleepers = new("two pushes, two sleepers")
    {
        Workers = 3,
        RunningWorker = 0,
        PushedByRunningTask = [1, 2],
        RunningTaskNeverEnds = true,
    };

    /// <summary>W0 pushes a task and goes back to its loop (spinning once) while W1 parks: either may run it.</summary>
    internal static readonly PoolScenario PushThenLoop = new("push, then back to the loop")
    {
        Workers = 2,
        RunningWorker = 0,
        PushedByRunningTask = [1],
        SpinRounds = 1,
    };

    /// <summary>Two idle workers; a thread outside the pool queues task 1 (TryEnqueueExternal).</summary>
    internal static readonly PoolScenario ExternalProducer = new("external producer, two idle workers")
    {
        Workers = 2,
        External = [(0, 1)],
    };

    public static TheoryData<string> CorrectScenarios => new()
    {
        PushWhileParking.Name, TwoPushesTwoSleepers.Name, PushThenLoop.Name, ExternalProducer.Name,
    };

    [Theory]
    [MemberData(nameof(CorrectScenarios))]
    public void The_protocol_as_written_loses_no_wake_up(string scenario) =>
        ModelAssert.Holds(new WorkerPoolModel(Find(scenario)), MemoryModel.TotalStoreOrder, output);

    [Fact]
    public void Without_the_sleeper_side_barrier_a_local_push_is_missed_and_its_worker_sleeps()
    {
        Counterexample found = ModelAssert.Violated(
            new WorkerPoolModel(PushWhileParking, PoolMutation.OmitSleeperBarrier), MemoryModel.TotalStoreOrder, output,
            "lost wake-up");
        // The push is still in W0's store buffer when W1 rechecks the deque.
        Assert.Contains(found.Trace, line => line.Contains("(buffered)", StringComparison.Ordinal));
    }

    [Fact]
    public void Without_the_sleeper_side_barrier_sequential_consistency_still_holds_so_the_store_buffers_are_needed() =>
        ModelAssert.Holds(
            new WorkerPoolModel(PushWhileParking, PoolMutation.OmitSleeperBarrier), MemoryModel.SequentialConsistency, output);

    [Fact]
    public void Without_the_sleeper_side_barrier_external_producers_are_still_safe_because_they_fence_themselves() =>
        ModelAssert.Holds(
            new WorkerPoolModel(ExternalProducer, PoolMutation.OmitSleeperBarrier), MemoryModel.TotalStoreOrder, output);

    [Fact]
    public void Without_the_producer_wake_a_pushed_task_waits_while_a_worker_sleeps() =>
        ModelAssert.Violated(
            new WorkerPoolModel(PushWhileParking, PoolMutation.OmitProducerWake), MemoryModel.TotalStoreOrder, output,
            "lost wake-up");

    [Fact]
    public void Without_the_producer_wake_an_external_task_waits_while_both_workers_sleep() =>
        ModelAssert.Violated(
            new WorkerPoolModel(ExternalProducer, PoolMutation.OmitProducerWake), MemoryModel.TotalStoreOrder, output,
            "lost wake-up");

    [Fact]
    public void A_waker_can_retract_a_sleeper_before_its_announcement_lands_so_the_count_dips_below_zero()
    {
        // Why RetractSleeper no longer asserts a non-negative count: Park stores Sleeping, then increments; a waker
        // that sees Sleeping claims the worker and decrements in between. Harmless (the sleeper's increment follows
        // and its recheck or the claim's release brings it back), and the terminal checks above still hold.
        var model = new WorkerPoolModel(PushWhileParking, assertSleepersNonNegative: true);
        ModelAssert.Violated(model, MemoryModel.SequentialConsistency, output, "below zero");
    }

    private static PoolScenario Find(string name) =>
        new[] { PushWhileParking, TwoPushesTwoSleepers, PushThenLoop, ExternalProducer }.Single(s => s.Name == name);
}
