using Xunit.Abstractions;

namespace DivCon.Schedulers.Tests.ModelChecking;

/// <summary>
/// Exhaustive checks of the standby handover (Multiprogram/README.md, "Standby handover") on
/// <see cref="WorkerPoolModel"/> under x86-TSO: two worker threads per CPU (server and standby), the CPU's order,
/// server and the workers' task serials, with Activate, Watch, Take over, Retire and swap back as the code has them
/// and the handover threshold a nondeterministic choice at each look. Every task runs once on one thread, the CPU
/// never loses its move or its standby's activation, and removing a fence, a recheck or a wake-up of the handover
/// is found with a counterexample.
/// </summary>
public sealed class HandoverModelTests(ITestOutputHelper output)
{
    /// <summary>
    /// CPU 0's server W0 runs a task of A; its standby W1 is idle; B holds task 1 and no worker; the rebalancer
    /// moves CPU 0 to B. Either W0 finishes and moves itself, or W1 takes over and runs task 1 while W0 finishes.
    /// </summary>
    internal static readonly PoolScenario MoveDuringLongTask = new("handover: move while the server is inside a task")
    {
        Sets = 2,
        Workers = 1,
        Standby = true,
        RunningWorker = 0,
        InitialGlobal = [(1, 1)],
        Moves = [(0, 1)],
    };

    /// <summary>
    /// The same CPU is moved to B and back to A while W0 runs A's task: the second move may find W1 serving B and
    /// W0 still inside A's task, and swap the server back.
    /// </summary>
    internal static readonly PoolScenario MoveBackDuringHandover = new("handover: move to B and back while the server is inside a task")
    {
        Sets = 2,
        Workers = 1,
        Standby = true,
        RunningWorker = 0,
        Moves = [(0, 1), (0, 0)],
    };

    public static TheoryData<string> CorrectScenarios => new()
    {
        MoveDuringLongTask.Name, MoveBackDuringHandover.Name,
    };

    [Theory]
    [MemberData(nameof(CorrectScenarios))]
    public void The_handover_as_written_runs_every_task_once_and_loses_no_move_or_activation(string scenario) =>
        ModelAssert.Holds(new WorkerPoolModel(Find(scenario)), MemoryModel.TotalStoreOrder, output);

    [Fact]
    public void Without_the_fence_and_order_recheck_after_announcing_standby_the_activation_is_lost() =>
        ModelAssert.Violated(
            new WorkerPoolModel(MoveDuringLongTask, PoolMutation.OmitStandbyRecheck), MemoryModel.TotalStoreOrder, output,
            "lost activation");

    [Fact]
    public void Without_the_standby_activation_the_move_waits_for_the_servers_task() =>
        ModelAssert.Violated(
            new WorkerPoolModel(MoveDuringLongTask, PoolMutation.OmitStandbyActivation), MemoryModel.TotalStoreOrder, output,
            "lost activation");

    [Fact]
    public void Without_waking_the_old_server_after_a_take_over_it_sleeps_in_its_set_and_never_retires() =>
        ModelAssert.Violated(
            new WorkerPoolModel(MoveDuringLongTask, PoolMutation.OmitTakeOverWake), MemoryModel.TotalStoreOrder, output,
            "never retired");

    [Fact]
    public void Without_the_fence_after_announcing_standby_the_order_is_still_buffered_when_the_mover_reads_the_state()
    {
        ModelAssert.Violated(
            new WorkerPoolModel(MoveDuringLongTask, PoolMutation.OmitStandbyFence), MemoryModel.TotalStoreOrder, output,
            "lost activation");
        ModelAssert.Holds(
            new WorkerPoolModel(MoveDuringLongTask, PoolMutation.OmitStandbyFence), MemoryModel.SequentialConsistency, output);
    }

    [Fact]
    public void A_take_over_with_a_plain_store_is_covered_by_the_sleepers_process_wide_barrier() =>
        ModelAssert.Holds(
            new WorkerPoolModel(MoveDuringLongTask, PoolMutation.TakeOverWithoutCas), MemoryModel.TotalStoreOrder, output);

    [Fact]
    public void Without_the_cas_and_the_sleeper_barrier_the_old_server_parks_unseen_in_its_set() =>
        ModelAssert.Violated(
            new WorkerPoolModel(MoveDuringLongTask, PoolMutation.TakeOverWithoutCas | PoolMutation.OmitSleeperBarrier),
            MemoryModel.TotalStoreOrder, output, "never retired");

    [Fact]
    public void Without_the_sleeper_barrier_alone_the_take_over_cas_still_reaches_the_old_servers_recheck() =>
        ModelAssert.Holds(
            new WorkerPoolModel(MoveDuringLongTask, PoolMutation.OmitSleeperBarrier), MemoryModel.TotalStoreOrder, output);

    private static PoolScenario Find(string name) =>
        new[] { MoveDuringLongTask, MoveBackDuringHandover }.Single(s => s.Name == name);
}
