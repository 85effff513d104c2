using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Schedulers.Tests.Multiprogram;

public class ProportionalPolicyTests
{
    [Fact]
    public void Thesis_example_23_13_12_on_64_cores_gives_31_17_16()
    {
        var decision = new ProportionalPolicy().Allocate(Workloads.Snapshot(64, [23, 13, 12]));
        Assert.Equal([31, 17, 16], decision.Cores);
    }

    [Fact]
    public void Figure_5_20_base_allocation_is_14_9_9_with_shares_13_75_9_45_8_80()
    {
        var snapshot = Workloads.Snapshot(32, [15.18, 10.43, 9.71]);
        var shares = ProportionalPolicy.Shares(snapshot);
        Assert.Equal([13.75, 9.45, 8.80], shares.Select(s => Math.Round(s, 2)));
        Assert.Equal([14, 9, 9], new ProportionalPolicy().Allocate(snapshot).Cores);
    }

    [Fact]
    public void Equal_remainders_go_to_the_higher_speedup_then_the_earlier_program()
    {
        // Shares 2.5, 2.5 of 5 cores: equal speedups, so the earlier program wins the odd core.
        Assert.Equal([3, 2], new ProportionalPolicy().Allocate(Workloads.Snapshot(5, [4, 4])).Cores);

        // Shares 1.5, 1.5, 1.0 (+ remainders .5, .5, 0) - the tie between 0 and 1 goes to the earlier program.
        Assert.Equal([2, 1, 1], new ProportionalPolicy().Allocate(Workloads.Snapshot(4, [3, 3, 2])).Cores);
    }

    [Fact]
    public void A_program_whose_share_rounds_to_zero_still_gets_one_core_when_cores_suffice()
    {
        var decision = new ProportionalPolicy().Allocate(Workloads.Snapshot(4, [100, 100, 0.01]));
        Assert.Equal(4, decision.Cores.Sum());
        Assert.Equal(1, decision.Cores[2]);
        Assert.All(decision.Cores, c => Assert.True(c >= 1));
    }

    [Fact]
    public void With_more_programs_than_cores_some_get_none_and_the_sum_is_the_core_count()
    {
        var decision = new ProportionalPolicy().Allocate(Workloads.Snapshot(2, [1, 5, 3]));
        Assert.Equal([0, 1, 1], decision.Cores);
    }

    [Fact]
    public void No_programs_gives_an_empty_decision()
    {
        var decision = new ProportionalPolicy().Allocate(new AllocationSnapshot(8, []));
        Assert.Empty(decision.Cores);
    }
}
