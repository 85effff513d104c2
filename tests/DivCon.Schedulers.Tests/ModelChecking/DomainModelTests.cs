using Xunit.Abstractions;

namespace DivCon.Schedulers.Tests.ModelChecking;

/// <summary>
/// Exhaustive checks of the cross-process domain's state machine (<see cref="DomainModel"/>,
/// src/Schedulers/Multiprogram/Domain/README.md): joins, grants with leases, acknowledgements, lease expiry,
/// leaves by closure, deaths (of clients and of the coordinator), freezes and re-election. No CPU is ever granted
/// to two live processes in overlapping leases, nothing is held for a dead process at the horizon, nothing
/// deadlocks; and each safety rule of the protocol, removed, is found with a counterexample.
/// </summary>
public sealed class DomainModelTests(ITestOutputHelper output)
{
    [Fact]
    public void Two_processes_with_deaths_of_either_including_the_coordinator()
    {
        var model = new DomainModel(processes: 2, cpus: 2, lease: 2, lastDisruption: 3, maxDeaths: 1, allowFreeze: false);
        ModelAssert.Holds(model, MemoryModel.SequentialConsistency, output);
        Assert.True(model.HandoversCompleted, "no explored execution completed a handover: that path was not checked");
    }

    [Fact]
    public void Two_processes_with_a_freeze_longer_than_the_lease()
    {
        ModelAssert.Holds(new DomainModel(processes: 2, cpus: 2, lease: 2, lastDisruption: 3, maxDeaths: 0, allowFreeze: true), MemoryModel.SequentialConsistency, output);
    }

    [Fact]
    public void Three_processes_with_a_coordinator_death_and_re_election()
    {
        ModelAssert.Holds(new DomainModel(processes: 3, cpus: 2, lease: 2, lastDisruption: 2, maxDeaths: 1, allowFreeze: false), MemoryModel.SequentialConsistency, output);
    }

    [Fact]
    public void Granting_before_the_previous_holder_acknowledges_is_found()
    {
        ModelAssert.Violated(
            new DomainModel(processes: 2, cpus: 2, lease: 2, lastDisruption: 0, maxDeaths: 0, allowFreeze: false, DomainMutation.NoHandoverWait),
            MemoryModel.SequentialConsistency, output, "overlapping leases");
    }

    [Fact]
    public void A_new_coordinator_without_a_grace_period_is_found()
    {
        ModelAssert.Violated(
            new DomainModel(processes: 3, cpus: 2, lease: 2, lastDisruption: 2, maxDeaths: 1, allowFreeze: false, DomainMutation.NoGrace),
            MemoryModel.SequentialConsistency, output, "overlapping leases");
    }

    [Fact]
    public void Releasing_a_silent_process_before_its_lease_ends_is_found()
    {
        ModelAssert.Violated(
            new DomainModel(processes: 2, cpus: 2, lease: 2, lastDisruption: 3, maxDeaths: 0, allowFreeze: true, DomainMutation.ReleaseSilentAtDrop),
            MemoryModel.SequentialConsistency, output, "overlapping leases");
    }
}
