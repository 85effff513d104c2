using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Tests;

public sealed class CpuEnvironmentTests
{
    [Theory]
    [InlineData("max 100000", null)]
    [InlineData("150000 100000", 1.5)]
    [InlineData("200000 50000", 4.0)]
    [InlineData("nonsense", null)]
    public void Reads_the_cgroup_v2_quota(string cpuMax, double? expected)
    {
        using var cgroup = new SysfsFixture();
        cgroup.Write("cpu.max", cpuMax);

        Assert.Equal(expected, CpuEnvironment.ReadCpuQuota(cgroup.Root));
    }

    [Theory]
    [InlineData("", "-1", "100000", null)]
    [InlineData("", "200000", "100000", 2.0)]
    [InlineData("cpu", "50000", "100000", 0.5)]
    [InlineData("cpu,cpuacct", "300000", "100000", 3.0)]
    public void Reads_the_cgroup_v1_quota(string directory, string quota, string period, double? expected)
    {
        using var cgroup = new SysfsFixture();
        cgroup.Write(Path.Combine(directory, "cpu.cfs_quota_us"), quota);
        cgroup.Write(Path.Combine(directory, "cpu.cfs_period_us"), period);

        Assert.Equal(expected, CpuEnvironment.ReadCpuQuota(cgroup.Root));
    }

    [Fact]
    public void No_cgroup_files_means_no_quota()
    {
        using var cgroup = new SysfsFixture();
        Assert.Null(CpuEnvironment.ReadCpuQuota(cgroup.Root));
    }

    [Fact]
    public void Detect_describes_the_current_process()
    {
        CpuEnvironment environment = CpuEnvironment.Detect();

        Assert.Equal(Environment.ProcessorCount, environment.ProcessorCount);
        Assert.True(environment.Topology.Count >= 1);
        Assert.True(environment.CpuQuota is null or > 0);
    }
}
