using DivCon.Harness.Experiments;

namespace DivCon.Harness.Tests.Experiments;

/// <summary>The machine's CPU time shares per block (<c>/proc/stat</c>), on plain lines.</summary>
public sealed class MachineCpuTimesTests
{
    [Fact]
    public void The_aggregate_line_is_read_by_kind()
    {
        // user nice system idle iowait irq softirq steal guest guest_nice
        MachineCpuTimes? times = MachineCpuTimes.Parse("cpu  30233 7 3350 24378 518 2 31 32 0 0");
        Assert.Equal(new MachineCpuTimes(30240, 3383, 24896, 32), times);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("cpu0 1 2 3 4 5 6 7 8")]
    [InlineData("cpu 1 2 3 4 5 6 7")]
    [InlineData("cpu 1 2 3 x 5 6 7 8")]
    [InlineData("cpu 1 2 3 -4 5 6 7 8")]
    [InlineData("intr 1 2 3 4 5 6 7 8")]
    public void Anything_else_is_unknown(string? line) => Assert.Null(MachineCpuTimes.Parse(line));

    [Fact]
    public void Shares_of_a_block_sum_to_one()
    {
        var start = new MachineCpuTimes(100, 10, 50, 0);
        var end = new MachineCpuTimes(250, 30, 75, 5);
        MachineCpuShares shares = end.SharesSince(start)!;
        Assert.Equal(150.0 / 200, shares.User, 12);
        Assert.Equal(20.0 / 200, shares.System, 12);
        Assert.Equal(25.0 / 200, shares.Idle, 12);
        Assert.Equal(5.0 / 200, shares.Steal, 12);
        Assert.Equal(1.0, shares.User + shares.System + shares.Idle + shares.Steal, 12);
    }

    [Fact]
    public void No_tick_or_counters_going_back_give_no_shares()
    {
        var start = new MachineCpuTimes(100, 10, 50, 0);
        Assert.Null(start.SharesSince(start));
        Assert.Null(new MachineCpuTimes(99, 20, 60, 0).SharesSince(start));
    }

    [SkippableFact]
    public void Where_the_file_exists_a_block_gets_shares()
    {
        Skip.IfNot(File.Exists("/proc/stat"), "No /proc/stat on this system: the shares are left empty there.");

        MachineCpuTimes start = MachineCpuTimes.Read()!.Value;
        Thread.Sleep(60);
        MachineCpuShares? shares = MachineCpuTimes.Read()!.Value.SharesSince(start);
        Assert.NotNull(shares);
        Assert.Equal(1.0, shares.User + shares.System + shares.Idle + shares.Steal, 9);
    }
}
