using Xunit.Abstractions;

namespace DivCon.Schedulers.Tests.ModelChecking;

/// <summary>
/// Exhaustive checks of the multiprogram move protocol (Multiprogram/README.md) on <see cref="WorkerPoolModel"/>
/// under x86-TSO: a move requested while the worker goes to sleep is never lost, a moving worker's tasks reach
/// the old program's sleepers, and every worker parks at its home. Removing the move's home re-check (or the
/// wakes it pairs with) is found with a counterexample.
/// </summary>
public sealed class MoveProtocolModelTests(ITestOutputHelper output)
{
    /// <summary>
    /// W0 owns A (empty) and is about to park there; B holds task 1 and no worker; the rebalancer moves W0 to B.
    /// Lending off, so only the move can serve B.
    /// </summary>
    internal static readonly PoolScenario MoveParkingWorker = new("move a worker that is parking")
    {
        Sets = 2,
        Workers = 1,
        Director = true,
        InitialGlobal = [(1, 1)],
        Moves = [(0, 1)],
    };

    /// <summary>The same with lending on: W0 may also serve B lent before (or instead of) being moved.</summary>
    internal static readonly PoolScenario MoveParkingWorkerLending = MoveParkingWorker with
    {
        Name = "move a worker that is parking, lending on",
        Lending = true,
    };

    /// <summary>
    /// W0 and W1 own A; W0's running task pushes task 1 and ends; B holds task 2; the rebalancer moves W0 to B.
    /// W0 must hand task 1 back to A (drain into A's global queue) where W1 may be parking.
    /// </summary>
    internal static readonly PoolScenario MoveBusyWorker = new("move a worker whose deque holds a task")
    {
        Sets = 2,
        Workers = 2,
        Director = true,
        RunningWorker = 0,
        PushedByRunningTask = [1],
        InitialGlobal = [(1, 2)],
        Moves = [(0, 1)],
    };

    public static TheoryData<string> CorrectScenarios => new()
    {
        MoveParkingWorker.Name, MoveParkingWorkerLending.Name, MoveBusyWorker.Name,
    };

    [Theory]
    [MemberData(nameof(CorrectScenarios))]
    public void The_protocol_as_written_loses_no_move_and_strands_no_program(string scenario) =>
        ModelAssert.Holds(new WorkerPoolModel(Find(scenario)), MemoryModel.TotalStoreOrder, output);

    [Theory]
    [InlineData("move a worker that is parking")]
    [InlineData("move a worker that is parking, lending on")]
    public void Without_the_home_recheck_in_park_a_moved_worker_sleeps_in_its_old_program(string scenario) =>
        ModelAssert.Violated(
            new WorkerPoolModel(Find(scenario), PoolMutation.OmitParkHomeRecheck), MemoryModel.TotalStoreOrder, output,
            "although its home is B");

    [Fact]
    public void Without_the_wake_in_request_move_a_parked_worker_never_moves() =>
        ModelAssert.Violated(
            new WorkerPoolModel(MoveParkingWorker, PoolMutation.OmitMoveWake), MemoryModel.TotalStoreOrder, output,
            "although its home is B");

    [Fact]
    public void Without_the_fence_of_the_home_exchange_the_sleepers_process_wide_barrier_still_publishes_the_move() =>
        ModelAssert.Holds(
            new WorkerPoolModel(MoveParkingWorker, PoolMutation.MoveWithoutFence), MemoryModel.TotalStoreOrder, output);

    [Fact]
    public void Without_both_fences_the_move_is_still_buffered_when_the_worker_rechecks_its_home()
    {
        const PoolMutation bothFences = PoolMutation.MoveWithoutFence | PoolMutation.OmitSleeperBarrier;
        ModelAssert.Violated(
            new WorkerPoolModel(MoveParkingWorker, bothFences), MemoryModel.TotalStoreOrder, output, "although its home is B");
        ModelAssert.Holds(new WorkerPoolModel(MoveParkingWorker, bothFences), MemoryModel.SequentialConsistency, output);
    }

    [Fact]
    public void Without_the_wake_after_a_drain_the_handed_back_task_waits_while_its_program_sleeps() =>
        ModelAssert.Violated(
            new WorkerPoolModel(MoveBusyWorker, PoolMutation.OmitDrainWake), MemoryModel.TotalStoreOrder, output,
            "lost wake-up");

    private static PoolScenario Find(string name) =>
        new[] { MoveParkingWorker, MoveParkingWorkerLending, MoveBusyWorker }.Single(s => s.Name == name);
}
