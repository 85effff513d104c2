using System.Globalization;
using System.Text.Json;
using System.Xml.Linq;
using DivCon.Harness.Experiments;
using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
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
        new(ResultsFolder.Create(_root, name, Samples.Stamp), NullProgressSink.Instance, clock);

    /// <summary>
    /// The points of the first series of a line chart as OxyPlot draws it: the series is named once (its legend
    /// entry) and its line is the longest polyline stroked in the first palette colour (the legend's sample line and
    /// error bars, in the same colour, have two points each).
    /// </summary>
    private static int FirstSeriesPoints(string svgPath, string series)
    {
        XDocument svg = XDocument.Load(svgPath);
        XNamespace ns = svg.Root!.Name.Namespace;
        Assert.Equal(1, svg.Descendants(ns + "text").Count(t => t.Value == series));
        int[] lines = svg.Descendants(ns + "polyline")
            .Where(l => ((string?)l.Attribute("style") ?? "").Contains("stroke:rgb(0,114,178)", StringComparison.Ordinal))
            .Select(l => l.Attribute("points")!.Value.Split(' ', StringSplitOptions.RemoveEmptyEntries).Length)
            .ToArray();
        Assert.NotEmpty(lines);
        return lines.Max();
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
        Assert.Equal(2, FirstSeriesPoints(context.Output.PathOf("time-vs-granularity.svg"), "qs")); // the chart plots both points
        var line = Assert.Single(SweepCharts.TimeVsGranularity(result).ToPlotModel().Series.OfType<OxyPlot.Series.LineSeries>());
        Assert.Equal("qs", line.Title);
        Assert.Equal([0.5, 1], line.Points.Select(p => p.X));
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
        (SweepResult result, IReadOnlyList<SpeedupTable> tables) = await running.WaitAsync(TestTimeouts.Wait);

        Assert.Equal(2.0, tables.Single().SpeedupAt(2), 12);
        Assert.Equal(2.5, tables.Single().SpeedupAt(4), 12);
        Assert.Equal(3, FirstSeriesPoints(context.Output.PathOf("speedup-vs-cores.svg"), "qs")); // one point per core count
        OxyPlot.Series.LineSeries[] lines = SweepCharts.SpeedupVsCores(result, new Dictionary<string, double> { ["qs"] = 10 })
            .ToPlotModel().Series.OfType<OxyPlot.Series.LineSeries>().ToArray();
        Assert.Equal(["qs", "ideal (linear)"], lines.Select(l => l.Title));
        Assert.Equal([1.25, 2, 2.5], lines[0].Points.Select(p => p.Y));
        using JsonDocument json = JsonDocument.Parse(await File.ReadAllTextAsync(context.Output.PathOf("speedup-tables.json")));
        Assert.Equal(1.25, json.RootElement.GetProperty("data")[0].GetProperty("speedups").GetProperty("1").GetDouble(), 12);
        Assert.Equal(2.5, SpeedupTableFile.Parse(await File.ReadAllTextAsync(context.Output.PathOf("speedup-tables.json")))[0].SpeedupAt(4), 12);
        await Assert.ThrowsAsync<ArgumentException>(() =>
            new ScalabilityExperiment(new SweepRunner()).RunAsync([Case(clock, "qs", 1.5, 1)], new Dictionary<string, double> { ["qs"] = 1 }, context));
    }

    [Fact]
    public async Task Phases_experiment_averages_over_runs_models_each_worker_count_and_writes_files()
    {
        var clock = new ManualTimeProvider();
        ExperimentContext context = Context("phases", clock);
        var experiment = new PhasesExperiment(runs: 2, workerCounts: [2, 1]);
        long Ms(double ms) => (long)(ms * System.Diagnostics.Stopwatch.Frequency / 1000);
        var cases = new PhaseCase[]
        {
            // A two-leaf tree. One worker: 60 ms of wall time for 20 ms split/merge + 40 ms of leaves. Two workers:
            // 40 ms of wall time, leaves inflated to 25 ms each.
            // Reported node by node, as the engines report to a recorder: root 0, leaves 1 and 2.
            new("merge sort", (workers, observer, _) =>
            {
                long t = System.Diagnostics.Stopwatch.GetTimestamp();
                void Phase(int node, int depth, Skeletons.DivideAndConquerPhase phase, long ticks, long start) =>
                    observer.OnNodePhase(new Skeletons.NodePhaseEvent(node, node == 0 ? -1 : 0, node == 0 ? 0 : node - 1, depth, phase, t + start, ticks, 1, -1));
                long leaf = Ms(workers == 1 ? 20 : 25);
                Phase(0, 0, Skeletons.DivideAndConquerPhase.Split, Ms(8), 0);
                Phase(1, 1, Skeletons.DivideAndConquerPhase.Execute, leaf, Ms(8));
                Phase(2, 1, Skeletons.DivideAndConquerPhase.Execute, leaf, Ms(8) + leaf);
                Phase(0, 0, Skeletons.DivideAndConquerPhase.Merge, Ms(12), Ms(8) + (2 * leaf));
                clock.Advance(TimeSpan.FromMilliseconds(workers == 1 ? 60 : 40));
                return Task.CompletedTask;
            }),
        };

        IReadOnlyList<PhasesResult> results = await experiment.RunAsync(cases, context).WaitAsync(TestTimeouts.Wait);

        PhasesResult result = Assert.Single(results);
        Assert.Equal([1, 2], experiment.WorkerCounts);
        Assert.Equal([1, 2], result.Observations.Select(o => o.Workers));
        PhaseLevelTimes[] levels = result.Levels.ToArray(); // on the largest count, averaged over the two runs
        Assert.Equal(8, levels[0].Split.TotalMilliseconds, 2);
        Assert.Equal(50, levels[1].Execute.TotalMilliseconds, 2);
        Assert.Equal(2, levels[1].ExecuteCount);
        Assert.Equal(2, levels[0].Count);

        PerformanceBreakdown two = result.Performance.Single(b => b.Workers == 2);
        Assert.Equal(TimeSpan.FromMilliseconds(40), two.Elapsed);
        Assert.Equal(TimeSpan.FromMilliseconds(60), two.OneWorkerElapsed);
        Assert.Equal(70.0 / 60.0, two.InflationRatio, 3);                                   // 70 ms of work against 60 ms
        Assert.Equal(40, two.Span.TotalMilliseconds, 2);     // 8 + 20 + 12
        Assert.Equal(40, two.LowerBound.TotalMilliseconds, 2); // max(60/2, 40)

        foreach (string file in new[] { "phases-merge-sort.svg", "phases.csv", "performance.csv", "performance.svg", "time-vs-bound.svg" })
        {
            Assert.True(File.Exists(context.Output.PathOf(file)), file);
        }

        string summary = await File.ReadAllTextAsync(context.Output.PathOf("summary.md"));
        Assert.Contains("## Performance model", summary, StringComparison.Ordinal);
        Assert.True(summary.IndexOf("## Performance model", StringComparison.Ordinal) < summary.IndexOf("Commit", StringComparison.Ordinal));
        await Assert.ThrowsAsync<ArgumentException>(() => experiment.RunAsync([], context));
        Assert.Throws<ArgumentOutOfRangeException>(() => new PhasesExperiment(0));
        Assert.Throws<ArgumentException>(() => new PhasesExperiment(1, [0, 2]));
    }

    [Fact]
    public async Task Phases_without_a_one_worker_count_report_no_model()
    {
        ExperimentContext context = Context("phases-no-model", TimeProvider.System);
        var cases = new PhaseCase[] { new("p", (_, observer, _) => { observer.OnPhase(Skeletons.DivideAndConquerPhase.Execute, 0, 1000); return Task.CompletedTask; }) };

        PhasesResult result = Assert.Single(await new PhasesExperiment(1, [2]).RunAsync(cases, context).WaitAsync(TestTimeouts.Wait));

        Assert.Empty(result.Performance);
        Assert.False(File.Exists(context.Output.PathOf("performance.csv")));
    }
}
