using DivCon.Schedulers.Topology;
using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Tests;

public sealed class VictimOrderTests
{
    [Fact]
    public void Topology_order_is_same_cache_then_same_package_then_the_rest()
    {
        // 2 packages x 4 cores, 2 L3 groups per package: {0,1} {2,3} | {4,5} {6,7}.
        var topology = CpuTopology.Uniform(2, 4, l3GroupsPerPackage: 2);

        int[][][] orders = VictimOrder.ByTopology(topology.Cpus);

        Assert.Equal(3, orders[0].Length);
        Assert.Equal([1], orders[0][0]);
        Assert.Equal([2, 3], orders[0][1]);
        Assert.Equal([4, 5, 6, 7], orders[0][2]);
        Assert.Equal([7], orders[6][0]);
        Assert.Equal([4, 5], orders[6][1]);
        Assert.Equal([0, 1, 2, 3], orders[6][2]);
    }

    [Fact]
    public void Slots_index_the_given_cpu_list_not_cpu_ids()
    {
        CpuTopology topology = CpuTopology.Uniform(2, 4);
        LogicalCpu[] slots = [topology[5], topology[0], topology[4]];

        int[][][] orders = VictimOrder.ByTopology(slots);

        Assert.Equal([[2], [1]], orders[0]);
        Assert.Equal([[0, 2]], orders[1]);
    }

    [Fact]
    public void Flat_order_has_every_other_slot_in_one_level()
    {
        Assert.Equal([[1, 2]], VictimOrder.Flat(3)[0]);
        Assert.Equal([[0, 1]], VictimOrder.Flat(3)[2]);
        Assert.Empty(VictimOrder.Flat(1)[0]);
        Assert.Throws<ArgumentOutOfRangeException>(() => VictimOrder.Flat(0));
    }
}
