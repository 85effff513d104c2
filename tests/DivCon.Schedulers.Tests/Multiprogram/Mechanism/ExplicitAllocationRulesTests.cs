using DivCon.Schedulers.Multiprogram.Decisions;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>The rules behind explicit allocations and the allowed-CPU check, on plain data (no threads).</summary>
public sealed class ExplicitAllocationRulesTests
{
    private static readonly ProgramId P0 = new(0);
    private static readonly ProgramId P1 = new(1);

    [Fact]
    public void An_explicit_decision_is_marked_and_left_alone_by_the_guard_whatever_its_name()
    {
        var policy = new AllocationOverridePolicy(new EqualSharePolicy());
        policy.Set(new Dictionary<ProgramId, int> { [P0] = 2, [P1] = 0 });
        var snapshot = new AllocationSnapshot(2, [new ProgramState(P0, 1.5, 4, 1), new ProgramState(P1, 1.5, 0, 1)]);

        AllocationDecision decision = policy.Allocate(snapshot);

        Assert.True(decision.IsExplicit);
        Assert.Equal([2, 0], decision.Cores);
        Assert.Same(decision, new StarvationGuard().Apply(decision));
        Assert.False(new EqualSharePolicy().Allocate(snapshot).IsExplicit);
    }

    [Fact]
    public void An_explicit_allocation_that_would_starve_a_program_with_new_tasks_is_dropped()
    {
        var policy = new AllocationOverridePolicy(new EqualSharePolicy());
        policy.Set(new Dictionary<ProgramId, int> { [P0] = 2, [P1] = 0 });
        var idle = new AllocationSnapshot(2, [new ProgramState(P0, 1.5, 4, 2), new ProgramState(P1, 1.5, 0, 0)]);
        AllocationDecision standing = policy.Allocate(idle);
        Assert.True(policy.IsStillValid(idle, standing));

        // P1 received tasks: the override no longer stands, and the user's policy decides again.
        var busy = new AllocationSnapshot(2, [new ProgramState(P0, 1.5, 4, 2), new ProgramState(P1, 1.5, 3, 0)]);
        Assert.False(policy.IsStillValid(busy, standing));
        AllocationDecision decided = policy.Allocate(busy);

        Assert.False(decided.IsExplicit);
        Assert.False(policy.HasOverride);
        Assert.Equal([1, 1], decided.Cores);
        Assert.StartsWith($"explicit allocation dropped ({P1} has tasks and no worker)", decided.Explanation, StringComparison.Ordinal);
        Assert.Equal("equal", policy.Name);
    }

    /// <summary>An equal split that also orders lending and gives burst roles.</summary>
    private sealed class OrderingPolicy : IAllocationPolicy
    {
        public string Name => "ordering";

        public AllocationDecision Allocate(AllocationSnapshot snapshot) =>
            new(Name, snapshot, new EqualSharePolicy().Allocate(snapshot).Cores, usedFastPath: false, "split")
            {
                LendingOrder = [1, 0],
                BurstRoles = [BurstRole.Bursty, BurstRole.Yields],
            };

        public bool IsStillValid(AllocationSnapshot current, AllocationDecision previous) => false;
    }

    [Fact]
    public void A_dropped_explicit_allocation_keeps_the_policys_lending_order_and_burst_roles()
    {
        var policy = new AllocationOverridePolicy(new OrderingPolicy());
        policy.Set(new Dictionary<ProgramId, int> { [P0] = 2, [P1] = 0 });
        var busy = new AllocationSnapshot(2, [new ProgramState(P0, 1.5, 4, 2), new ProgramState(P1, 1.5, 3, 0)]);

        AllocationDecision decided = policy.Allocate(busy);

        Assert.StartsWith("explicit allocation dropped", decided.Explanation, StringComparison.Ordinal);
        Assert.Equal([1, 0], decided.LendingOrder);
        Assert.Equal([BurstRole.Bursty, BurstRole.Yields], decided.BurstRoles);
    }

    [Fact]
    public void Pinned_cpus_outside_the_allowed_set_are_named()
    {
        var topology = CpuTopology.Uniform(1, 4); // CPUs 0-3 described, only 0 and 2 allowed
        var error = Assert.Throws<ArgumentException>("options", () => MultiprogramScheduler.ResolveSlots(
            new MultiprogramSchedulerOptions { Topology = topology }, () => [0, 2]));
        Assert.Contains("CPUs 1,3 are outside the CPUs this process may use (0,2", error.Message, StringComparison.Ordinal);

        IReadOnlyList<LogicalCpu> slots = MultiprogramScheduler.ResolveSlots(
            new MultiprogramSchedulerOptions { Topology = topology, CpuIds = [2, 0] }, () => [0, 2]);
        Assert.Equal([2, 0], slots.Select(c => c.Id));

        // Unpinned slots are not CPUs: the allowed set is not consulted.
        Assert.Equal(4, MultiprogramScheduler.ResolveSlots(
            new MultiprogramSchedulerOptions { Pin = false, Topology = topology }, () => throw new InvalidOperationException()).Count);
    }

    [Fact]
    public void The_allowed_cpu_check_validates_its_arguments()
    {
        Assert.Throws<ArgumentNullException>(() => CpuAllocation.RequireAllowed(null!, [0], "x"));
        Assert.Throws<ArgumentNullException>(() => CpuAllocation.RequireAllowed([0], null!, "x"));
        CpuAllocation.RequireAllowed([0, 1], [1, 0, 5], "x");
        Assert.Equal("x", Assert.Throws<ArgumentException>(() => CpuAllocation.RequireAllowed([7], [0], "x")).ParamName);
    }
}
