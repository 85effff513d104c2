using DivCon.Harness.Benchmarks;
using DivCon.Harness.Cli;
using DivCon.Harness.Measurement;

namespace DivCon.Harness.Tests.Cli;

/// <summary>
/// <c>bench-pairs</c>: its bad input, its reading of a child's output (every expected case once, nothing else), a
/// child that fails, and the tables it writes. No timing: the children here are not timing programs.
/// </summary>
public sealed class PairsBenchCommandTests
{
    private static readonly string[] s_expected = ["sum.plain-recursion", "sum.task-run"];

    [Theory]
    [InlineData("--pairs", "1")]
    [InlineData("--pairs", "1001")]
    [InlineData("--pairs", "abc")]
    [InlineData("--pairs", "-3")]
    [InlineData("--seconds", "0")]
    [InlineData("--seconds", "x")]
    [InlineData("--warmup", "-1")]
    [InlineData("--workers", "0")]
    [InlineData("--only", "nosuch")]
    [InlineData("--only", ",")]
    [InlineData("--a", "/nonexistent/DivCon.Bench.Runtimes.dll")]
    [InlineData("--out", " ")]
    [InlineData("--bogus", "1")]
    [InlineData("--pairs", null)]
    public async Task Bad_input_is_one_error_line_and_exit_code_1(string option, string? value)
    {
        string[] args = value is null ? [PairsBenchCommand.Name, "--validate", option] : [PairsBenchCommand.Name, "--validate", option, value];
        var (exitCode, output, error) = await CliRunner.RunAsync(args);
        Assert.Equal(1, exitCode);
        Assert.Equal(string.Empty, output);
        string line = Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("error: ", line, StringComparison.Ordinal);
        Assert.Contains(option, line, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Good_options_validate_and_a_run_without_the_builds_is_refused()
    {
        var (exitCode, output, error) = await CliRunner.RunAsync(PairsBenchCommand.Name, "--validate", "--pairs", "10", "--seconds", "1.5", "--warmup", "1", "--only", "fib.plain-recursion,fib.divcon-pool");
        Assert.Equal((0, "", ""), (exitCode, output, error));

        (exitCode, output, error) = await CliRunner.RunAsync(PairsBenchCommand.Name, "--pairs", "10");
        Assert.Equal(1, exitCode);
        Assert.Equal(string.Empty, output);
        Assert.StartsWith("error: --a and --b", Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries)), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_child_that_fails_stops_the_run_with_one_error_line_and_leaves_no_results()
    {
        string folder = Directory.CreateTempSubdirectory("divcon-pairs-").FullName;
        try
        {
            // Not an assembly: `dotnet exec` fails at once.
            string notAProgram = Path.Combine(folder, "not-a-program.dll");
            await File.WriteAllTextAsync(notAProgram, "not an assembly");
            string results = Path.Combine(folder, "results");
            var (exitCode, _, error) = await CliRunner.RunAsync(PairsBenchCommand.Name, "--a", notAProgram, "--b", notAProgram, "--pairs", "2", "--out", results);
            Assert.Equal(3, exitCode);
            string line = Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
            Assert.StartsWith("error: pair 1 build A ", line, StringComparison.Ordinal);
            Assert.Contains("exited with", line, StringComparison.Ordinal);
            Assert.False(File.Exists(Path.Combine(results, "README.md")));
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Fact]
    public async Task A_non_empty_output_folder_is_refused()
    {
        string folder = Directory.CreateTempSubdirectory("divcon-pairs-").FullName;
        try
        {
            string program = Path.Combine(folder, "p.dll");
            await File.WriteAllTextAsync(program, "x");
            var (exitCode, _, error) = await CliRunner.RunAsync(PairsBenchCommand.Name, "--a", program, "--b", program, "--out", folder);
            Assert.Equal(1, exitCode);
            Assert.Contains("never overwritten", error, StringComparison.Ordinal);

            // Found before the builds too: the script validates its options first.
            (exitCode, _, error) = await CliRunner.RunAsync(PairsBenchCommand.Name, "--validate", "--out", folder);
            Assert.Equal(1, exitCode);
            Assert.StartsWith("error: --out ", Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries)), StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Fact]
    public void A_child_s_output_is_read_case_by_case_other_lines_ignored()
    {
        string[] lines = ["warming up", FlatWorkloads.FormatLine("sum.plain-recursion", 2e7, 40), "", FlatWorkloads.FormatLine("sum.task-run", 3e7, 30)];
        var results = PairsBenchCommand.ReadChild(lines, s_expected, "pair 1 build A");
        Assert.Equal([("sum.plain-recursion", 2e7, 40), ("sum.task-run", 3e7, 30)], results);
    }

    [Theory]
    [InlineData(new string[0], "reported no case")]
    [InlineData(new[] { "Unhandled exception." }, "reported no case")]
    [InlineData(new[] { "case sum.plain-recursion 1 1" }, "did not report sum.task-run")]
    [InlineData(new[] { "case sum.plain-recursion 1 1", "case sum.task-run 1 1", "case sum.task-run 2 1" }, "sum.task-run twice")]
    [InlineData(new[] { "case sum.plain-recursion 1 1", "case sum.task-run 1 1", "case fib.divcon-pool 1 1" }, "not asked for: 'fib.divcon-pool'")]
    [InlineData(new[] { "case sum.plain-recursion 1 1", "case sum.task-run zero 1" }, "malformed")]
    public void A_child_that_reports_nothing_or_the_wrong_cases_is_refused(string[] lines, string message)
    {
        var ex = Assert.Throws<InvalidDataException>(() => PairsBenchCommand.ReadChild(lines, s_expected, "pair 2 build B"));
        Assert.StartsWith("pair 2 build B", ex.Message, StringComparison.Ordinal);
        Assert.Contains(message, ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_tables_give_each_case_B_over_A_and_each_build_s_ratio_to_its_baseline()
    {
        var runs = new List<BuildRun>();
        for (int pair = 1; pair <= 8; pair++)
        {
            double speed = pair % 2 == 0 ? 2 : 1;
            runs.Add(new(pair, 'A', "sum.plain-recursion", 20e6 * speed));
            runs.Add(new(pair, 'B', "sum.plain-recursion", 20e6 * speed));
            runs.Add(new(pair, 'A', "sum.task-run", 40e6 * speed));
            runs.Add(new(pair, 'B', "sum.task-run", 30e6 * speed));
        }

        string tables = PairsBenchCommand.Tables(
            BuildComparison.CompareBuilds(runs),
            BuildComparison.CompareToBaselines(runs, FlatWorkloads.Cases.ToDictionary(c => c.Name, c => c.Baseline)));
        Assert.Contains("| sum.plain-recursion | 8 | 30.000 ms | 30.000 ms | 1.000 | [1.000, 1.000] | no |", tables, StringComparison.Ordinal);
        Assert.Contains("| sum.task-run | 8 | 60.000 ms | 45.000 ms | 0.750 | [0.750, 0.750] | yes |", tables, StringComparison.Ordinal);
        Assert.Contains("| sum.task-run | sum.plain-recursion | 2.000 | [2.000, 2.000] | 1.500 | [1.500, 1.500] |", tables, StringComparison.Ordinal);
    }
}
