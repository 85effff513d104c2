using DivCon.Harness.Cli;

namespace DivCon.Harness.Tests.Cli;

public class SizeArgumentsTests
{
    [Fact]
    public void Parses_plain_and_power_of_two_sizes_by_canonical_name()
    {
        IReadOnlyDictionary<string, long> sizes = SizeArguments.Parse(["quicksort=1000000", "Strassen=2^9", "fibonacci=30"]);
        Assert.Equal(1_000_000, sizes["quicksort"]);
        Assert.Equal(512, sizes["strassen"]);
        Assert.Equal(30, sizes["fib"]);
    }

    [Theory]
    [InlineData("quicksort=")]
    [InlineData("=5")]
    [InlineData("quicksort=1e6")]
    [InlineData("quicksort=0")]
    [InlineData("quicksort=2^63")]
    public void Rejects_bad_arguments(string argument)
    {
        Assert.NotEmpty(SizeArguments.Errors([argument]));
        Assert.Throws<ArgumentException>(() => SizeArguments.Parse([argument]));
    }

    [Fact]
    public void Rejects_the_same_program_twice_even_through_an_alias()
    {
        IReadOnlyList<string> errors = SizeArguments.Errors(["fib=20", "fibonacci=21"]);
        Assert.Contains(errors, e => e.Contains("twice", StringComparison.Ordinal));
    }
}
