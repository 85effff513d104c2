using System.Text.Json;
using System.Xml.Linq;
using DivCon.Harness.Experiments;
using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using DivCon.Harness.Terminal;
using DivCon.Harness.Tests.Support;
using Spectre.Console;

namespace DivCon.Harness.Tests.Experiments;

public sealed class CyclicExperimentTests : IDisposable
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), "divcon-experiment-tests-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    [Fact]
    public async Task Runs_every_scheme_computes_metrics_and_writes_every_file()
    {
        var clock = new ManualTimeProvider();
        var isolated = new FakeScheme("isolated", clock, new Dictionary<string, double> { ["A"] = 1, ["B"] = 2 });
        var shared = new FakeScheme("shared", clock, new Dictionary<string, double> { ["A"] = 2, ["B"] = 3 });
        var partitioned = new FakeScheme("static partition", clock, new Dictionary<string, double> { ["A"] = 1.5, ["B"] = 4 }, allocation: [3, 1]);
        ResultsFolder folder = ResultsFolder.Create(_root, "cyclic-test", Samples.Stamp);
        var output = new StringWriter();
        IAnsiConsole console = AnsiConsole.Create(new AnsiConsoleSettings
        {
            Ansi = AnsiSupport.No, ColorSystem = ColorSystemSupport.NoColors, Interactive = InteractionSupport.No, Out = new AnsiConsoleOutput(output),
        });
        var experiment = new CyclicExperiment(new CyclicExperimentOptions
        {
            Workload = "2-program",
            TimeLimit = TimeSpan.FromSeconds(12),
            SingleProgramRuns = 3,
            WarmupRuns = 1,
            Cores = 4,
            SpeedupTables =
            [
                new SpeedupTable("A", new Dictionary<int, double> { [1] = 1, [2] = 2, [3] = 3, [4] = 4 }),
                new SpeedupTable("B", new Dictionary<int, double> { [1] = 1, [2] = 1.2, [3] = 1.3, [4] = 1.4 }),
            ],
        });

        Task<CyclicExperimentResult> running = experiment.RunAsync(isolated, [shared, partitioned],
            new ExperimentContext(folder, NullProgressSink.Instance, clock));
        clock.AdvanceTo(TimeSpan.FromHours(1));
        CyclicExperimentResult result = await running.WaitAsync(TestTimeouts.Wait);
        // The terminal renders what the experiment measured (the CLI does the same after the run).
        SummaryTable.Render(console, result.Metrics);
        RoundsTable.Render(console, result);

        // Every session was closed again.
        Assert.Equal((1, 1), (isolated.Opened, isolated.Disposed));
        Assert.Equal((1, 1), (shared.Opened, shared.Disposed));
        Assert.Equal((1, 1), (partitioned.Opened, partitioned.Disposed));
        // Metrics: shared A 2/1, B 3/2; static A 1.5/1, B 4/2.
        Assert.Equal([3, 3], result.Isolated.Select(t => t.Seconds.Count));
        Assert.Equal(2.0, result.Metrics[0].Metrics.Programs[0].NormalizedTurnaroundTime, 9);
        Assert.Equal(1.5, result.Metrics[0].Metrics.Programs[1].NormalizedTurnaroundTime, 9);
        Assert.Equal(1.75, result.Metrics[0].Metrics.Antt, 9);
        Assert.Equal(1.5, result.Metrics[1].Metrics.Programs[0].NormalizedTurnaroundTime, 9);
        Assert.Equal(2.0, result.Metrics[1].Metrics.Mntt, 9);
        Assert.NotNull(result.Oracle);
        Assert.Equal([3, 1], result.Oracle!.Shares.Select(s => s.Cores));
        Assert.Single(result.Allocations);

        // Files.
        string[] expected = ["stamp.json", "runs.csv", "isolated.csv", "rounds.csv", "blocks.csv", "summary.json", "summary.md", "ntt.svg", "np.svg", "antt.svg", "stp.svg", "mntt.svg", "allocation-static-partition.svg", "move-latency.csv", "moves.csv", "move-latency.svg"];
        Assert.Equal(expected.Order(StringComparer.Ordinal), Directory.GetFiles(folder.Path).Select(Path.GetFileName).Order(StringComparer.Ordinal));
        List<List<string>> runs = CsvParser.Parse(await File.ReadAllTextAsync(Path.Combine(folder.Path, "runs.csv")));
        Assert.Equal(1 + result.Tests.Sum(t => t.Result.Runs.Count), runs.Count);
        List<List<string>> single = CsvParser.Parse(await File.ReadAllTextAsync(Path.Combine(folder.Path, "isolated.csv")));
        Assert.Equal(1 + 6, single.Count);
        using JsonDocument summary = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(folder.Path, "summary.json")));
        Assert.Equal(2, summary.RootElement.GetProperty("data").GetProperty("schemes").GetArrayLength());
        Assert.Equal("abc1234", summary.RootElement.GetProperty("stamp").GetProperty("gitCommit").GetString());
        XDocument ntt = XDocument.Load(Path.Combine(folder.Path, "ntt.svg"));
        string[] nttTexts = ntt.Descendants().Where(e => e.Name.LocalName == "text").Select(e => e.Value).ToArray();
        Assert.All(["A", "B", "shared", "static partition"], t => Assert.Contains(t, nttTexts)); // programs x schemes
        Assert.Contains("## System metrics", await File.ReadAllTextAsync(Path.Combine(folder.Path, "summary.md")), StringComparison.Ordinal);
        // Move latency: one row per scheme with an allocation trace (the fake records no moves).
        List<List<string>> moves = CsvParser.Parse(await File.ReadAllTextAsync(Path.Combine(folder.Path, "move-latency.csv")));
        Assert.Equal(["scheme", "moves", "arrived", "p50_ms", "p95_ms", "p99_ms", "max_ms"], moves[0]);
        Assert.Equal(["static partition", "0", "0", "", "", "", ""], moves[1]);
        Assert.Equal(2, moves.Count);
        Assert.Contains("## Move latency", await File.ReadAllTextAsync(Path.Combine(folder.Path, "summary.md")), StringComparison.Ordinal);
        XDocument latency = XDocument.Load(Path.Combine(folder.Path, "move-latency.svg"));
        string[] latencyTexts = latency.Descendants().Where(e => e.Name.LocalName == "text").Select(e => e.Value).ToArray();
        Assert.All(["static partition", "p50", "p95", "p99", "max", "Latency (ms)"], t => Assert.Contains(t, latencyTexts));
        Assert.Contains("abc1234", latency.Root!.Elements().Single(e => e.Name.LocalName == "desc").Value, StringComparison.Ordinal); // stamped
        // Console summary.
        Assert.Contains("System metrics", output.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_scheme_with_different_programs_is_rejected()
    {
        var clock = new ManualTimeProvider();
        var isolated = new FakeScheme("isolated", clock, new Dictionary<string, double> { ["A"] = 1 });
        var other = new FakeScheme("other", clock, new Dictionary<string, double> { ["Z"] = 1 });
        ResultsFolder folder = ResultsFolder.Create(_root, "bad", Samples.Stamp);
        var experiment = new CyclicExperiment(new CyclicExperimentOptions { Workload = "w", TimeLimit = TimeSpan.FromSeconds(5), WarmupRuns = 0 });

        Task<CyclicExperimentResult> running = experiment.RunAsync(isolated, [other], new ExperimentContext(folder, NullProgressSink.Instance, clock));
        clock.AdvanceTo(TimeSpan.FromHours(1));
        var ex = await Assert.ThrowsAsync<ArgumentException>(() => running.WaitAsync(TestTimeouts.Wait));
        Assert.Contains("Scheme 'other' runs [Z]", ex.Message, StringComparison.Ordinal);
        Assert.Equal(1, other.Disposed);
    }

    [Fact]
    public async Task Bad_arguments_are_rejected()
    {
        Assert.Throws<ArgumentException>(() => new CyclicExperiment(new CyclicExperimentOptions { Workload = "w", TimeLimit = TimeSpan.Zero }));
        Assert.Throws<ArgumentException>(() => new CyclicExperiment(new CyclicExperimentOptions { Workload = " ", TimeLimit = TimeSpan.FromSeconds(1) }));
        var clock = new ManualTimeProvider();
        var scheme = new FakeScheme("s", clock, new Dictionary<string, double> { ["A"] = 1 });
        var experiment = new CyclicExperiment(new CyclicExperimentOptions { Workload = "w", TimeLimit = TimeSpan.FromSeconds(1) });
        var context = new ExperimentContext(ResultsFolder.Create(_root, "x", Samples.Stamp), NullProgressSink.Instance, clock);
        await Assert.ThrowsAsync<ArgumentException>(() => experiment.RunAsync(scheme, [], context));
        await Assert.ThrowsAsync<ArgumentException>(() => experiment.RunAsync(scheme, [scheme, scheme], context));
    }

    [Theory]
    [InlineData("Static Partition", "static-partition")]
    [InlineData("  a//b  ", "a-b")]
    [InlineData("***", "unnamed")]
    public void File_name_slugs(string text, string expected) => Assert.Equal(expected, FileNames.Slug(text));
}
