namespace DivCon.Harness.Tests.Cli;

/// <summary>The interleaving options of the multiprogram commands fail at parse time on bad values.</summary>
public class RoundsOptionTests
{
    [Theory]
    [InlineData("demo", "0")]
    [InlineData("cyclic", "-2")]
    [InlineData("symmetric", "0")]
    public async Task Rounds_below_one_fail(string command, string rounds)
    {
        var (exitCode, _, error) = await CliRunner.RunAsync(command, "--rounds", rounds);
        Assert.Equal(1, exitCode);
        Assert.Contains("--rounds must be a whole number of at least 1", error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("demo")]
    [InlineData("cyclic")]
    [InlineData("symmetric")]
    public async Task A_negative_warm_up_fails(string command)
    {
        var (exitCode, _, error) = await CliRunner.RunAsync(command, "--warmup-seconds", "-1");
        Assert.Equal(1, exitCode);
        Assert.Contains("--warmup-seconds must be a number of seconds of at least 0", error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("demo")]
    [InlineData("cyclic")]
    [InlineData("symmetric")]
    public async Task Help_documents_rounds_and_warm_up(string command)
    {
        var (exitCode, output, _) = await CliRunner.RunAsync(command, "--help");
        Assert.Equal(0, exitCode);
        Assert.Contains("--rounds", output, StringComparison.Ordinal);
        Assert.Contains("--warmup-seconds", output, StringComparison.Ordinal);
    }
}
