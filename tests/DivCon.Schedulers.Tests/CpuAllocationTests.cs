using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Tests;

public sealed class CpuAllocationTests
{
    // The thesis's machine: 4 packages of 16 cores, one L3 per package.
    private static readonly CpuTopology Machine64 = CpuTopology.Uniform(4, 16);

    [Fact]
    public void Contiguous_takes_neighbours()
    {
        Assert.Equal(Enumerable.Range(0, 8), CpuAllocation.Contiguous(Machine64, 8));
        Assert.Equal(Enumerable.Range(0, 20), CpuAllocation.Contiguous(Machine64, 20));
        Assert.Equal(Enumerable.Range(0, 64), CpuAllocation.Contiguous(Machine64, 64));
    }

    [Fact]
    public void Dispersed_deals_round_robin_over_packages()
    {
        Assert.Equal([0, 1, 16, 17, 32, 33, 48, 49], CpuAllocation.Dispersed(Machine64, 8));
        Assert.Equal([0, 1, 16, 17, 32, 48], CpuAllocation.Dispersed(Machine64, 6));
        Assert.Equal([0, 16, 32], CpuAllocation.Dispersed(Machine64, 3));
        Assert.Equal(Enumerable.Range(0, 64), CpuAllocation.Dispersed(Machine64, 64));
    }

    [Fact]
    public void Dispersed_takes_distinct_cores_before_smt_siblings()
    {
        // 2 packages x 2 cores x 2 threads: package 0 = cores {0,1} and {2,3}; package 1 = {4,5} and {6,7}.
        var smt = CpuTopology.Uniform(2, 2, threadsPerCore: 2);

        Assert.Equal([0, 2, 4, 6], CpuAllocation.Dispersed(smt, 4));
        Assert.Equal([0, 1, 2, 3], CpuAllocation.Contiguous(smt, 4));
    }

    [Fact]
    public void Cache_aligned_fills_whole_l3_groups_first()
    {
        // Package 0 has L3 group {0,1,2} (CPU 3 not allowed), package 1 has L3 group {4,5,6,7}.
        CpuTopology uneven = CpuTopology.Uniform(2, 4).Subset([0, 1, 2, 4, 5, 6, 7]);

        Assert.Equal([4, 5, 6, 7], CpuAllocation.CacheAligned(uneven, 4));
        Assert.Equal([0, 1, 2], CpuAllocation.CacheAligned(uneven, 3));
        Assert.Equal([0, 1, 4, 5, 6, 7], CpuAllocation.CacheAligned(uneven, 6));
        Assert.Equal([0, 1, 2, 4], CpuAllocation.Contiguous(uneven, 4));
    }

    [Fact]
    public void Cache_aligned_on_the_uniform_machine_uses_the_fewest_groups()
    {
        var splitCaches = CpuTopology.Uniform(4, 16, l3GroupsPerPackage: 2);

        Assert.Equal(Enumerable.Range(0, 8), CpuAllocation.CacheAligned(splitCaches, 8));
        Assert.Equal(Enumerable.Range(0, 20), CpuAllocation.CacheAligned(Machine64, 20));
        Assert.Equal(Enumerable.Range(0, 12), CpuAllocation.CacheAligned(splitCaches, 12));
    }

    [Theory]
    [InlineData(CpuAllocationStrategy.Contiguous)]
    [InlineData(CpuAllocationStrategy.Dispersed)]
    [InlineData(CpuAllocationStrategy.CacheAligned)]
    public void Allocate_dispatches_and_rejects_bad_counts(CpuAllocationStrategy strategy)
    {
        Assert.Equal(5, CpuAllocation.Allocate(Machine64, 5, strategy).Distinct().Count());
        Assert.Throws<ArgumentOutOfRangeException>(() => CpuAllocation.Allocate(Machine64, 0, strategy));
        Assert.Throws<ArgumentOutOfRangeException>(() => CpuAllocation.Allocate(Machine64, 65, strategy));
    }

    [Fact]
    public void Unknown_strategy_is_rejected() =>
        Assert.Throws<ArgumentOutOfRangeException>(() => CpuAllocation.Allocate(Machine64, 1, (CpuAllocationStrategy)42));

    [Fact]
    public void Validate_names_every_unknown_cpu()
    {
        var error = Assert.Throws<ArgumentException>(() => CpuAllocation.Validate(Machine64, [3, 70, 64, 70]));

        Assert.Equal("cpuIds", error.ParamName);
        Assert.Contains("64, 70", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Validate_rejects_repeats_and_empty_lists_and_keeps_order()
    {
        var repeated = Assert.Throws<ArgumentException>(() => CpuAllocation.Validate(Machine64, [5, 3, 5, 3]));
        Assert.Contains("3, 5", repeated.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => CpuAllocation.Validate(Machine64, []));
        Assert.Equal([9, 2, 40], CpuAllocation.Validate(Machine64, [9, 2, 40]));
    }
}
