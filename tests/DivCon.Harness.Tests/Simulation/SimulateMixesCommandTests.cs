using DivCon.Harness.Tests.Cli;
using DivCon.Simulator;
using DivCon.Skeletons.Tracing;

namespace DivCon.Harness.Tests.Simulation;

/// <summary>
/// <c>simulate-mixes</c> end to end on synthetic traces: the files, one row per (mix, cores, scheme), results that do
/// not depend on the parallelism, the thesis mixes, and one-line errors for bad input.
/// </summary>
[Collection(LiveSchedulersTestGroup.Name)]
public sealed class SimulateMixesCommandTests : IDisposable
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), "divcon-mixes-" + Guid.NewGuid().ToString("N"));

    public SimulateMixesCommandTests() => Directory.CreateDirectory(_root);

    private string Traces => Path.Combine(_root, "traces");

    public void Dispose()
    {
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    private void WriteTraces(params string[] programs)
    {
        Directory.CreateDirectory(Traces);
        foreach (string program in programs)
        {
            foreach (int g in new[] { 4, 8 })
            {
                TaskTreeFile.Write(Path.Combine(Traces, $"{program}-w1-g{g}.dctree"),
                    program.StartsWith("strassen", StringComparison.Ordinal)
                        ? TaskTree.FromShape(branching: 7, depth: 1, execute: 3_000_000, split: 500_000, merge: 500_000)
                        : TaskTree.FromShape(branching: 2, depth: 3, execute: 1_000_000, split: 100_000, merge: 100_000));
            }
        }
    }

    [Fact]
    public async Task It_writes_every_file_with_a_row_per_mix_cores_and_scheme_and_the_same_rows_at_any_parallelism()
    {
        WriteTraces("quicksort", "strassen");
        string[] common = ["simulate-mixes", "--mixes", "3", "--cores", "4,8", "--time-limit", "0.3", "--programs", "quicksort,strassen", "--trace-dir", Traces,
            "--thesis-form-dir", Traces, "--no-thesis-mixes", "--out", _root];

        var (exitCode, output, error) = await CliRunner.RunAsync([.. common, "--name", "two", "--parallel", "2"]);
        Assert.True(exitCode == 0, error);
        Assert.Contains("SIMULATED, 8 cores, 3 generated mixes", output, StringComparison.Ordinal);
        string folder = Path.Combine(_root, "two");
        foreach (string file in new[] { "mixes.csv", "outcomes.csv", "programs.csv", "aggregate.csv", "cost.csv", "summary.md", "stamp.json" })
        {
            Assert.True(File.Exists(Path.Combine(folder, file)), file);
        }

        string[] outcomes = File.ReadAllLines(Path.Combine(folder, "outcomes.csv"));
        Assert.Equal("mix,cores,scheme,stp,antt,worst_ntt,moves_per_s,handovers_per_s", outcomes[0]);
        Assert.Equal(1 + (3 * 2 * SimulatedSchemes.All.Count), outcomes.Length);
        Assert.Equal(1 + (2 * SimulatedSchemes.All.Count), File.ReadAllLines(Path.Combine(folder, "aggregate.csv")).Length);
        string summary = File.ReadAllText(Path.Combine(folder, "summary.md"));
        Assert.Contains("## 4 cores: 3 generated mixes", summary, StringComparison.Ordinal);
        Assert.Contains("geo-mean STP / best other", summary, StringComparison.Ordinal);
        Assert.Contains("simulate-mixes", summary, StringComparison.Ordinal);

        (exitCode, _, error) = await CliRunner.RunAsync([.. common, "--name", "one", "--parallel", "1"]);
        Assert.True(exitCode == 0, error);
        foreach (string file in new[] { "mixes.csv", "outcomes.csv", "programs.csv", "aggregate.csv" })
        {
            Assert.Equal(File.ReadAllText(Path.Combine(folder, file)), File.ReadAllText(Path.Combine(_root, "one", file)));
        }
    }

    [Fact]
    public async Task The_thesis_mixes_are_run_in_both_forms_with_the_chosen_schemes()
    {
        WriteTraces("sumsq", "pi", "strassen", "quicksort", "mergesort", "strassen-thesis", "quicksort-thesis", "mergesort-thesis");

        var (exitCode, _, error) = await CliRunner.RunAsync("simulate-mixes", "--mixes", "0", "--cores", "4", "--time-limit", "0.2", "--schemes", "static,shared",
            "--trace-dir", Traces, "--thesis-form-dir", Traces, "--out", _root, "--name", "thesis");

        Assert.True(exitCode == 0, error);
        string[] rows = File.ReadAllLines(Path.Combine(_root, "thesis", "outcomes.csv"));
        Assert.Equal(1 + (4 * 2), rows.Length);
        Assert.Equal(["thesis-3", "thesis-5", "thesis-3-form", "thesis-5-form"], rows.Skip(1).Select(r => r.Split(',')[0]).Distinct());
        Assert.Equal(["shared", "static"], rows.Skip(1).Select(r => r.Split(',')[2]).Distinct().Order());
        Assert.Contains("Fixed mixes", File.ReadAllText(Path.Combine(_root, "thesis", "summary.md")), StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_lending_preference_is_off_by_default_and_named_in_the_settings_when_chosen()
    {
        WriteTraces("quicksort", "strassen");
        await RunDynamicAndStaticAsync("default");
        await RunDynamicAndStaticAsync("round-robin", "--lending-preference", "round-robin");
        await RunDynamicAndStaticAsync("oldest", "--lending-preference", "oldest-run");

        Assert.Equal(File.ReadAllText(Path.Combine(_root, "default", "outcomes.csv")), File.ReadAllText(Path.Combine(_root, "round-robin", "outcomes.csv")));
        Assert.DoesNotContain("first)", File.ReadAllText(Path.Combine(_root, "default", "summary.md")), StringComparison.Ordinal);
        Assert.Contains("lending True (oldest-run first)", File.ReadAllText(Path.Combine(_root, "oldest", "summary.md")), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("--priors", "dynamic learns without profiles", "start from the offline speedup tables (--priors)")]
    [InlineData("--lifetime-hints", "no program states its lifetime", "states its expected lifetime to dynamic (--lifetime-hints)")]
    public async Task A_dynamic_only_option_changes_only_the_dynamic_rows_and_is_named_in_the_settings(string option, string without, string with)
    {
        WriteTraces("quicksort", "strassen");
        await RunDynamicAndStaticAsync("without");
        await RunDynamicAndStaticAsync("with", option);

        string[] Rows(string name, string scheme) =>
            [.. File.ReadAllLines(Path.Combine(_root, name, "outcomes.csv")).Where(r => r.Split(',')[2] == scheme)];
        Assert.Equal(Rows("without", "static"), Rows("with", "static"));
        Assert.NotEmpty(Rows("with", "dynamic"));
        Assert.Contains(without, File.ReadAllText(Path.Combine(_root, "without", "summary.md")), StringComparison.Ordinal);
        Assert.DoesNotContain(with, File.ReadAllText(Path.Combine(_root, "without", "summary.md")), StringComparison.Ordinal);
        Assert.Contains(with, File.ReadAllText(Path.Combine(_root, "with", "summary.md")), StringComparison.Ordinal);
    }

    // Two generated mixes of quicksort and Strassen at 4 cores under dynamic and static into _root/name (the traces
    // written first), with the extra options; fails the test on a non-zero exit.
    private async Task RunDynamicAndStaticAsync(string name, params string[] extra)
    {
        var (exitCode, _, error) = await CliRunner.RunAsync(
        [
            "simulate-mixes", "--mixes", "2", "--cores", "4", "--time-limit", "0.3", "--programs", "quicksort,strassen", "--schemes", "dynamic,static",
            "--trace-dir", Traces, "--thesis-form-dir", Traces, "--no-thesis-mixes", "--out", _root, "--name", name, .. extra,
        ]);
        Assert.True(exitCode == 0, error);
    }

    [Theory]
    [InlineData("--cores", "0")]
    [InlineData("--cores", "4,x")]
    [InlineData("--mixes", "-1")]
    [InlineData("--time-limit", "0")]
    [InlineData("--schemes", "dynamic,nosuch")]
    [InlineData("--schemes", "static,static")]
    [InlineData("--programs", "../x")]
    [InlineData("--parallel", "0")]
    [InlineData("--lending-credit", "1.5")]
    [InlineData("--lending-credit", "-0.1")]
    [InlineData("--fairness", "3")]
    [InlineData("--move-threshold", "-1")]
    [InlineData("--lending-preference", "fifo")]
    [InlineData("--long-runs-first", "0.5")]
    [InlineData("--long-runs-first", "-1")]
    [InlineData("--lifetime-error", "0.5")]
    [InlineData("--lifetime-error", "x")]
    [InlineData("--lifetime-error", "2")] // without --lifetime-hints no program states a lifetime to be off
    public async Task Bad_input_is_one_error_line_naming_the_option(string option, string value)
    {
        var (exitCode, output, error) = await CliRunner.RunAsync("simulate-mixes", option, value, "--out", _root);

        Assert.Equal(1, exitCode);
        Assert.Empty(output);
        Assert.StartsWith("error: ", error, StringComparison.Ordinal);
        Assert.Single(error.Trim().Split('\n'));
        Assert.Contains(option, error, StringComparison.Ordinal);
        Assert.DoesNotContain(Directory.EnumerateDirectories(_root), d => Path.GetFileName(d).StartsWith("simulated-mixes", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_missing_trace_fails_before_anything_runs_naming_the_program()
    {
        WriteTraces("quicksort");

        var (exitCode, _, error) = await CliRunner.RunAsync("simulate-mixes", "--mixes", "2", "--cores", "4", "--programs", "quicksort,mergesort", "--no-thesis-mixes",
            "--trace-dir", Traces, "--thesis-form-dir", Traces, "--out", _root);

        Assert.NotEqual(0, exitCode);
        Assert.StartsWith("error: ", error, StringComparison.Ordinal);
        Assert.Contains("mergesort", error, StringComparison.Ordinal);
        Assert.DoesNotContain(Directory.EnumerateDirectories(_root), d => Path.GetFileName(d).StartsWith("simulated-mixes", StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("--fairness", "0.25", "static", "dynamic")]
    [InlineData("--priors", null, "shared,static", "dynamic")]
    [InlineData("--lifetime-hints", null, "hill-climbing", "dynamic")]
    [InlineData("--no-lending", null, "shared,oversubscribed-free", "partitioning")]
    [InlineData("--lending-preference", "oldest-run", "default", "partitioning")]
    public async Task An_option_for_a_scheme_left_out_is_bad_input(string option, string? value, string schemes, string named)
    {
        string[] args = value is null
            ? ["simulate-mixes", option, "--schemes", schemes, "--out", _root]
            : ["simulate-mixes", option, value, "--schemes", schemes, "--out", _root];
        var (exitCode, output, error) = await CliRunner.RunAsync(args);

        Assert.Equal(1, exitCode);
        Assert.Empty(output);
        Assert.Single(error.Trim().Split('\n'));
        Assert.Contains(option, error, StringComparison.Ordinal);
        Assert.Contains(named, error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Nothing_to_simulate_is_bad_input()
    {
        var (exitCode, _, error) = await CliRunner.RunAsync("simulate-mixes", "--mixes", "0", "--no-thesis-mixes", "--out", _root);

        Assert.Equal(1, exitCode);
        Assert.Contains("--mixes 0", error, StringComparison.Ordinal);
    }
}
