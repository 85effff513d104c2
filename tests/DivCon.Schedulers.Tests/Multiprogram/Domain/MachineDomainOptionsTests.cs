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
    public void Today_no_domain_is_asked_for_by_default() => Assert.Null(new MultiprogramSchedulerOptions().MachineDomain);
}
