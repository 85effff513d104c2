using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Schedulers.Tests.Multiprogram;

public class PolicyInputValidationTests
{
    private static readonly ProgramId P0 = new(0);

    [Theory]
    [InlineData(0)]
    [InlineData(-3)]
    public void No_cores_is_rejected(int cores)
    {
        var e = Assert.Throws<ArgumentOutOfRangeException>(() => new AllocationSnapshot(cores, []));
        Assert.Equal("coreCount", e.ParamName);
        Assert.Equal(cores, e.ActualValue);
    }

    [Theory]
    [InlineData(-1.0)]
    [InlineData(0.0)]
    [InlineData(double.NaN)]
    [InlineData(double.PositiveInfinity)]
    [InlineData(double.NegativeInfinity)]
    public void Speedups_that_are_not_positive_finite_numbers_are_rejected(double speedup)
    {
        var e = Assert.Throws<ArgumentOutOfRangeException>(() => new ProgramState(P0, speedup, 1, 0));
        Assert.Equal("speedup", e.ParamName);
        Assert.Equal(speedup, e.ActualValue);
    }

    [Fact]
    public void Negative_available_tasks_and_cores_are_rejected()
    {
        var e = Assert.Throws<ArgumentOutOfRangeException>(() => new ProgramState(P0, 2, -1, 0));
        Assert.Equal("availableTasks", e.ParamName);
        Assert.Equal(-1, e.ActualValue);
        e = Assert.Throws<ArgumentOutOfRangeException>(() => new ProgramState(P0, 2, 0, -2));
        Assert.Equal("currentCores", e.ParamName);
    }

    [Fact]
    public void Duplicate_program_ids_are_rejected_naming_the_id()
    {
        var e = Assert.Throws<ArgumentException>(() => new AllocationSnapshot(4,
            [new ProgramState(P0, 2, 1, 0), new ProgramState(new ProgramId(1), 2, 1, 0), new ProgramState(P0, 3, 1, 0)]));
        Assert.Equal("programs", e.ParamName);
        Assert.Contains("P0", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Null_programs_are_rejected()
    {
        Assert.Equal("programs", Assert.Throws<ArgumentNullException>(() => new AllocationSnapshot(4, null!)).ParamName);
        Assert.Equal("programs", Assert.Throws<ArgumentException>(() => new AllocationSnapshot(4, [null!])).ParamName);
    }

    [Fact]
    public void Policies_reject_a_null_snapshot()
    {
        IAllocationPolicy[] policies = [new EqualSharePolicy(), new ProportionalPolicy(), new TaskAvailabilityPolicy(), new HillClimbingPolicy()];
        foreach (var policy in policies)
        {
            Assert.Equal("snapshot", Assert.Throws<ArgumentNullException>(() => policy.Allocate(null!)).ParamName);
        }
    }

    [Fact]
    public void A_decision_that_breaks_the_contract_is_rejected()
    {
        var snapshot = Workloads.Snapshot(4, [1, 1]);
        Assert.Equal("cores", Assert.Throws<ArgumentException>(() => new AllocationDecision("x", snapshot, [2, 1], false, "")).ParamName);
        Assert.Equal("cores", Assert.Throws<ArgumentException>(() => new AllocationDecision("x", snapshot, [5, -1], false, "")).ParamName);
        Assert.Equal("cores", Assert.Throws<ArgumentException>(() => new AllocationDecision("x", snapshot, [4], false, "")).ParamName);
    }

    [Fact]
    public void Zero_programs_give_an_empty_decision_for_every_policy()
    {
        IAllocationPolicy[] policies = [new EqualSharePolicy(), new ProportionalPolicy(), new TaskAvailabilityPolicy(), new HillClimbingPolicy()];
        foreach (var policy in policies)
        {
            Assert.Empty(policy.Allocate(new AllocationSnapshot(16, [])).Cores);
        }
    }
}
