namespace DivCon.Harness.Tests.Cli;

/// <summary>Parse-time validation: every bad input fails before anything runs, with a message naming the valid choices.</summary>
public class CliParsingTests
{
    public static TheoryData<string> Commands => new() { "demo", "cyclic", "symmetric", "granularity", "scalability", "phases" };

    [Fact]
    public async Task Root_help_lists_every_command()
    {
        var (exitCode, output, _) = await CliRunner.RunAsync("--help");
        Assert.Equal(0, exitCode);
        foreach (string command in new[] { "demo", "cyclic", "symmetric", "granularity", "scalability", "phases", "bench" })
        {
            Assert.Contains(command, output, StringComparison.Ordinal);
        }
    }

    [Theory]
    [MemberData(nameof(Commands))]
    public async Task Every_command_has_help(string command)
    {
        var (exitCode, output, error) = await CliRunner.RunAsync(command, "--help");
        Assert.Equal(0, exitCode);
        Assert.Contains("Usage:", output, StringComparison.Ordinal);
        Assert.Contains("--out", output, StringComparison.Ordinal);
        Assert.Contains("--size", output, StringComparison.Ordinal);
        Assert.Equal(string.Empty, error);
    }

    [Theory]
    [MemberData(nameof(Commands))]
    public async Task Unknown_program_fails_and_lists_the_programs(string command)
    {
        var (exitCode, _, error) = await CliRunner.RunAsync(command, "--programs", "quicksort,bogosort");
        Assert.Equal(1, exitCode);
        Assert.Contains("Unknown program 'bogosort'", error, StringComparison.Ordinal);
        Assert.Contains("strassen", error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("demo")]
    [InlineData("cyclic")]
    [InlineData("symmetric")]
    public async Task Unknown_scheme_fails_and_lists_the_schemes(string command)
    {
        var (exitCode, _, error) = await CliRunner.RunAsync(command, "--schemes", "shared", "round-robin");
        Assert.Equal(1, exitCode);
        Assert.Contains("Unknown scheme 'round-robin'", error, StringComparison.Ordinal);
        Assert.Contains("oversubscribed-free", error, StringComparison.Ordinal);
        Assert.Contains("dynamic", error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("-1")]
    [InlineData("0")]
    [InlineData("NaN")]
    public async Task Non_positive_duration_fails(string duration)
    {
        var (exitCode, _, error) = await CliRunner.RunAsync("cyclic", "--duration", duration);
        Assert.Equal(1, exitCode);
        Assert.Contains("--duration must be a number of seconds above 0", error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("--coarsen-us", "-1", "--coarsen-us must be a number of microseconds of at least 0, not '-1'.")]
    [InlineData("--coarsen-us", "NaN", "--coarsen-us must be a number of microseconds of at least 0, not 'NaN'.")]
    [InlineData("--flatten-ns", "-5", "--flatten-ns must be a whole number of at least 0, not '-5'.")]
    [InlineData("--task-overhead-ns", "-5", "--task-overhead-ns must be a whole number of at least 0, not '-5'.")]
    [InlineData("--steal-overhead-ns", "-1", "--steal-overhead-ns must be a whole number of at least 0, not '-1'.")]
    [InlineData("--clamp-outliers", "1", "--clamp-outliers must be 0 (off) or a number of times the median above 1, not '1'.")]
    [InlineData("--clamp-outliers", "-2", "--clamp-outliers must be 0 (off) or a number of times the median above 1, not '-2'.")]
    [InlineData("--flatten-ns", "1.5", "1.5")]
    public async Task Simulate_rejects_bad_model_settings_naming_the_option(string option, string value, string message)
    {
        var (exitCode, _, error) = await CliRunner.RunAsync("simulate", option, value);
        Assert.Equal(1, exitCode);
        Assert.Contains(message, error, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", error, StringComparison.Ordinal);
        Assert.DoesNotContain("Parameter '", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Bad_size_preset_fails_and_lists_the_presets()
    {
        var (exitCode, _, error) = await CliRunner.RunAsync("granularity", "--size", "huge");
        Assert.Equal(1, exitCode);
        Assert.Contains("huge", error, StringComparison.Ordinal);
        Assert.Contains("thesis", error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("quicksort", "expects program=size")]
    [InlineData("quicksort=-5", "not a positive whole number")]
    [InlineData("quicksort=2^99", "not a positive whole number")]
    [InlineData("heapsort=100", "Unknown program 'heapsort'")]
    public async Task Bad_explicit_sizes_fail(string sizes, string message)
    {
        var (exitCode, _, error) = await CliRunner.RunAsync("phases", "--sizes", sizes);
        Assert.Equal(1, exitCode);
        Assert.Contains(message, error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_size_the_program_rejects_is_a_clear_error_not_a_crash()
    {
        string root = Path.Combine(Path.GetTempPath(), "divcon-cli-badsize-" + Guid.NewGuid().ToString("N"));
        try
        {
            var (exitCode, _, error) = await CliRunner.RunAsync("phases", "--programs", "strassen", "--sizes", "strassen=999999", "--out", root);
            Assert.Equal(1, exitCode); // the code of every other bad input too
            Assert.Contains("not valid for strassen", error, StringComparison.Ordinal);
        }
        finally
        {
            if (Directory.Exists(root))
            {
                Directory.Delete(root, recursive: true);
            }
        }
    }

    [Theory]
    [InlineData("--workers", "0")]
    [InlineData("--workers", "100000")]
    [InlineData("--runs", "0")]
    public async Task Out_of_range_counts_fail(string option, string value)
    {
        var (exitCode, _, error) = await CliRunner.RunAsync("cyclic", option, value);
        Assert.Equal(1, exitCode);
        Assert.Contains(option, error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Repeated_program_fails()
    {
        var (exitCode, _, error) = await CliRunner.RunAsync("cyclic", "--programs", "quicksort,quicksort");
        Assert.Equal(1, exitCode);
        Assert.Contains("twice", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Root_help_documents_the_exit_codes_and_the_ad_hoc_results_folder()
    {
        var (exitCode, output, _) = await CliRunner.RunAsync("--help");
        Assert.Equal(0, exitCode);
        Assert.Contains("Exit codes: 0 success, 1 bad input, 2 I/O or platform problem, 3 failed run, 130 cancelled", output, StringComparison.Ordinal);
        Assert.Contains("results-local", output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Unknown_command_fails()
    {
        var (exitCode, _, error) = await CliRunner.RunAsync("frobnicate");
        Assert.NotEqual(0, exitCode);
        Assert.Contains("frobnicate", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Bad_scalability_core_count_fails()
    {
        var (exitCode, _, error) = await CliRunner.RunAsync("scalability", "--cores", "1,x");
        Assert.Equal(1, exitCode);
        Assert.Contains("--cores", error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("simulate", "--cores", "1,2")]
    [InlineData("trace", "--repeat", "two")]
    [InlineData("scalability", "--runs", "x")]
    public async Task A_non_integer_for_a_checked_integer_option_is_one_line_of_bad_input(string command, string option, string value)
    {
        var (exitCode, _, error) = await CliRunner.RunAsync(command, option, value);
        Assert.Equal(1, exitCode);
        Assert.Contains(option, error, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", error, StringComparison.Ordinal);
    }
}
