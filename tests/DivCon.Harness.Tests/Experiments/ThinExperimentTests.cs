using System.Globalization;
using System.Text.Json;
using System.Xml.Linq;
using DivCon.Harness.Experiments;
using DivCon.Harness.Oracle;
using DivCon.Harness.Performance;
using DivCon.Harness.Reports;
using DivCon.Harness.Terminal;
using DivCon.Harness.Tests.Support;

namespace DivCon.Harness.Tests.Experiments;

public sealed class ThinExperimentTests : IDisposable
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), "divcon-thin-tests-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    private ExperimentContext Context(string name, TimeProvider clock) =>
        new(ResultsFolder.Create(_root, name, Samples.Stamp), NullProgressSink.Instance, null, clock);

    /// <summary>The points of one series of a line chart (its polyline, as the chart writer draws it).</summary>
    private static int SeriesPoints(string svgPath, string series)
    {
        XDocument svg = XDocument.Load(svgPath);
        XNamespace ns = svg.Root!.Name.Namespace;
        XElement group = Assert.Single(svg.Descendants(ns + "g"), g => (string?)g.Attribute("class") == "series" && (string?)g.Attribute("data-series") == series);
        return group.Element(ns + "polyline")!.Attribute("points")!.Value.Split(' ', StringSplitOptions.RemoveEmptyEntries).Length;
    }

    private static SweepCase Case(ManualTimeProvider clock, string series, double x, double seconds) =>
        new(series, x, _ => clock.WaitAsync(TimeSpan.FromSeconds(seconds)));

    [Fact]
    public async Task Granularity_experiment_writes_its_chart()
    {
        var clock = new ManualTimeProvider();
        ExperimentContext context = Context("granularity", clock);
        Task<SweepResult> running = new GranularityExperiment(new SweepRunner(2, 0, timeProvider: clock))
            .RunAsync([Case(clock, "qs", 1, 4), Case(clock, "qs", 0.5, 2)], context);
        clock.AdvanceTo(TimeSpan.FromHours(1));
        SweepResult result = await running.WaitAsync(TestTimeouts.Wait);

        Assert.Equal(2, result.Points.Count);
        Assert.Equal(2, SeriesPoints(context.Output.PathOf("time-vs-granularity.svg"), "qs")); // the chart plots both points
        await Assert.ThrowsAsync<ArgumentException>(() =>
            new GranularityExperiment(new SweepRunner()).RunAsync([Case(clock, "qs", 2, 1)], context));
    }

    [Fact]
    public async Task Scalability_experiment_produces_speedup_tables()
    {
        var clock = new ManualTimeProvider();
        ExperimentContext context = Context("scalability", clock);
        Task<(SweepResult, IReadOnlyList<SpeedupTable>)> running = new ScalabilityExperiment(new SweepRunner(1, 0, timeProvider: clock))
            .RunAsync([Case(clock, "qs", 1, 8), Case(clock, "qs", 2, 5), Case(clock, "qs", 4, 4)], new Dictionary<string, double> { ["qs"] = 10 }, context);
        clock.AdvanceTo(TimeSpan.FromHours(1));
        (_, IReadOnlyList<SpeedupTable> tables) = await running.WaitAsync(TestTimeouts.Wait);

        Assert.Equal(2.0, tables.Single().SpeedupAt(2), 12);
        Assert.Equal(2.5, tables.Single().SpeedupAt(4), 12);
        Assert.Equal(3, SeriesPoints(context.Output.PathOf("speedup-vs-cores.svg"), "qs")); // one point per core count
        using JsonDocument json = JsonDocument.Parse(await File.ReadAllTextAsync(context.Output.PathOf("speedup-tables.json")));
        Assert.Equal(1.25, json.RootElement.GetProperty("data")[0].GetProperty("speedups").GetProperty("1").GetDouble(), 12);
        Assert.Equal(2.5, SpeedupTableFile.Parse(await File.ReadAllTextAsync(context.Output.PathOf("speedup-tables.json")))[0].SpeedupAt(4), 12);
        await Assert.ThrowsAsync<ArgumentException>(() =>
            new ScalabilityExperiment(new SweepRunner()).RunAsync([Case(clock, "qs", 1.5, 1)], new Dictionary<string, double> { ["qs"] = 1 }, context));
    }

    [Fact]
    public async Task Phases_experiment_averages_over_runs_and_writes_files()
    {
        ExperimentContext context = Context("phases", TimeProvider.System);
        var experiment = new PhasesExperiment(runs: 2);
        var cases = new PhaseCase[]
        {
            new("merge sort", (profile, _) =>
            {
                profile.Add(DcPhase.Split, 0, TimeSpan.FromMilliseconds(2));
                profile.Add(DcPhase.Execute, 1, TimeSpan.FromMilliseconds(10));
                profile.Add(DcPhase.Execute, 1, TimeSpan.FromMilliseconds(10));
                profile.Add(DcPhase.Merge, 0, TimeSpan.FromMilliseconds(6));
                return Task.CompletedTask;
            }),
        };

        var results = await experiment.RunAsync(cases, context).WaitAsync(TestTimeouts.Wait);

        PhaseLevelTimes[] levels = results.Single().Levels.ToArray();
        Assert.Equal(new PhaseLevelTimes(0, TimeSpan.FromMilliseconds(2), TimeSpan.Zero, TimeSpan.FromMilliseconds(6), 2), levels[0]);
        Assert.Equal(new PhaseLevelTimes(1, TimeSpan.Zero, TimeSpan.FromMilliseconds(20), TimeSpan.Zero, 2), levels[1]);
        XDocument chart = XDocument.Load(context.Output.PathOf("phases-merge-sort.svg"));
        Assert.Contains("merge sort", chart.Root!.Element(chart.Root.Name.Namespace + "title")!.Value, StringComparison.Ordinal);
        // The CSV holds the averaged levels: (program, level, split_ms, execute_ms, merge_ms, count).
        List<List<string>> rows = CsvParser.Parse(await File.ReadAllTextAsync(context.Output.PathOf("phases.csv")));
        Assert.Equal(["program", "level", "split_ms", "execute_ms", "merge_ms", "count"], rows[0]);
        double[][] values = [.. rows.Skip(1).Select(r => r.Skip(1).Select(v => double.Parse(v, CultureInfo.InvariantCulture)).ToArray())];
        Assert.Equal([[0, 2, 0, 6, 2], [1, 0, 20, 0, 2]], values);
        Assert.All(rows.Skip(1), r => Assert.Equal("merge sort", r[0]));
        await Assert.ThrowsAsync<ArgumentException>(() => experiment.RunAsync([], context));
        Assert.Throws<ArgumentOutOfRangeException>(() => new PhasesExperiment(0));
    }
}
