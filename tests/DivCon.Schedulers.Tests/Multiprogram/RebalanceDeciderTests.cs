using DivCon.Schedulers.Multiprogram.Decisions;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Tests.Multiprogram;

public class RebalanceDeciderTests
{
    private static readonly CpuTopology Machine = CpuTopology.Uniform(2, 16);

    private static AllocationSnapshot Snapshot(RebalanceDecider decider, params (int Id, double Speedup, int Available)[] programs) =>
        new(Machine.Count, programs.Select(p => new ProgramState(
            new ProgramId(p.Id), p.Speedup, p.Available, decider.Placement.CpusOf(new ProgramId(p.Id)).Count)));

    [Fact]
    public void Figure_workload_through_the_decider()
    {
        var decider = new RebalanceDecider(new TaskAvailabilityPolicy(), Machine);
        var arrival = decider.Decide(Snapshot(decider, (0, 15.18, 100), (1, 10.43, 100), (2, 9.71, 100)), RebalanceReason.Arrival, 10);
        Assert.False(arrival.Skipped);
        Assert.Equal([14, 9, 9], arrival.After.Select(a => a.Cores));
        Assert.Equal(32, arrival.Moves.Count);
        Assert.Equal(10, arrival.Timestamp);

        // Plenty of tasks still: the O(m) check skips the policy.
        var quiet = decider.Decide(Snapshot(decider, (0, 15.18, 50), (1, 10.43, 40), (2, 9.71, 30)), RebalanceReason.Interval, 20);
        Assert.True(quiet.Skipped);
        Assert.Empty(quiet.Moves);
        Assert.Equal([14, 9, 9], quiet.After.Select(a => a.Cores));

        // Program 1 runs short of tasks: Figure 5.20's allocation, with exactly the cores that change hands moving.
        var shortage = decider.Decide(Snapshot(decider, (0, 15.18, 18), (1, 10.43, 1), (2, 9.71, 12)), RebalanceReason.Interval, 30);
        Assert.False(shortage.Skipped);
        Assert.Equal([14, 9, 9], shortage.Before.Select(a => a.Cores));
        Assert.Equal([18, 2, 12], shortage.After.Select(a => a.Cores));
        Assert.Equal(7, shortage.Moves.Count);
        Assert.All(shortage.Moves, m => Assert.Equal((ProgramId?)new ProgramId(1), m.From));
        Assert.Equal(18, decider.Placement.CpusOf(new ProgramId(0)).Count);
    }

    [Fact]
    public void Arrival_departure_and_manual_are_never_skipped()
    {
        var decider = new RebalanceDecider(new ProportionalPolicy(), Machine);
        var snapshot = Snapshot(decider, (0, 4, 1), (1, 4, 1));
        decider.Decide(snapshot, RebalanceReason.Arrival, 0);
        snapshot = Snapshot(decider, (0, 4, 1), (1, 4, 1));
        Assert.True(decider.Decide(snapshot, RebalanceReason.Interval, 1).Skipped);
        Assert.False(decider.Decide(snapshot, RebalanceReason.Manual, 2).Skipped);
        Assert.False(decider.Decide(snapshot, RebalanceReason.Arrival, 3).Skipped);

        var departed = decider.Decide(Snapshot(decider, (0, 4, 1)), RebalanceReason.Departure, 4);
        Assert.False(departed.Skipped);
        Assert.Equal(32, Assert.Single(departed.After).Cores);
        Assert.Equal(16, departed.Moves.Count);
    }

    [Fact]
    public void A_changed_program_set_is_never_skipped_even_on_an_interval()
    {
        var decider = new RebalanceDecider(new EqualSharePolicy(), Machine);
        decider.Decide(Snapshot(decider, (0, 4, 1), (1, 4, 1)), RebalanceReason.Arrival, 0);
        var next = decider.Decide(Snapshot(decider, (0, 4, 1), (1, 4, 1), (2, 4, 1)), RebalanceReason.Interval, 1);
        Assert.False(next.Skipped);
        Assert.Equal([11, 11, 10], next.After.Select(a => a.Cores));
    }

    [Fact]
    public void Rejects_a_snapshot_for_another_machine_and_undefined_reasons()
    {
        var decider = new RebalanceDecider(new EqualSharePolicy(), Machine);
        Assert.Equal("snapshot", Assert.Throws<ArgumentException>(() =>
            decider.Decide(Workloads.Snapshot(8, [1]), RebalanceReason.Manual, 0)).ParamName);
        Assert.Equal("reason", Assert.Throws<ArgumentOutOfRangeException>(() =>
            decider.Decide(Workloads.Snapshot(32, [1]), (RebalanceReason)42, 0)).ParamName);
        Assert.Equal("snapshot", Assert.Throws<ArgumentNullException>(() => decider.Decide(null!, RebalanceReason.Manual, 0)).ParamName);
    }
}
