using System.Globalization;
using DivCon.Harness.Tests.Cli;
using DivCon.Skeletons;
using DivCon.Skeletons.Tracing;

namespace DivCon.Harness.Tests.Simulation;

/// <summary>
/// The trace and simulate commands end to end: a real recording at tiny sizes, simulations of synthetic traces in
/// every mode, and one-line errors for a missing folder, a missing trace and a corrupt or truncated file.
/// </summary>
[Collection(LiveSchedulersTestGroup.Name)]
public sealed class TraceAndSimulateCommandTests : IDisposable
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), "divcon-sim-" + Guid.NewGuid().ToString("N"));

    public TraceAndSimulateCommandTests() => Directory.CreateDirectory(_root);

    private string Traces => Path.Combine(_root, "traces");

    public void Dispose()
    {
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    [Fact]
    public async Task Trace_records_a_readable_tree_per_program_and_worker_count()
    {
        var (exitCode, output, error) = await CliRunner.RunAsync(
            "trace", "--programs", "quicksort,sumsq", "--sizes", "quicksort=2^14", "sumsq=2^14", "--workers", "1", "--granularity-cores", "8", "--repeat", "2", "--out", Traces);

        Assert.True(exitCode == 0, error);
        Assert.Contains("Recorded task trees", output, StringComparison.Ordinal);
        foreach (string program in new[] { "quicksort", "sumsq" })
        {
            TaskTree tree = TaskTreeFile.Read(Path.Combine(Traces, $"{program}-w1-g8.dctree"));
            Assert.Equal(program, tree.Property("program"));
            Assert.Equal("2", tree.Property("recordedRuns"));
            Assert.True(tree.LeafCount >= 16, $"{program}: {tree.LeafCount} leaves for 8 cores x 4");
        }
    }

    [Fact]
    public async Task Trace_keeps_the_nested_runs_of_a_sweep_cut_into_blocks_and_simulate_replays_them()
    {
        // Above 2^19 elements quicksort's split is a parallel partition: three sweeps, each a nested run of blocks.
        var (exitCode, _, error) = await CliRunner.RunAsync(
            "trace", "--programs", "quicksort", "--sizes", "quicksort=2^20", "--workers", "1", "--granularity-cores", "1", "--repeat", "1", "--out", Traces);
        Assert.True(exitCode == 0, error);

        TaskTree tree = TaskTreeFile.Read(Path.Combine(Traces, "quicksort-w1-g1.dctree"));
        Assert.NotEmpty(tree.NestedRuns);
        Assert.All(tree.NestedRuns, r => Assert.Equal(DivideAndConquerPhase.Split, r.Phase));
        Assert.Contains(tree.NestedRuns, r => r.Node == 0);

        (exitCode, var output, error) = await CliRunner.RunAsync(
            "simulate", "--mode", "scalability", "--trace-dir", Traces, "--programs", "quicksort", "--cores", "2", "--out", _root);
        Assert.True(exitCode == 0, error);
        Assert.Contains("in nested runs", output + File.ReadAllText(Path.Combine(_root, "simulated-scalability-2", "simulation.md")), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("cyclic", "simulated-cyclic-8")]
    [InlineData("symmetric", "simulated-symmetric-8-quicksort")]
    public async Task Simulate_writes_the_cyclic_reports_labelled_simulated(string mode, string folder)
    {
        WriteSyntheticTraces(cores: 8);
        string[] instances = mode == "symmetric" ? ["-k", "2"] : [];
        var (exitCode, output, error) = await CliRunner.RunAsync(
            ["simulate", "--mode", mode, "--trace-dir", Traces, "--programs", "quicksort,strassen", "--cores", "8", "--duration", "0.5", .. instances, "--out", _root]);

        Assert.True(exitCode == 0, error);
        Assert.Contains("SIMULATED", output, StringComparison.Ordinal);
        string path = Path.Combine(_root, folder);
        foreach (string file in new[] { "runs.csv", "isolated.csv", "summary.json", "summary.md", "stp.svg", "simulation.md", "allocation-dynamic.svg", "move-latency.csv", "moves.csv" })
        {
            Assert.True(File.Exists(Path.Combine(path, file)), file);
        }

        Assert.Contains("simulated, 8 cores", File.ReadAllText(Path.Combine(path, "summary.md")), StringComparison.Ordinal);
        string runs = File.ReadAllText(Path.Combine(path, "runs.csv"));
        foreach (string scheme in new[] { "oversubscribed-free", "oversubscribed-pinned", "shared", "default", "static", "dynamic", "hill-climbing" })
        {
            Assert.Contains(scheme + ",", runs, StringComparison.Ordinal);
        }
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Simulate_validate_compares_with_the_measured_folders(bool noStandby)
    {
        WriteSyntheticTraces(cores: 2);
        string measured = Path.Combine(_root, "measured");
        Directory.CreateDirectory(Path.Combine(measured, "scalability"));
        File.WriteAllText(Path.Combine(measured, "scalability", "runs.csv"),
            "series,x,run_index,seconds\nquicksort,1,0,0.05\nquicksort,2,0,0.03\nquicksort (dispersed),2,0,9\nstrassen,1,0,0.01\nstrassen,2,0,0.008\n");
        string cyclic = Path.Combine(measured, "cyc");
        Directory.CreateDirectory(cyclic);
        File.WriteAllText(Path.Combine(cyclic, "setup.json"), """
            {"data": {"workers": 2, "timeLimitSeconds": 0.5,
              "workload": [{"name": "quicksort", "program": "quicksort"}, {"name": "strassen", "program": "strassen"}],
              "schemes": [{"name": "dynamic"}, {"name": "shared"}]}}
            """);
        File.WriteAllText(Path.Combine(cyclic, "summary.json"), """
            {"data": {"schemes": [
              {"scheme": "dynamic", "metrics": {"antt": 2.0, "anttHalfWidth": 0.1, "stp": 1.0, "stpHalfWidth": 0.1,
                "programs": [{"program": "quicksort", "normalizedTurnaroundTime": 2.1}, {"program": "strassen", "normalizedTurnaroundTime": 1.9}]}},
              {"scheme": "shared", "metrics": {"antt": 3.0, "anttHalfWidth": 0.1, "stp": 0.8, "stpHalfWidth": 0.1,
                "programs": [{"program": "quicksort", "normalizedTurnaroundTime": 3.1}, {"program": "strassen", "normalizedTurnaroundTime": 2.9}]}}]}}
            """);
        string[] args =
        [
            "simulate", "--mode", "validate", "--measured", measured, "--validate-folders", "cyc", "--trace-dir", Traces,
            "--programs", "quicksort,strassen", "--out", _root, .. noStandby ? new[] { "--no-standby" } : [],
        ];
        var (exitCode, output, error) = await CliRunner.RunAsync(args);

        Assert.True(exitCode == 0, error);
        string path = Path.Combine(_root, "simulated-validate-2"); // the measured worker count, not --cores
        string csv = File.ReadAllText(Path.Combine(path, "validation.csv"));
        Assert.Contains("scalability,,quicksort,speedup@2,", csv, StringComparison.Ordinal);
        Assert.DoesNotContain("dispersed", csv, StringComparison.Ordinal);
        Assert.Contains("cyc,dynamic,,antt,", csv, StringComparison.Ordinal);
        Assert.Contains("cyc,shared,strassen,ntt,", csv, StringComparison.Ordinal);
        Assert.Contains("cyc,stp,", File.ReadAllText(Path.Combine(path, "ordering.csv")), StringComparison.Ordinal);
        Assert.Contains(noStandby ? "standby handover off" : "standby handover on", File.ReadAllText(Path.Combine(path, "validation.md")), StringComparison.Ordinal);
        Assert.Contains("Scheme order", output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Simulate_validate_with_a_tolerance_writes_the_flagged_comparison()
    {
        WriteSyntheticTraces(cores: 2);
        string measured = Path.Combine(_root, "measured");
        Directory.CreateDirectory(Path.Combine(measured, "scalability"));
        // Measured alone times no simulation of these traces comes near (1,000 s): every alone time is flagged.
        File.WriteAllText(Path.Combine(measured, "scalability", "runs.csv"), "series,x,run_index,seconds\nquicksort,1,0,1000\nquicksort,2,0,500\n");
        string pair = Path.Combine(measured, "symmetric-quicksort");
        Directory.CreateDirectory(pair);
        File.WriteAllText(Path.Combine(pair, "setup.json"), """
            {"data": {"workers": 2, "timeLimitSeconds": 0.5,
              "workload": [{"name": "quicksort#1", "program": "quicksort"}, {"name": "quicksort#2", "program": "quicksort"}],
              "schemes": [{"name": "shared"}, {"name": "static"}]}}
            """);
        File.WriteAllText(Path.Combine(pair, "summary.json"), """
            {"data": {"schemes": [
              {"scheme": "shared", "metrics": {"antt": 2.0, "stp": 1.0,
                "programs": [{"program": "quicksort#1", "normalizedTurnaroundTime": 2.0}, {"program": "quicksort#2", "normalizedTurnaroundTime": 0}]}},
              {"scheme": "static", "metrics": {"antt": 2.0, "stp": 1.0, "programs": []}}]}}
            """);

        var (exitCode, output, error) = await CliRunner.RunAsync(
            "simulate", "--mode", "validate", "--measured", measured, "--validate-folders", "symmetric-quicksort", "--trace-dir", Traces,
            "--programs", "quicksort", "--out", _root, "--name", "pair", "--tolerance", "10");

        Assert.True(exitCode == 0, error);
        string path = Path.Combine(_root, "pair");
        string[] csv = File.ReadAllLines(Path.Combine(path, "comparison.csv"));
        Assert.Equal("experiment,scheme,program,metric,measured,simulated,difference_percent,beyond", csv[0]);
        Assert.All(csv.Where(l => l.StartsWith("scalability,,quicksort,time_s@", StringComparison.Ordinal)), l => Assert.EndsWith(",yes", l, StringComparison.Ordinal));
        // A measured NTT of 0 has no relative error: flagged, never silently within the tolerance.
        Assert.Matches(@"^symmetric-quicksort,shared,quicksort#2,ntt,0,[0-9.E+-]+,,yes$", csv.Single(l => l.Contains("quicksort#2,ntt", StringComparison.Ordinal)));
        Assert.Contains(csv, l => l.StartsWith("symmetric-quicksort,static,,antt,2,", StringComparison.Ordinal));
        string markdown = File.ReadAllText(Path.Combine(path, "comparison.md"));
        Assert.Contains("## symmetric-quicksort", markdown, StringComparison.Ordinal);
        Assert.Contains("beyond ±10.0%", markdown, StringComparison.Ordinal);
        Assert.Contains("No machine description.", markdown, StringComparison.Ordinal);
        Assert.Contains(DivCon.Harness.Simulation.ValidationTolerance.FlagText, output, StringComparison.Ordinal);
        Assert.True(File.Exists(Path.Combine(path, "validation.csv")), "the validation's own files are still written");
    }

    /// <summary>Synthetic 2-core traces and a measured root: quicksort alone for <paramref name="aloneSeconds"/> on one worker in
    /// <c>scalability/</c>, and a one-scheme cyclic folder <c>cyc</c>.</summary>
    private string WriteOneProgramMeasurement(double aloneSeconds)
    {
        WriteSyntheticTraces(cores: 2);
        string measured = Path.Combine(_root, "measured");
        Directory.CreateDirectory(Path.Combine(measured, "scalability"));
        File.WriteAllText(Path.Combine(measured, "scalability", "runs.csv"),
            string.Create(CultureInfo.InvariantCulture, $"series,x,run_index,seconds\nquicksort,1,0,{aloneSeconds}\n"));
        string folder = Path.Combine(measured, "cyc");
        Directory.CreateDirectory(folder);
        File.WriteAllText(Path.Combine(folder, "setup.json"), """
            {"data": {"workers": 2, "timeLimitSeconds": 0.5, "workload": [{"name": "quicksort", "program": "quicksort"}], "schemes": [{"name": "dynamic"}]}}
            """);
        File.WriteAllText(Path.Combine(folder, "summary.json"), """
            {"data": {"schemes": [{"scheme": "dynamic", "metrics": {"antt": 1.0, "stp": 1.0, "programs": []}}]}}
            """);
        return measured;
    }

    [Fact]
    public async Task Simulate_validate_reads_the_alone_runs_from_the_folder_named()
    {
        // The default folder holds other times than the one named: only the named one's 0.0625 s may appear.
        string measured = WriteOneProgramMeasurement(aloneSeconds: 7);
        Directory.CreateDirectory(Path.Combine(measured, "alone-later"));
        File.WriteAllText(Path.Combine(measured, "alone-later", "runs.csv"), "series,x,run_index,seconds\nquicksort,1,0,0.0625\n");

        var (exitCode, _, error) = await CliRunner.RunAsync(
            "simulate", "--mode", "validate", "--measured", measured, "--validate-folders", "cyc", "--validate-scalability", "alone-later", "--trace-dir", Traces,
            "--programs", "quicksort", "--out", _root, "--name", "later");

        Assert.True(exitCode == 0, error);
        string csv = File.ReadAllText(Path.Combine(_root, "later", "validation.csv"));
        string row = csv.Split('\n').Single(l => l.StartsWith("scalability,,quicksort,time_s@1,", StringComparison.Ordinal));
        Assert.Equal("0.0625", row.Split(',')[5]);
    }

    [Theory]
    [InlineData("../scalability")]
    [InlineData("a/b")]
    public async Task A_validate_scalability_folder_that_is_not_plain_is_refused(string value)
    {
        var (exitCode, output, error) = await CliRunner.RunAsync("simulate", "--mode", "validate", "--validate-scalability", value);
        Assert.Equal(1, exitCode);
        Assert.Equal(string.Empty, output);
        Assert.Contains("--validate-scalability", error, StringComparison.Ordinal);
        Assert.DoesNotContain("\n", error.Trim(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Simulate_validate_without_a_tolerance_writes_no_comparison()
    {
        string measured = WriteOneProgramMeasurement(aloneSeconds: 0.05);

        var (exitCode, _, error) = await CliRunner.RunAsync(
            "simulate", "--mode", "validate", "--measured", measured, "--validate-folders", "cyc", "--trace-dir", Traces, "--programs", "quicksort", "--out", _root, "--name", "plain");

        Assert.True(exitCode == 0, error);
        Assert.True(File.Exists(Path.Combine(_root, "plain", "validation.md")));
        Assert.False(File.Exists(Path.Combine(_root, "plain", "comparison.md")));
        Assert.False(File.Exists(Path.Combine(_root, "plain", "comparison.csv")));
    }

    [Theory]
    [InlineData("cyclic", "shared,oversubscribed-free", "--no-lending", null, "--no-lending applies to the partitioning schemes")]
    [InlineData("cyclic", "default", "--decision-interval-ms", "50", "--decision-interval-ms applies to the partitioning schemes")]
    [InlineData("cyclic", "static,dynamic", "--availability", "smoothed", "--availability applies to the task-availability scheme")]
    [InlineData("cyclic", "static", "--pool-extra-threads", "2", "--pool-extra-threads applies to the default scheme")]
    [InlineData("cyclic", null, "--instances", "2", "applies to --mode symmetric, not --mode cyclic")]
    [InlineData("scalability", null, "-k", "2", "applies to --mode symmetric, not --mode scalability")]
    [InlineData("cyclic", null, "--validate-folders", "cyc", "applies to --mode validate, not --mode cyclic")]
    [InlineData("symmetric", null, "--measured", "results", "applies to --mode validate, not --mode symmetric")]
    [InlineData("scalability", null, "--schemes", "static", "--schemes applies to the multiprogram modes (cyclic, symmetric, validate), not --mode scalability")]
    [InlineData("scalability", null, "--no-lending", null, "--no-lending applies to the multiprogram modes")]
    [InlineData("scalability", null, "--pool-extra-threads", "2", "--pool-extra-threads applies to the multiprogram modes")]
    public async Task An_option_that_would_change_nothing_is_refused_naming_it(string mode, string? schemes, string option, string? value, string expected)
    {
        // An option of a scheme the run leaves out, or of another mode, would be ignored: it is bad input instead.
        WriteSyntheticTraces(cores: 2);
        string[] given = [.. schemes is null ? [] : new[] { "--schemes", schemes }, option, .. value is null ? [] : new[] { value }];
        var (exitCode, output, error) = await CliRunner.RunAsync(
            ["simulate", "--mode", mode, "--trace-dir", Traces, "--programs", "quicksort", "--cores", "2", "--duration", "0.5", "--out", _root, .. given]);

        Assert.Equal(1, exitCode);
        Assert.Contains(expected, error, StringComparison.Ordinal);
        Assert.Single(error.Trim().Split('\n'));
        Assert.Equal(string.Empty, output);
        Assert.False(Directory.Exists(Path.Combine(_root, $"simulated-{mode}-2")));
    }

    [Theory]
    [InlineData("cyclic", "10", "--tolerance applies to --mode validate, not cyclic (got '--tolerance 10')")]
    [InlineData("validate", "-1", "--tolerance")]
    [InlineData("validate", "ten", "--tolerance")]
    public async Task Bad_tolerance_is_a_one_line_error_naming_option_and_value(string mode, string value, string expected)
    {
        WriteSyntheticTraces(cores: 2);
        var (exitCode, output, error) = await CliRunner.RunAsync(
            "simulate", "--mode", mode, "--trace-dir", Traces, "--programs", "quicksort", "--cores", "2", "--duration", "0.5", "--out", _root, "--tolerance", value);

        Assert.Equal(1, exitCode);
        Assert.Contains(expected, error, StringComparison.Ordinal);
        Assert.Contains(value, error, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", error, StringComparison.Ordinal);
        Assert.Equal(string.Empty, output);
        Assert.False(Directory.Exists(Path.Combine(_root, $"simulated-{mode}-2")));
    }

    [Fact]
    public async Task Simulate_scalability_reports_speedups()
    {
        WriteSyntheticTraces(cores: 8);
        var (exitCode, output, error) = await CliRunner.RunAsync(
            "simulate", "--mode", "scalability", "--trace-dir", Traces, "--programs", "quicksort", "--cores", "8", "--out", _root);

        Assert.True(exitCode == 0, error);
        string csv = File.ReadAllText(Path.Combine(_root, "simulated-scalability-8", "speedup.csv"));
        Assert.StartsWith("program,cores,placement,seconds,speedup", csv, StringComparison.Ordinal);
        Assert.Contains("quicksort,8,contiguous,", csv, StringComparison.Ordinal);
        Assert.Contains("Simulated speedup", output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Simulate_scalability_with_allocation_gives_rows_per_placement_and_dispersal_relieves_a_die()
    {
        WriteSyntheticTraces(cores: 4);
        string machine = WriteTwoDieMachine();
        var (exitCode, output, error) = await CliRunner.RunAsync(
            "simulate", "--mode", "scalability", "--trace-dir", Traces, "--programs", "quicksort", "--cores", "4", "--out", _root,
            "--machine", machine + ":middle", "--allocation", "contiguous,dispersed");

        Assert.True(exitCode == 0, error);
        string[] lines = File.ReadAllLines(Path.Combine(_root, "simulated-scalability-4", "speedup.csv"));
        Assert.Equal("program,cores,placement,seconds,speedup", lines[0]);
        double Speedup(int cores, string placement) => double.Parse(
            lines.Single(l => l.StartsWith($"quicksort,{cores},{placement},", StringComparison.Ordinal)).Split(',')[4], System.Globalization.CultureInfo.InvariantCulture);
        // Two cores contiguous share die 0, whose bandwidth covers one task's demand: their tasks stretch; dispersed,
        // each core has a die of its own and nothing stretches.
        Assert.True(Speedup(2, "dispersed") > Speedup(2, "contiguous") * 1.2, $"dispersed {Speedup(2, "dispersed")}, contiguous {Speedup(2, "contiguous")}");
        Assert.Equal(1.0, Speedup(1, "dispersed"), 6);
        Assert.Contains("quicksort (dispersed)", output, StringComparison.Ordinal);
        Assert.Contains("| placement |", File.ReadAllText(Path.Combine(_root, "simulated-scalability-4", "summary.md")), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Simulate_scalability_rows_name_the_machine_placement_without_allocation()
    {
        WriteSyntheticTraces(cores: 4);
        var (exitCode, _, error) = await CliRunner.RunAsync(
            "simulate", "--mode", "scalability", "--trace-dir", Traces, "--programs", "quicksort", "--cores", "4", "--out", _root,
            "--machine", WriteTwoDieMachine() + ":middle:dispersed");

        Assert.True(exitCode == 0, error);
        string csv = File.ReadAllText(Path.Combine(_root, "simulated-scalability-4", "speedup.csv"));
        Assert.Contains("quicksort,4,dispersed,", csv, StringComparison.Ordinal);
        Assert.DoesNotContain(",contiguous,", csv, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(false, "scalability", "spread", "--allocation")]
    [InlineData(false, "scalability", "dispersed", "--allocation dispersed needs --machine")]
    [InlineData(true, "cyclic", "dispersed", "--allocation applies to --mode scalability, not cyclic (got '--allocation dispersed')")]
    public async Task Bad_allocation_is_a_one_line_error_naming_option_and_value(bool withMachine, string mode, string value, string expected)
    {
        WriteSyntheticTraces(cores: 4);
        string[] machine = withMachine ? ["--machine", WriteTwoDieMachine()] : [];
        var (exitCode, _, error) = await CliRunner.RunAsync(
            ["simulate", "--mode", mode, "--trace-dir", Traces, "--programs", "quicksort", "--cores", "4", "--out", _root, "--duration", "1", "--allocation", value, .. machine]);

        Assert.Equal(1, exitCode);
        Assert.Contains(expected, error, StringComparison.Ordinal);
        Assert.Contains(value, error, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", error, StringComparison.Ordinal);
        Assert.False(Directory.Exists(Path.Combine(_root, $"simulated-{mode}-4")));
    }

    [Theory]
    [InlineData("--decision-interval-ms", "0", "--decision-interval-ms must be a number of milliseconds above 0")]
    [InlineData("--decision-interval-ms", "-5", "--decision-interval-ms must be a number of milliseconds above 0")]
    [InlineData("--availability", "history", "history")]
    public async Task Bad_what_if_switches_are_one_line_errors(string option, string value, string expected)
    {
        WriteSyntheticTraces(cores: 8);
        var (exitCode, _, error) = await CliRunner.RunAsync(
            "simulate", "--trace-dir", Traces, "--programs", "quicksort", "--cores", "8", "--out", _root, option, value);
        Assert.Equal(1, exitCode);
        Assert.Contains(expected, error, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task What_if_switches_reach_the_simulation_and_its_label()
    {
        WriteSyntheticTraces(cores: 8);
        var (exitCode, _, error) = await CliRunner.RunAsync(
            "simulate", "--trace-dir", Traces, "--programs", "quicksort", "--cores", "8", "--duration", "0.5", "--schemes", "dynamic,task-availability",
            "--decision-interval-ms", "10", "--availability", "smoothed", "--name", "whatif", "--out", _root);
        Assert.True(exitCode == 0, error);
        string label = File.ReadAllText(Path.Combine(_root, "whatif", "simulation.md"));
        Assert.Contains("| rebalance interval | 10 ms |", label, StringComparison.Ordinal);
        Assert.Contains("| task-availability's availability signal | Smoothed |", label, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Missing_folder_missing_trace_and_corrupt_trace_are_one_line_errors_with_exit_code_2()
    {
        var (exitCode, _, error) = await CliRunner.RunAsync("simulate", "--trace-dir", Path.Combine(_root, "nowhere"), "--programs", "quicksort", "--cores", "4");
        Assert.Equal(2, exitCode); // the environment, as documented
        Assert.Contains("does not exist", error, StringComparison.Ordinal);
        Assert.Single(error.Trim().Split('\n'));

        WriteSyntheticTraces(cores: 4);
        (exitCode, _, error) = await CliRunner.RunAsync("simulate", "--trace-dir", Traces, "--programs", "mergesort", "--cores", "4");
        Assert.Equal(2, exitCode);
        Assert.Contains("No trace of 'mergesort'", error, StringComparison.Ordinal);

        string path = Path.Combine(Traces, "quicksort-w1-g4.dctree");
        byte[] bytes = File.ReadAllBytes(path);
        File.WriteAllBytes(path, bytes[..(bytes.Length / 2)]);
        (exitCode, _, error) = await CliRunner.RunAsync("simulate", "--trace-dir", Traces, "--programs", "quicksort", "--cores", "4");
        Assert.Equal(2, exitCode);
        Assert.Contains("quicksort-w1-g4.dctree", error, StringComparison.Ordinal);
        Assert.Contains("trace --programs quicksort", error, StringComparison.Ordinal);
        Assert.Single(error.Trim().Split('\n'));
    }

    [Fact]
    public async Task A_trace_dir_that_is_a_file_is_named_as_a_file_with_exit_code_2()
    {
        Directory.CreateDirectory(_root);
        string file = Path.Combine(_root, "not-a-folder.txt");
        File.WriteAllText(file, "x");
        var (exitCode, output, error) = await CliRunner.RunAsync("simulate", "--trace-dir", file, "--programs", "quicksort", "--cores", "4");
        Assert.Equal(2, exitCode);
        Assert.Equal(string.Empty, output);
        Assert.Matches(@"^error: [^\n]*is a file, not a folder[^\n]*\r?\n$", error);
        Assert.DoesNotContain("does not exist", error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(new byte[] { 1, 2, 3, 4, 5, 6, 7, 8 })]
    [InlineData(new byte[] { (byte)'D', (byte)'C', (byte)'T', (byte)'T', 3, 0, 255, 255, 255, 255, 255, 255, 255, 127, 1, 2, 3 })]
    [InlineData(new byte[0])]
    public async Task A_corrupt_trace_is_one_line_naming_the_file_with_exit_code_2(byte[] content)
    {
        Directory.CreateDirectory(Traces);
        File.WriteAllBytes(Path.Combine(Traces, "quicksort-w1-g4.dctree"), content);
        var (exitCode, output, error) = await CliRunner.RunAsync("simulate", "--trace-dir", Traces, "--programs", "quicksort", "--cores", "4");
        Assert.Equal(2, exitCode);
        Assert.Equal(string.Empty, output);
        Assert.Matches(@"^error: [^\n]*quicksort-w1-g4\.dctree[^\n]*\r?\n$", error);
    }

    [Fact]
    public async Task Bad_options_fail_before_anything_runs()
    {
        var (exitCode, _, error) = await CliRunner.RunAsync("simulate", "--schemes", "round-robin");
        Assert.Equal(1, exitCode); // bad input
        Assert.Contains("Unknown scheme 'round-robin'", error, StringComparison.Ordinal);
        (exitCode, _, error) = await CliRunner.RunAsync("simulate", "--inflation", "lots", "--trace-dir", _root);
        Assert.Equal(1, exitCode); // bad input
        Assert.Contains("--inflation must be 'alpha' or 'alpha,knee'", error, StringComparison.Ordinal);
        (exitCode, var output, _) = await CliRunner.RunAsync("simulate", "--help");
        Assert.Equal(0, exitCode);
        Assert.Contains("--trace-dir", output, StringComparison.Ordinal);
    }

    /// <summary>
    /// A machine of one package with two dies of two single-core modules, each die supplying 1 GB/s, and quicksort's
    /// tasks demanding 1 GB/s each: two busy cores on one die ask twice what it supplies.
    /// </summary>
    private string WriteTwoDieMachine()
    {
        string path = Path.Combine(_root, "two-die.json");
        File.WriteAllText(path, """
            {
              "name": "two-die", "summary": "test machine",
              "topology": {
                "packages": { "value": 1, "source": "test" }, "diesPerPackage": { "value": 2, "source": "test" },
                "modulesPerDie": { "value": 2, "source": "test" }, "coresPerModule": { "value": 1, "source": "test" }
              },
              "memory": { "dieBandwidthGBps": { "value": 1, "source": "test" }, "packageBandwidthGBps": { "value": 0, "source": "test" } },
              "oversubscription": {
                "contextSwitchNs": { "value": 5000, "source": "test" }, "cacheRefillNs": { "value": 0, "source": "test" },
                "preemptionPenalty": { "value": 0, "source": "test" }, "handoverRefillNs": { "value": 0, "source": "test" }
              },
              "modules": { "fpuStretch": { "value": 0, "source": "test" }, "sharedStretch": { "value": 0, "source": "test" } },
              "programs": { "quicksort": { "bandwidthGBps": { "value": 1, "source": "test" } } }
            }
            """);
        return path;
    }

    private void WriteSyntheticTraces(int cores)
    {
        Directory.CreateDirectory(Traces);
        // A wide program and a narrow, sequential-heavy one, recorded "on one worker" with granularity for `cores`.
        TaskTreeFile.Write(Path.Combine(Traces, $"quicksort-w1-g{cores}.dctree"),
            TaskTree.FromShape(branching: 2, depth: 4, execute: 2_000_000, split: 300_000, merge: 100_000));
        TaskTreeFile.Write(Path.Combine(Traces, $"strassen-w1-g{cores}.dctree"),
            TaskTree.FromShape(branching: 7, depth: 1, execute: 5_000_000, split: 1_000_000, merge: 1_000_000));
    }
}
