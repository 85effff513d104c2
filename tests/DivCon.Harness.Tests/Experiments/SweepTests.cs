using System.Text.Json;
using System.Xml.Linq;
using DivCon.Harness.Experiments;
using DivCon.Harness.Reports;
using DivCon.Harness.Tests.Support;

namespace DivCon.Harness.Tests.Experiments;

public sealed class SweepTests : IDisposable
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), "divcon-sweep-tests-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    private static SweepCase Case(ManualTimeProvider clock, string series, double x, params double[] seconds)
    {
        int run = 0;
        return new SweepCase(series, x, _ => clock.WaitAsync(TimeSpan.FromSeconds(seconds[Math.Min(run++, seconds.Length - 1)])));
    }

    private static async Task<SweepResult> RunAsync(ManualTimeProvider clock, SweepRunner runner, string name, params SweepCase[] cases)
    {
        Task<SweepResult> running = runner.RunAsync(name, cases);
        clock.AdvanceTo(clock.Now + TimeSpan.FromHours(1));
        return await running.WaitAsync(TestTimeouts.Wait);
    }

    [Fact]
    public async Task Each_case_is_timed_after_its_warmup()
    {
        var clock = new ManualTimeProvider();
        var runner = new SweepRunner(repetitions: 3, warmupRuns: 1, timeProvider: clock);
        SweepResult result = await RunAsync(clock, runner, "scalability",
            Case(clock, "qs", 1, 100, 8, 8, 8),
            Case(clock, "qs", 2, 100, 4, 5, 6),
            Case(clock, "qs", 4, 2));

        Assert.Equal([8.0, 8, 8], result.Points[0].Seconds);
        Assert.Equal([4.0, 5, 6], result.Points[1].Seconds);
        Assert.Equal(5.0, result.Points[1].Time.Mean, 12);
        Assert.Equal(1.0, result.Points[1].Time.StandardDeviation, 12);

        IReadOnlyList<LineSeries> speedup = result.SpeedupSeries(new Dictionary<string, double> { ["qs"] = 8 });
        Assert.Equal([1.0, 1.6, 4.0], speedup[0].Points.Select(p => Math.Round(p.Y, 12)));
        // Delta method: S * h / T = 1.6 * h / 5.
        Assert.Equal(1.6 * result.Points[1].Time.ConfidenceHalfWidth / 5, speedup[0].Points[1].ErrorHalfWidth, 12);
        Assert.Equal(0, speedup[0].Points[0].ErrorHalfWidth);
        Assert.Throws<ArgumentException>(() => result.SpeedupSeries(new Dictionary<string, double>()));
    }

    [Fact]
    public async Task Granularity_sweep_writes_csv_json_markdown_and_a_chart()
    {
        var clock = new ManualTimeProvider();
        var runner = new SweepRunner(repetitions: 2, warmupRuns: 0, timeProvider: clock);
        SweepResult result = await RunAsync(clock, runner, "granularity",
            Case(clock, "quicksort", 1, 8), Case(clock, "quicksort", 0.5, 4), Case(clock, "quicksort", 0.25, 2.5),
            Case(clock, "mergesort", 1, 9), Case(clock, "mergesort", 0.5, 5));
        ResultsFolder folder = ResultsFolder.Create(_root, "granularity", Samples.Stamp);

        IReadOnlyList<string> files = SweepReportWriter.Write(folder, result, "Granularity", [("time.svg", SweepCharts.TimeVsGranularity(result))]);

        Assert.Equal(4, files.Count);
        List<List<string>> rows = CsvParser.Parse(await File.ReadAllTextAsync(folder.PathOf("runs.csv")));
        Assert.Equal(1 + (5 * 2), rows.Count);
        Assert.Equal(["quicksort", "0.25", "1", "2.5"], rows[6]);
        using JsonDocument json = JsonDocument.Parse(await File.ReadAllTextAsync(folder.PathOf("summary.json")));
        Assert.Equal(5, json.RootElement.GetProperty("data").GetProperty("points").GetArrayLength());
        Assert.Contains("| mergesort | 0.5 | 2 | 5.0000 ± 0.0000 |", await File.ReadAllTextAsync(folder.PathOf("summary.md")), StringComparison.Ordinal);
        XDocument svg = XDocument.Load(folder.PathOf("time.svg"));
        string[] texts = svg.Descendants().Where(e => e.Name.LocalName == "text").Select(e => e.Value).ToArray();
        Assert.Equal(1, texts.Count(t => t == "quicksort")); // one legend entry per series
        Assert.Equal(1, texts.Count(t => t == "mergesort"));
        Assert.Contains("Time (s)", texts);
    }

    [Fact]
    public async Task Speedup_chart_adds_the_ideal_line()
    {
        var clock = new ManualTimeProvider();
        SweepResult result = await RunAsync(clock, new SweepRunner(repetitions: 1, warmupRuns: 0, timeProvider: clock), "s",
            Case(clock, "pi", 1, 4), Case(clock, "pi", 2, 2), Case(clock, "pi", 4, 1.1));

        LineChart chart = SweepCharts.SpeedupVsCores(result, new Dictionary<string, double> { ["pi"] = 4 });
        Assert.Equal(["pi", "ideal (linear)"], chart.Series.Select(s => s.Name));
        Assert.Equal([1.0, 2, 4], chart.Series[1].Points.Select(p => p.Y));
    }

    [Fact]
    public async Task Bad_sweeps_are_rejected()
    {
        var clock = new ManualTimeProvider();
        var runner = new SweepRunner(timeProvider: clock);
        await Assert.ThrowsAsync<ArgumentException>(() => runner.RunAsync("s", []));
        await Assert.ThrowsAsync<ArgumentException>(() => runner.RunAsync("s", [Case(clock, "a", 1, 1), Case(clock, "a", 1, 1)]));
        await Assert.ThrowsAsync<ArgumentException>(() => runner.RunAsync("s", [Case(clock, "a", double.NaN, 1)]));
        Assert.Throws<ArgumentOutOfRangeException>(() => new SweepRunner(repetitions: 0));
        Assert.Throws<ArgumentOutOfRangeException>(() => new SweepRunner(confidenceLevel: 1));
    }
}
