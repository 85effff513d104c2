using DivCon.Schedulers.Multiprogram;

namespace DivCon.Schedulers.Tests.Multiprogram.Domain;

/// <summary>The opt-in: the options type and the value of <c>DIVCON_DOMAIN</c>.</summary>
public sealed class MachineDomainOptionsTests
{
    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("  ")]
    [InlineData("0")]
    [InlineData("false")]
    [InlineData("OFF")]
    public void Unset_or_off_joins_nothing(string? value) => Assert.Null(MachineDomainOptions.Parse(value));

    [Theory]
    [InlineData("1")]
    [InlineData("true")]
    [InlineData("On")]
    public void On_joins_the_default_domain(string value) =>
        Assert.Equal(new MachineDomainOptions(), MachineDomainOptions.Parse(value));

    [Fact]
    public void A_name_or_an_absolute_directory_selects_the_domain()
    {
        Assert.Equal("batch-7.x", MachineDomainOptions.Parse("batch-7.x")!.Name);
        string directory = Path.GetFullPath(Path.Combine(Path.GetTempPath(), "divcon-domain"));
        MachineDomainOptions inDirectory = MachineDomainOptions.Parse(directory)!;
        Assert.Equal((MachineDomainOptions.DefaultName, directory), (inDirectory.Name, inDirectory.Directory));
    }

    [Theory]
    [InlineData("two words")]
    [InlineData("..")]
    [InlineData("a/b")]
    [InlineData("ü")]
    public void A_bad_value_names_the_variable_and_the_value(string value)
    {
        var ex = Assert.Throws<ArgumentException>(() => MachineDomainOptions.Parse(value));
        Assert.Contains(MachineDomainOptions.EnvironmentVariable, ex.Message, StringComparison.Ordinal);
        Assert.Contains(value, ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_bad_name_is_refused_on_init()
    {
        var ex = Assert.Throws<ArgumentException>(() => new MachineDomainOptions { Name = "x y" });
        Assert.Equal("Name", ex.ParamName);
    }

    [Fact]
    public void A_negative_sampling_interval_is_refused_on_init_and_zero_or_infinite_are_kept()
    {
        var ex = Assert.Throws<ArgumentOutOfRangeException>(() => new MachineDomainOptions { EstimatorSampleInterval = TimeSpan.FromMilliseconds(-5) });
        Assert.Equal("EstimatorSampleInterval", ex.ParamName);
        Assert.Equal(TimeSpan.FromMilliseconds(25), new MachineDomainOptions().EstimatorSampleInterval);
        Assert.Equal(TimeSpan.Zero, new MachineDomainOptions { EstimatorSampleInterval = TimeSpan.Zero }.EstimatorSampleInterval);
        Assert.Equal(Timeout.InfiniteTimeSpan, new MachineDomainOptions { EstimatorSampleInterval = Timeout.InfiniteTimeSpan }.EstimatorSampleInterval);
    }

    [Theory]
    [InlineData(10, null, false, 10)] // not joined: the local interval
    [InlineData(10, 25, false, 25)] // joined: the domain's, the longer one
    [InlineData(10, 25, true, 10)] // joined, an early decision waits for samples: the local one
    [InlineData(40, 25, false, 40)] // joined with a longer local interval: the local one
    [InlineData(10, 0, false, -1)] // joined, the domain samples only at decisions
    [InlineData(10, -1, false, -1)]
    [InlineData(0, 25, false, 0)] // sampling off locally stays off
    [InlineData(-1, 25, false, -1)]
    public void The_sampling_interval_is_the_longer_one_while_joined_unless_an_early_decision_waits(
        int localMs, int? joinedMs, bool earlyPending, int expectedMs)
    {
        static TimeSpan Of(int ms) => ms < 0 ? Timeout.InfiniteTimeSpan : TimeSpan.FromMilliseconds(ms);
        TimeSpan? joined = joinedMs is { } j ? Of(j) : null;
        Assert.Equal(Of(expectedMs), MultiprogramScheduler.SampleIntervalFor(Of(localMs), joined, earlyPending));
    }

    [Fact]
    public void Today_no_domain_is_asked_for_by_default() => Assert.Null(new MultiprogramSchedulerOptions().MachineDomain);
}
