using DivCon.Schedulers.Multiprogram.Domain;

namespace DivCon.Schedulers.Tests.Multiprogram.Domain;

/// <summary>A container's CPU quota caps the CPUs a process offers the domain at ceil(quota), inside its own set.</summary>
public sealed class DomainCpuQuotaTests
{
    [Theory]
    [InlineData("150000 100000", 2)]
    [InlineData("100000 100000", 1)]
    [InlineData("50000 100000", 1)]
    [InlineData("300001 100000", 4)]
    [InlineData("max 100000", null)]
    [InlineData("garbage", null)]
    public void The_limit_is_the_quota_rounded_up_from_cgroup_v2(string cpuMax, int? expected)
    {
        using var cgroup = new SysfsFixture();
        cgroup.Write("cpu.max", cpuMax);

        Assert.Equal(expected, DomainCpuQuota.Limit(cgroup.Root));
    }

    [Theory]
    [InlineData("250000", "100000", 3)]
    [InlineData("-1", "100000", null)]
    public void The_limit_is_read_from_cgroup_v1_too(string quota, string period, int? expected)
    {
        using var cgroup = new SysfsFixture();
        cgroup.Write(Path.Combine("cpu,cpuacct", "cpu.cfs_quota_us"), quota);
        cgroup.Write(Path.Combine("cpu,cpuacct", "cpu.cfs_period_us"), period);

        Assert.Equal(expected, DomainCpuQuota.Limit(cgroup.Root));
    }

    [Fact]
    public void No_files_or_no_root_means_no_limit()
    {
        using var cgroup = new SysfsFixture();
        Assert.Null(DomainCpuQuota.Limit(cgroup.Root));
        Assert.Null(DomainCpuQuota.Limit(null));
        Assert.Null(DomainCpuQuota.Limit(Path.Combine(cgroup.Root, "absent")));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(5)]
    [InlineData(int.MaxValue)]
    public void A_limited_process_offers_that_many_of_its_own_cpus(int spread)
    {
        int[] own = [2, 3, 5, 8, 13];

        int[] offered = DomainCpuQuota.Offered(own, 2, spread);

        Assert.Equal(2, offered.Length);
        Assert.All(offered, c => Assert.Contains(c, own));
        Assert.Equal(offered.Order(), offered);
        Assert.Equal(offered.Distinct().Count(), offered.Length);
    }

    [Fact]
    public void Different_spreads_offer_different_cpus_and_no_limit_or_a_large_one_offers_all()
    {
        int[] own = [0, 1, 2, 3];
        Assert.Equal([0, 1], DomainCpuQuota.Offered(own, 2, 0));
        Assert.Equal([2, 3], DomainCpuQuota.Offered(own, 2, 2));
        Assert.Equal([0, 3], DomainCpuQuota.Offered(own, 2, 3));
        Assert.Same(own, DomainCpuQuota.Offered(own, null, 7));
        Assert.Same(own, DomainCpuQuota.Offered(own, 4, 7));
        Assert.Throws<ArgumentOutOfRangeException>(() => DomainCpuQuota.Offered(own, 0, 0));
    }
}
