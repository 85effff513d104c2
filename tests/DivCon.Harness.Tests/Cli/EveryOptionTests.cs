using System.CommandLine;
using System.CommandLine.Help;
using DivCon.Harness.Cli;

namespace DivCon.Harness.Tests.Cli;

/// <summary>
/// Every option of every command, taken from the command definitions, fed unparsable, out-of-range and empty values:
/// each must give exactly one <c>error:</c> line naming the option, nothing on the output, and exit code 1.
/// </summary>
public class EveryOptionTests
{
    /// <summary>Every (command, option) of the harness except help and version (bench hands its arguments to BenchmarkDotNet).</summary>
    private static IEnumerable<(Command Command, Option Option)> AllOptions()
    {
        RootCommand root = HarnessCli.Build(CliHost.ForWriters(TextWriter.Null, TextWriter.Null, "divcon"));
        return root.Subcommands.Where(c => c.Name != BenchCommand.Name)
            .SelectMany(c => c.Options.Where(o => o is not HelpOption && o is not VersionOption).Select(o => (c, o)));
    }

    public static TheoryData<string, string, string> BadValues()
    {
        var data = new TheoryData<string, string, string>();
        foreach ((Command command, Option option) in AllOptions())
        {
            if (option.ValueType == typeof(bool))
            {
                continue; // a switch takes no value
            }

            // Whatever the table says, every valued option refuses the empty value, and every numeric one a word.
            var values = new HashSet<string>(OptionTable.RefusedValues(option) ?? [], StringComparer.Ordinal) { string.Empty };
            Type type = Nullable.GetUnderlyingType(option.ValueType) ?? option.ValueType;
            if (type == typeof(int) || type == typeof(long) || type == typeof(double) || type == typeof(int[]))
            {
                values.Add("abc");
            }

            foreach (string value in values)
            {
                data.Add(command.Name, option.Name, value);
            }
        }

        return data;
    }

    [Fact]
    public void Every_option_is_declared_in_the_table_with_values_it_refuses()
    {
        var options = AllOptions().ToList();
        Assert.True(options.Count > 100, $"only {options.Count} options found");
        foreach ((Command command, Option option) in options)
        {
            IReadOnlyList<string>? refused = OptionTable.RefusedValues(option);
            Assert.True(refused is not null, $"{command.Name} {option.Name} is not declared with OptionTable");
            Assert.True(option.ValueType == typeof(bool) || refused.Count > 0, $"{command.Name} {option.Name} refuses nothing");
            Assert.False(string.IsNullOrWhiteSpace(option.Description), $"{command.Name} {option.Name} has no help");
        }
    }

    [Fact]
    public void Every_command_parses_with_every_option_left_at_its_default()
    {
        RootCommand root = HarnessCli.Build(CliHost.ForWriters(TextWriter.Null, TextWriter.Null, "divcon"));
        foreach (Command command in root.Subcommands)
        {
            ParseResult parsed = root.Parse([command.Name]);
            Assert.True(parsed.Errors.Count == 0, $"{command.Name}: {string.Join(" | ", parsed.Errors.Select(e => e.Message))}");
        }
    }

    [Theory]
    [MemberData(nameof(BadValues))]
    public async Task A_bad_value_is_one_error_line_naming_the_option_and_exit_code_1(string command, string option, string value)
    {
        // Cancelled from the start: should a bad value be accepted, the command stops at once instead of running.
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();
        var (exitCode, output, error) = await CliRunner.RunAsync(cancelled.Token, command, option, value);
        Assert.True(exitCode == 1, $"{command} {option} '{value}': exit code {exitCode}, error: {error}");
        Assert.Equal(string.Empty, output);
        string[] lines = error.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Single(lines);
        Assert.StartsWith("error: ", lines[0], StringComparison.Ordinal);
        Assert.Contains(option, lines[0], StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("cyclic", "--runs", "abc")]
    [InlineData("cyclic", "--runs", "99999999999")]
    [InlineData("cyclic", "--rounds", "abc")]
    [InlineData("cyclic", "--rebalance-ms", "1.5")]
    [InlineData("cyclic", "--warmup", "abc")]
    [InlineData("cyclic", "--workers", "abc")]
    [InlineData("cyclic", "--duration", "abc")]
    [InlineData("cyclic", "--warmup-seconds", "abc")]
    [InlineData("demo", "--runs", "abc")]
    [InlineData("symmetric", "-k", "abc")]
    [InlineData("granularity", "--max-exponent", "abc")]
    [InlineData("trace", "--granularity-cores", "abc")]
    [InlineData("simulate", "--duration", "abc")]
    public async Task Values_that_crashed_the_harness_are_one_line(string command, string option, string value)
    {
        var (exitCode, output, error) = await CliRunner.RunAsync(command, option, value);
        Assert.Equal(1, exitCode);
        Assert.Equal(string.Empty, output);
        Assert.Matches(@"^error: [^\n]*'" + value + @"'\.\r?\n$", error);
    }

    [Theory]
    [InlineData("cyclic", "shared,default", "--no-lending", null, "the multiprogram schemes")]
    [InlineData("symmetric", "oversubscribed-free", "--lending-preference", "oldest-run", "the multiprogram schemes")]
    [InlineData("cyclic", "shared", "--profiles", "p.json", "the multiprogram schemes")]
    [InlineData("cyclic", "shared,default", "--rebalance-ms", "50", "the multiprogram schemes")]
    public async Task An_option_of_the_schemes_left_out_is_one_line_naming_it(string command, string schemes, string option, string? value, string named)
    {
        string[] given = value is null ? [option] : [option, value];
        var (exitCode, output, error) = await CliRunner.RunAsync([command, "--schemes", schemes, .. given]);
        Assert.Equal(1, exitCode);
        Assert.Equal(string.Empty, output);
        Assert.Matches($@"^error: {option} applies to {named} [^\n]*, which --schemes leaves out\.\r?\n$", error);
    }

    [Fact]
    public async Task Symmetric_instances_are_at_most_the_allowed_cpus()
    {
        var (exitCode, _, error) = await CliRunner.RunAsync("symmetric", "-k", "5000");
        Assert.Equal(1, exitCode);
        Assert.Contains("--instances must be a whole number from 1 to", error, StringComparison.Ordinal);
        Assert.Contains("(the allowed CPUs), not '5000'", error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("cyclic", "--programs", "bogosort")]
    [InlineData("cyclic", "--bogus", "1")]
    [InlineData("frobnicate")]
    [InlineData("cyclic", "--out")]
    public async Task A_parse_error_is_one_error_line_and_no_help(params string[] args)
    {
        var (exitCode, output, error) = await CliRunner.RunAsync(args);
        Assert.Equal(1, exitCode);
        Assert.Equal(string.Empty, output);
        Assert.Matches(@"^error: [^\n]+\r?\n$", error);
    }
}
