using DivCon.Bench.Bots.Kernels;
using DivCon.Schedulers;
using DivCon.Skeletons;

namespace DivCon.Bench.Bots.Tests;

/// <summary>The runner's verification, the statistics, the command line and the results folder.</summary>
public sealed class RunnerTests
{
    [Fact]
    public async Task A_variant_whose_result_differs_from_the_sequential_one_fails_the_run_naming_it()
    {
        using var workStealing = new WorkStealingTaskScheduler(2);
        var runner = new Runner(Options.Parse(["--rounds", "1", "--warmup", "0"]), TextWriter.Null);
        var e = await Assert.ThrowsAsync<InvalidOperationException>(() => runner.MeasureAsync(new WrongTaskRun(), workStealing));
        Assert.Contains("task-run", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_measurement_has_every_round_of_every_variant_and_the_divcon_node_counts()
    {
        using var workStealing = new WorkStealingTaskScheduler(2);
        var runner = new Runner(Options.Parse(["--rounds", "3", "--warmup", "0"]), TextWriter.Null);
        KernelResult result = await runner.MeasureAsync(KernelCatalog.Create("strassen", KernelSize.Small), workStealing);
        foreach (Variant v in VariantNames.All)
        {
            Assert.Equal(3, result.Seconds[v].Count);
            Assert.Equal(3, result.Positions[v].Distinct().Count());   // rotated: a different place every round
        }

        // 256 rows, cutoff 64: 1 + 7 + 49 nodes, every one a task or inline.
        Assert.Equal(57, result.Nodes[Variant.DivCon].TaskNodes + result.Nodes[Variant.DivCon].InlineNodes);
        string markdown = Report.Markdown([result], Options.Parse([]), "cmd");
        Assert.Contains("| strassen |", markdown, StringComparison.Ordinal);
        Assert.Equal(1 + (5 * 3), Report.RunsCsv([result]).Split('\n', StringSplitOptions.RemoveEmptyEntries).Length);
        Assert.Equal(1 + 5, Report.SummaryCsv([result]).Split('\n', StringSplitOptions.RemoveEmptyEntries).Length);
    }

    [Fact]
    public void Ratio_is_of_the_medians_with_the_interval_of_the_per_round_ratios()
    {
        RatioSummary r = RatioSummary.Of([2.0, 4.0, 3.0], [1.0, 2.0, 1.5]);
        Assert.Equal(2.0, r.Ratio, 12);
        Assert.Equal(2.0, r.Lower, 12);   // every round's ratio is 2: no spread
        Assert.Equal(2.0, r.Upper, 12);

        RatioSummary spread = RatioSummary.Of([1.0, 2.0, 1.0, 2.0], [1.0, 1.0, 1.0, 1.0]);
        Assert.True(spread.Lower < 1.5 && spread.Upper > 1.5);
        Assert.False(RatioSummary.Of([1.0], [2.0]).HasInterval);

        // Rounds at one speed: the medians' ratio sits inside the per-round interval.
        Assert.False(RatioSummary.Of([1.0, 1.1, 0.9, 1.0], [2.0, 2.2, 1.8, 2.0]).Drifted);

        // Four rounds fast, three at half speed; every round says about 0.5, but the medians come from different rounds
        // (0.52 / 1.0), outside the per-round interval [0.49, 0.51]: flagged.
        RatioSummary drifted = RatioSummary.Of([0.5, 0.5, 0.5, 0.52, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0]);
        Assert.True(drifted.Drifted, drifted.ToString());
        Assert.EndsWith("*", drifted.ToString(), StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => RatioSummary.Of([1.0, 2.0], [1.0]));
        Assert.Throws<ArgumentException>(() => RatioSummary.Of([0.0], [1.0]));
    }

    [Fact]
    public void A_ratio_to_sequential_below_one_over_the_cpus_is_flagged_with_the_sequential_range()
    {
        // On 2 CPUs a parallel variant at 0.45 of the sequential time did less work or ran on a faster machine (the
        // machine running the test may have any number of CPUs: the result's count decides).
        var result = new KernelResult("k", "a problem") { Processors = 2 };
        double[] sequential = [1.0, 1.2, 1.1];
        foreach (Variant v in VariantNames.All)
        {
            double share = v switch { Variant.Sequential => 1.0, Variant.DivCon => 0.45, _ => 0.55 };
            result.Seconds[v] = [.. sequential.Select(t => t * share)];
            result.CpuSeconds[v] = [.. sequential];
            result.Positions[v] = [0, 1, 2];
        }

        RatioSummary below = result.ToSequential(Variant.DivCon), above = result.ToSequential(Variant.TaskRun);
        Assert.Equal(0.5, below.Floor, 12);
        Assert.True(below.BelowFloor);
        Assert.StartsWith("0.45! [", below.ToString(), StringComparison.Ordinal);
        Assert.False(above.BelowFloor);
        Assert.False(result.ToSequential(Variant.Sequential).BelowFloor);   // the baseline has no floor
        Assert.Equal((1.0, 1.2), result.Range(Variant.Sequential));

        string markdown = Report.Markdown([result], Options.Parse([]), "cmd");
        Assert.Contains("| k | 1.100 | 0.45! [", markdown, StringComparison.Ordinal);
        Assert.Contains("| 1.000 - 1.200 |", markdown, StringComparison.Ordinal);
        Assert.Contains("marked ! is below 1/2,", markdown, StringComparison.Ordinal);
        string[] summary = Report.SummaryCsv([result]).Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.EndsWith(",below_cpu_floor", summary[0], StringComparison.Ordinal);
        Assert.Single(summary, line => line.EndsWith(",true", StringComparison.Ordinal) && line.StartsWith("k,divcon,", StringComparison.Ordinal));
        Assert.Equal(1, summary.Count(line => line.EndsWith(",true", StringComparison.Ordinal)));
    }

    [Theory]
    [InlineData("--size", "huge")]
    [InlineData("--rounds", "0")]
    [InlineData("--kernels", "sort,health")]
    [InlineData("--frobnicate")]
    [InlineData("--rounds")]
    public void Bad_options_are_rejected_with_a_message_naming_them(params string[] args)
    {
        var e = Assert.Throws<ArgumentException>(() => Options.Parse(args));
        Assert.Contains(args.Length > 1 && args[0] == "--kernels" ? "health" : args[0], e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Options_parse_kernels_rounds_size_and_folder()
    {
        Options o = Options.Parse(["--kernels", "fft, sort", "--rounds", "7", "--size", "small", "--out", "x"]);
        Assert.Equal(["fft", "sort"], o.Kernels);
        Assert.Equal(7, o.Rounds);
        Assert.Equal(KernelSize.Small, o.Size);
        Assert.Equal("x", o.OutputDirectory);
        Assert.Equal(KernelCatalog.Names, Options.Parse([]).Kernels);
        Assert.False(o.Isolated);
        Assert.True(Options.Parse(["--isolated"]).Isolated);
    }

    [Fact]
    public async Task Isolated_variants_run_in_processes_of_their_own_through_the_same_rounds_and_node_counts()
    {
        var runner = new Runner(Options.Parse(["--rounds", "2", "--warmup", "0", "--size", "small", "--isolated"]), TextWriter.Null);
        KernelResult result = await runner.MeasureIsolatedAsync("strassen");
        foreach (Variant v in VariantNames.All)
        {
            Assert.Equal(2, result.Seconds[v].Count);
            Assert.Equal(2, result.Positions[v].Distinct().Count());
            Assert.All(result.CpuSeconds[v], cpu => Assert.True(cpu > 0, $"{v}: {cpu}"));
        }

        // The children's observed runs: 1 + 7 + 49 nodes, as in process.
        Assert.Equal(57, result.Nodes[Variant.DivConWorkStealing].TaskNodes + result.Nodes[Variant.DivConWorkStealing].InlineNodes);
    }

    [Fact]
    public void A_child_answers_ready_then_one_line_per_request_and_ends_with_its_input()
    {
        var output = new StringWriter();
        int exit = VariantProcess.ServeChild(["--child", "sparselu", "divcon-ws", "small"], new StringReader("run\nnodes\n"), output);
        string[] lines = output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        Assert.Equal(0, exit);
        Assert.Equal(3, lines.Length);
        Assert.Equal("ready", lines[0]);
        string[] run = lines[1].Split(' ');
        Assert.Equal("ok", run[0]);
        Assert.True(double.Parse(run[1], System.Globalization.CultureInfo.InvariantCulture) > 0, lines[1]);
        string[] nodes = lines[2].Split(' ');
        Assert.Equal("nodes", nodes[0]);
        Assert.Equal(run[3], nodes[3]);   // the same output digest, timed or observed
    }

    [Theory]
    [InlineData("health", "divcon", "small", "run", "health")]
    [InlineData("fft", "divcon-seq", "small", "run", "divcon-seq")]
    [InlineData("sort", "divcon-seqloops", "small", "run", "divcon-seqloops")]   // only the FFT has it
    [InlineData("sort", "divcon", "huge", "run", "huge")]
    [InlineData("sort", "sequential", "small", "frobnicate", "frobnicate")]
    public void A_child_with_a_bad_argument_or_request_answers_an_error_naming_it_and_exits_1(string kernel, string variant, string size, string request, string named)
    {
        var output = new StringWriter();
        int exit = VariantProcess.ServeChild(["--child", kernel, variant, size], new StringReader(request + "\n"), output);
        string last = output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)[^1];
        Assert.Equal(1, exit);
        Assert.StartsWith("error ", last, StringComparison.Ordinal);
        Assert.Contains(named, last, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_child_that_dies_fails_its_next_request_naming_the_kernel_and_the_variant()
    {
        using VariantProcess child = await VariantProcess.StartAsync("nqueens", Variant.DivCon, KernelSize.Small);
        var (seconds, _, _) = await child.RunAsync();
        Assert.True(seconds > 0);
        using (var process = System.Diagnostics.Process.GetProcessById(child.ProcessId))
        {
            process.Kill();
            await process.WaitForExitAsync();
        }

        var e = await Assert.ThrowsAsync<InvalidOperationException>(() => child.RunAsync());
        Assert.Contains("nqueens divcon: the child process ended", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_child_that_cannot_start_fails_the_measurement_naming_the_kernel_and_the_variant_and_its_error()
    {
        var e = await Assert.ThrowsAsync<InvalidOperationException>(() => VariantProcess.StartAsync("health", Variant.TaskRun, KernelSize.Small));
        Assert.Contains("health task-run", e.Message, StringComparison.Ordinal);
        Assert.Contains("Unknown kernel", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_new_results_folder_never_reuses_an_existing_one()
    {
        string parent = Path.Combine(Path.GetTempPath(), "bots-tests-" + Guid.NewGuid().ToString("N"));
        try
        {
            Options o = Options.Parse(["--size", "small"]);
            string first = Report.NewFolder(parent, o), second = Report.NewFolder(parent, o);
            Assert.NotEqual(first, second);
            Assert.True(Directory.Exists(first) && Directory.Exists(second));
        }
        finally
        {
            Directory.Delete(parent, recursive: true);
        }
    }

    // A kernel whose Task.Run variant gets a different result.
    private sealed class WrongTaskRun : KernelCase
    {
        private ulong _digest;

        public override string Name => "wrong";

        public override string Description => "a kernel with a wrong variant";

        public override void Reset() => _digest = 0;

        public override Task RunAsync(Variant variant, DivideAndConquerOptions divCon)
        {
            _digest = variant == Variant.TaskRun ? 2UL : 1UL;
            return Task.CompletedTask;
        }

        public override ulong Checksum() => _digest;
    }
}
