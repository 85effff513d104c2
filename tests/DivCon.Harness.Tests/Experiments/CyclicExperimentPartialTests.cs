using DivCon.Harness.Experiments;
using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using DivCon.Harness.Tests.Support;
using DivCon.Harness.Workload;

namespace DivCon.Harness.Tests.Experiments;

/// <summary>A cyclic experiment that fails part-way has already written what it finished.</summary>
public sealed class CyclicExperimentPartialTests : IDisposable
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), "divcon-partial-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    [Fact]
    public async Task The_isolated_timings_and_the_finished_schemes_are_on_disk_when_a_later_scheme_fails()
    {
        var clock = new ManualTimeProvider();
        var isolated = new FakeScheme("isolated", clock, new Dictionary<string, double> { ["A"] = 1 });
        var shared = new FakeScheme("shared", clock, new Dictionary<string, double> { ["A"] = 2 });
        ResultsFolder folder = ResultsFolder.Create(_root, "w", Samples.Stamp);
        var experiment = new CyclicExperiment(new CyclicExperimentOptions { Workload = "w", TimeLimit = TimeSpan.FromSeconds(10), SingleProgramRuns = 2, WarmupRuns = 0 });

        Task<CyclicExperimentResult> running = experiment.RunAsync(isolated, [shared, new FailingScheme()], new ExperimentContext(folder, NullProgressSink.Instance, clock));
        clock.AdvanceTo(TimeSpan.FromHours(1));
        await Assert.ThrowsAsync<IOException>(() => running.WaitAsync(TestTimeouts.Wait));

        List<List<string>> single = CsvParser.Parse(await File.ReadAllTextAsync(folder.PathOf("isolated.csv")));
        Assert.Equal(1 + 2, single.Count);
        List<List<string>> runs = CsvParser.Parse(await File.ReadAllTextAsync(folder.PathOf("runs.csv")));
        Assert.True(runs.Count > 1);
        Assert.All(runs.Skip(1), r => Assert.Equal("shared", r[0]));
        Assert.False(File.Exists(folder.PathOf("summary.json"))); // no summary of a run that did not finish
    }

    private sealed class FailingScheme : IWorkloadScheme
    {
        public string Name => "failing";

        public ValueTask<IWorkloadSession> OpenAsync(CancellationToken cancellationToken) => throw new IOException("the scheme could not start");
    }
}
