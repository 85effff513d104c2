using DivCon.Harness.Experiments;
using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using DivCon.Harness.Tests.Support;

namespace DivCon.Harness.Tests.Experiments;

/// <summary>A scheme under which a program finishes no run in time loses its metrics, not the whole experiment.</summary>
public sealed class CyclicExperimentIncompleteTests : IDisposable
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), "divcon-incomplete-tests-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    [Fact]
    public async Task A_starved_program_drops_only_its_schemes_metrics()
    {
        var clock = new ManualTimeProvider();
        var isolated = new FakeScheme("isolated", clock, new Dictionary<string, double> { ["A"] = 1, ["B"] = 1 });
        var fine = new FakeScheme("shared", clock, new Dictionary<string, double> { ["A"] = 2, ["B"] = 2 });
        var starving = new FakeScheme("static", clock, new Dictionary<string, double> { ["A"] = 1, ["B"] = 50 });
        var experiment = new CyclicExperiment(new CyclicExperimentOptions { Workload = "w", TimeLimit = TimeSpan.FromSeconds(10), SingleProgramRuns = 2, WarmupRuns = 0, Cores = 2 });
        ResultsFolder folder = ResultsFolder.Create(_root, "w", Samples.Stamp);

        Task<CyclicExperimentResult> running = experiment.RunAsync(isolated, [fine, starving], new ExperimentContext(folder, NullProgressSink.Instance, clock));
        clock.AdvanceTo(TimeSpan.FromHours(1));
        CyclicExperimentResult result = await running.WaitAsync(TestTimeouts.Wait);

        Assert.Equal(["shared"], result.Metrics.Select(m => m.Scheme));
        IncompleteScheme incomplete = Assert.Single(result.Incomplete);
        Assert.Equal("static", incomplete.Scheme);
        Assert.Equal(["B"], incomplete.ProgramsWithoutRuns);
        Assert.Equal(2, result.Tests.Count); // the starved scheme's runs are still reported
        Assert.Contains("incomplete", await File.ReadAllTextAsync(Path.Combine(folder.Path, "summary.json")), StringComparison.Ordinal);
    }

    [Fact]
    public async Task No_scheme_with_metrics_is_an_error_naming_the_starved_programs()
    {
        var clock = new ManualTimeProvider();
        var isolated = new FakeScheme("isolated", clock, new Dictionary<string, double> { ["A"] = 1 });
        var starving = new FakeScheme("static", clock, new Dictionary<string, double> { ["A"] = 50 });
        var experiment = new CyclicExperiment(new CyclicExperimentOptions { Workload = "w", TimeLimit = TimeSpan.FromSeconds(10), SingleProgramRuns = 1, WarmupRuns = 0 });
        ResultsFolder folder = ResultsFolder.Create(_root, "w", Samples.Stamp);

        Task<CyclicExperimentResult> running = experiment.RunAsync(isolated, [starving], new ExperimentContext(folder, NullProgressSink.Instance, clock));
        clock.AdvanceTo(TimeSpan.FromHours(1));
        var e = await Assert.ThrowsAsync<InvalidOperationException>(() => running.WaitAsync(TestTimeouts.Wait));
        Assert.Contains("'static', A finished no run", e.Message, StringComparison.Ordinal);
    }
}
