using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Tests;

public sealed class CpuTopologyDetectorTests
{
    [Fact]
    public void Reads_packages_cores_l3_groups_and_numa_nodes()
    {
        using var sysfs = SysfsFixture.TwoPackagesWithSmt();

        CpuTopology topology = CpuTopologyDetector.Detect(sysfs.Root, Enumerable.Range(0, 8));

        Assert.Equal(8, topology.Count);
        Assert.Equal([0, 0, 1, 1, 0, 0, 1, 1], topology.Cpus.Select(c => c.PackageId));
        // SMT siblings share a machine-wide core id; core_id 0 in both packages are different cores.
        Assert.Equal(topology[0].CoreId, topology[4].CoreId);
        Assert.Equal(topology[3].CoreId, topology[7].CoreId);
        Assert.Equal(4, topology.Cpus.Select(c => c.CoreId).Distinct().Count());
        Assert.NotEqual(topology[0].CoreId, topology[2].CoreId);
        Assert.Equal(topology[0].L3GroupId, topology[5].L3GroupId);
        Assert.NotEqual(topology[0].L3GroupId, topology[2].L3GroupId);
        Assert.Equal(2, topology.Cpus.Select(c => c.L3GroupId).Distinct().Count());
        Assert.Equal([0, 0, 1, 1, 0, 0, 1, 1], topology.Cpus.Select(c => c.NumaNode));
    }

    [Fact]
    public void Keeps_only_allowed_cpus_even_when_not_contiguous()
    {
        using var sysfs = SysfsFixture.TwoPackagesWithSmt();

        CpuTopology topology = CpuTopologyDetector.Detect(sysfs.Root, [7, 2, 6, 3]);

        Assert.Equal([2, 3, 6, 7], topology.CpuIds);
        Assert.All(topology.Cpus, c => Assert.Equal(1, c.PackageId));
        Assert.Equal(topology[2].CoreId, topology[6].CoreId);
        Assert.Single(topology.Cpus.Select(c => c.L3GroupId).Distinct());
    }

    [Fact]
    public void Missing_files_fall_back_to_one_package_separate_cores_and_one_l3()
    {
        using var sysfs = new SysfsFixture();

        CpuTopology topology = CpuTopologyDetector.Detect(sysfs.Root, [0, 1, 2]);

        Assert.All(topology.Cpus, c => Assert.Equal(0, c.PackageId));
        Assert.Equal(3, topology.Cpus.Select(c => c.CoreId).Distinct().Count());
        Assert.Single(topology.Cpus.Select(c => c.L3GroupId).Distinct());
        Assert.All(topology.Cpus, c => Assert.Equal(0, c.NumaNode));
    }

    [Fact]
    public void Missing_cache_information_gives_one_l3_group_per_package()
    {
        using var sysfs = new SysfsFixture();
        sysfs.Write("devices/system/cpu/cpu0/topology/physical_package_id", "0");
        sysfs.Write("devices/system/cpu/cpu1/topology/physical_package_id", "1");
        sysfs.Write("devices/system/cpu/cpu1/topology/core_id", "garbage");

        CpuTopology topology = CpuTopologyDetector.Detect(sysfs.Root, [0, 1]);

        Assert.NotEqual(topology[0].L3GroupId, topology[1].L3GroupId);
        Assert.Equal([0, 1], topology.Cpus.Select(c => c.NumaNode));
    }

    [Fact]
    public void An_empty_allowed_set_is_rejected()
    {
        using var sysfs = new SysfsFixture();
        Assert.Throws<ArgumentException>(() => CpuTopologyDetector.Detect(sysfs.Root, []));
    }

    [Fact]
    public void Detecting_the_real_machine_covers_the_allowed_cpus()
    {
        CpuTopology topology = CpuTopologyDetector.Detect();

        Assert.Equal(Platform.ThreadAffinity.GetProcessAllowedCpus(), topology.CpuIds);
        Assert.InRange(topology.Count, 1, Environment.ProcessorCount * 64);
    }

    [Fact]
    public void Fallback_numbers_cores_and_uses_one_package()
    {
        CpuTopology topology = CpuTopologyDetector.Fallback([3, 1, 2]);

        Assert.Equal([1, 2, 3], topology.CpuIds);
        Assert.Equal([0, 1, 2], topology.Cpus.Select(c => c.CoreId));
        Assert.All(topology.Cpus, c => Assert.Equal(0, c.PackageId));
    }
}
