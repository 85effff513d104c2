using System.Globalization;
using DivCon.Harness.Experiments;
using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using DivCon.Harness.Tests.Support;
using DivCon.Harness.Workload;

namespace DivCon.Harness.Tests.Experiments;

/// <summary>Interleaved rounds, the warm-up round, and per-round reporting of <see cref="CyclicExperiment"/> (manual clock).</summary>
public sealed class CyclicRoundsTests : IDisposable
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), "divcon-rounds-tests-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    [Fact]
    public async Task Rounds_rotate_the_order_measure_isolated_times_in_every_round_and_rank_only_separated_schemes()
    {
        var clock = new ManualTimeProvider();
        var log = new List<string>();
        var isolated = new LoggingScheme(new FakeScheme("isolated", clock, new Dictionary<string, double> { ["A"] = 1, ["B"] = 2 }), log);
        var fast = new LoggingScheme(new FakeScheme("fast", clock, new Dictionary<string, double> { ["A"] = 1, ["B"] = 2 }), log);
        var slow = new LoggingScheme(new FakeScheme("slow", clock, new Dictionary<string, double> { ["A"] = 2, ["B"] = 4 }, allocation: [1, 1]), log);
        ResultsFolder folder = ResultsFolder.Create(_root, "rounds", Samples.Stamp);
        var experiment = new CyclicExperiment(new CyclicExperimentOptions
        {
            Workload = "2-program",
            TimeLimit = TimeSpan.FromSeconds(36),
            Rounds = 3,
            WarmupTime = TimeSpan.FromSeconds(4),
            SingleProgramRuns = 5,
            WarmupRuns = 1,
            Cores = 2,
        });

        Task<CyclicExperimentResult> running = experiment.RunAsync(isolated, [fast, slow], new ExperimentContext(folder, NullProgressSink.Instance, clock));
        clock.AdvanceTo(TimeSpan.FromHours(1));
        CyclicExperimentResult result = await running.WaitAsync(TestTimeouts.Wait);

        // The warm-up round opens every block once before any measured block, then the rounds rotate.
        Assert.Equal(
            ["isolated", "fast", "slow", /* round 1 */ "isolated", "fast", "slow", /* round 2 */ "fast", "slow", "isolated", /* round 3 */ "slow", "isolated", "fast"],
            log);
        Assert.Equal([["isolated", "fast", "slow"], ["fast", "slow", "isolated"], ["slow", "isolated", "fast"]], result.Rounds.Select(r => r.Order.ToArray()));
        Assert.Equal(12, result.Blocks.Count);
        Assert.Equal([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3], result.Blocks.Select(b => b.Round));

        // Each round gives every scheme a third of the time; C_SP gets ceil(5/3) = 2 runs per program per round.
        Assert.All(result.Rounds.SelectMany(r => r.Tests), t => Assert.Equal(TimeSpan.FromSeconds(12), t.Result.TimeLimit));
        Assert.All(result.Rounds.SelectMany(r => r.Isolated), t => Assert.Equal(2, t.Seconds.Count));
        Assert.Equal([6, 6], result.Isolated.Select(t => t.Seconds.Count));

        // Warm-up runs are not counted: A runs 12 one-second runs per round under "fast", 36 in all.
        CyclicTestResult pooledFast = result.Tests.Single(t => t.Scheme == "fast").Result;
        Assert.Equal(36, pooledFast.CountedSeconds("A").Count);
        Assert.Equal(Enumerable.Range(0, pooledFast.Runs.Count(r => r.Program == "A")), pooledFast.Runs.Where(r => r.Program == "A").Select(r => r.RunIndex).Order());

        // Pooled and per-round metrics: fast has NTT 1, slow NTT 2, in every round.
        Assert.Equal(2.0, result.Metrics.Single(m => m.Scheme == "fast").Metrics.Stp, 9);
        Assert.Equal(1.0, result.Metrics.Single(m => m.Scheme == "slow").Metrics.Stp, 9);
        Assert.All(result.AcrossRounds, s => Assert.Equal(3, s.Rounds));
        Assert.Equal(2.0, result.AcrossRounds.Single(s => s.Scheme == "slow").Summary.Antt.Mean, 9);
        Assert.Equal([2.0, 2.0], result.AcrossRounds.Single(s => s.Scheme == "slow").Programs.Select(p => p.Ntt.Mean));
        Assert.All(result.AcrossRounds.SelectMany(s => s.Programs), p => Assert.Equal(3, p.Ntt.Count));
        Assert.Contains(result.Ranking, s => s.Metric == "STP" && s.Better == "fast" && s.Worse == "slow");
        Assert.Contains(result.Ranking, s => s.Metric == "ANTT" && s.Better == "fast" && s.Worse == "slow");
        Assert.DoesNotContain(result.Ranking, s => s.Better == "slow");

        // Files: the per-round CSVs, the round column, and the across-round section.
        List<List<string>> runs = CsvParser.Parse(await File.ReadAllTextAsync(Path.Combine(folder.Path, "runs.csv")));
        Assert.Equal("round", runs[0][^1]);
        Assert.Equal(["1", "2", "3"], runs.Skip(1).Select(r => r[^1]).Distinct().Order());
        List<List<string>> rounds = CsvParser.Parse(await File.ReadAllTextAsync(Path.Combine(folder.Path, "rounds.csv")));
        Assert.Equal(RoundsReport.RoundsHeader, rounds[0]);
        Assert.Equal(1 + (3 * 3 * 2), rounds.Count); // 3 rounds x 3 blocks x 2 programs
        List<List<string>> blocks = CsvParser.Parse(await File.ReadAllTextAsync(Path.Combine(folder.Path, "blocks.csv")));
        Assert.Equal(1 + 12, blocks.Count);
        string summary = await File.ReadAllTextAsync(Path.Combine(folder.Path, "summary.md"));
        Assert.Contains("## Across rounds", summary, StringComparison.Ordinal);
        Assert.Contains("fast beats slow on STP", summary, StringComparison.Ordinal);
        Assert.Contains("NTT per program, one value per round", summary, StringComparison.Ordinal);
        Assert.Single(result.Allocations);
    }

    [Fact]
    public async Task Identical_schemes_get_identical_metrics_in_either_order_when_the_first_multiprogram_block_is_cold()
    {
        // Cold multiprogram paths: the first scheme session of the process runs every program at half speed. Run
        // one block per scheme without warm-up and the scheme that comes first loses; with the warm-up round the
        // cold session is never measured.
        (double First, double Second) legacy = await StpOfTwoIdenticalSchemesAsync(rounds: 1, warmup: TimeSpan.Zero);
        Assert.True(legacy.First < legacy.Second, $"without warm-up the first block is slower: {legacy}");

        (double First, double Second) fixedUp = await StpOfTwoIdenticalSchemesAsync(rounds: 2, warmup: TimeSpan.FromSeconds(3));
        Assert.Equal(fixedUp.First, fixedUp.Second, 9);
    }

    [Fact]
    public async Task Every_isolated_block_warms_up_before_its_recorded_runs()
    {
        // Each session's programs run cold once (8 s), then warm (1 s): as a fresh session's first run pays for its
        // data's first touch. With a warm-up round and 3 rounds, every isolated block opens a new session.
        var clock = new ManualTimeProvider();
        var isolated = new ColdFirstRunScheme("isolated", clock, cold: 8, warm: 1);
        var s = new FakeScheme("s", clock, new Dictionary<string, double> { ["A"] = 2 });
        var experiment = new CyclicExperiment(new CyclicExperimentOptions
        {
            Workload = "w", TimeLimit = TimeSpan.FromSeconds(30), Rounds = 3, WarmupTime = TimeSpan.FromSeconds(2), SingleProgramRuns = 6, WarmupRuns = 1,
        });
        ResultsFolder folder = ResultsFolder.Create(_root, "cold-blocks", Samples.Stamp);
        Task<CyclicExperimentResult> running = experiment.RunAsync(isolated, [s], new ExperimentContext(folder, NullProgressSink.Instance, clock));
        clock.AdvanceTo(TimeSpan.FromHours(1));
        CyclicExperimentResult result = await running.WaitAsync(TestTimeouts.Wait);

        // 4 sessions (the warm-up round's and one per round), every recorded run warm: C_SP is exactly 1 s, NTT 2.
        Assert.Equal(4, isolated.Opened);
        Assert.All(result.Rounds.SelectMany(r => r.Isolated), t => Assert.Equal([1.0, 1.0], t.Seconds));
        Assert.Equal(2, result.Metrics.Single().Metrics.Programs.Single().NormalizedTurnaroundTime, 9);
    }

    [Fact]
    public async Task Bracketing_every_block_cancels_a_machine_that_slows_between_blocks()
    {
        // The machine slows by a quarter at every block (session) opened, and two identical schemes run A and B at twice
        // their isolated time. With C_SP once per round, the scheme that runs further from the isolated block is biased.
        (CyclicExperimentResult once, _) = await DriftingAsync(bracketed: false);
        double first = once.Metrics.Single(m => m.Scheme == "first").Metrics.Stp;
        double second = once.Metrics.Single(m => m.Scheme == "second").Metrics.Stp;
        Assert.True(first > second + 0.05, $"with C_SP once per round the later scheme looks worse: {first} against {second}");

        // Around every block: an isolated block before the first scheme block and after every one, rotated rounds, and
        // every block's NTT is exactly 2 (STP 1), per round and pooled.
        (CyclicExperimentResult result, List<string> log) = await DriftingAsync(bracketed: true);
        Assert.Equal(
            ["isolated", "first", "isolated", "second", "isolated", /* round 2 */ "second", "isolated", "first", "isolated"],
            log);
        Assert.True(result.Bracketed);
        Assert.Equal([["isolated", "first", "isolated", "second", "isolated"], ["second", "isolated", "first", "isolated"]], result.Rounds.Select(r => r.Order.ToArray()));
        Assert.All(result.Metrics, m => Assert.Equal(1.0, m.Metrics.Stp, 9));
        Assert.All(result.Metrics.SelectMany(m => m.Metrics.Programs), p => Assert.Equal(2.0, p.NormalizedTurnaroundTime, 9));
        Assert.All(result.Rounds.SelectMany(r => r.Metrics), m => Assert.Equal(1.0, m.Metrics.Stp, 9));
        Assert.All(result.AcrossRounds, a => Assert.Equal(1.0, a.Summary.Stp.Mean, 9));

        // 5 isolated blocks share the 5 runs: one each; the bracket of a block pools the blocks on either side. Block 2
        // (first scheme of round 1) ran on the machine's second session: factor 1.25, between the isolated 1.0 and 1.5.
        Assert.Equal([5, 5], result.Isolated.Select(t => t.Seconds.Count));
        Assert.Equal([1.0, 1.5], result.Rounds[0].IsolatedFor("first").Single(t => t.Program == "A").Seconds);
        Assert.Equal([1.0, 1.5, 2.0], result.Rounds[0].Isolated.Single(t => t.Program == "A").Seconds);

        // runs.csv keeps the measured durations; rounds.csv gives each scheme block the C_SP around it.
        List<List<string>> runs = CsvParser.Parse(await File.ReadAllTextAsync(Path.Combine(_root, "drift-True", "runs.csv")));
        Assert.Contains(runs.Skip(1), r => r[0] == "first" && r[1] == "A" && double.Parse(r[5], CultureInfo.InvariantCulture) == 2.5);
        List<List<string>> rounds = CsvParser.Parse(await File.ReadAllTextAsync(Path.Combine(_root, "drift-True", "rounds.csv")));
        Assert.Contains(rounds.Skip(1), r => r[0] == "1" && r[2] == "first" && r[3] == "A" && r[4] == "1.25" && r[7] == "2");
        string summary = await File.ReadAllTextAsync(Path.Combine(_root, "drift-True", "summary.md"));
        Assert.Contains("## C_SP around every block", summary, StringComparison.Ordinal);
        Assert.Contains("C_SP measured before and after every scheme block", summary, StringComparison.Ordinal);
    }

    [Fact]
    public void A_bracketed_order_puts_an_isolated_block_around_every_scheme_block()
    {
        Assert.Equal([0, 1, 0, 2, 0, 3, 0], RoundOrder.Bracketed(3, 0));
        Assert.Equal([2, 0, 3, 0, 1, 0], RoundOrder.Bracketed(3, 1));
        Assert.Equal([1, 0], RoundOrder.Bracketed(1, 5));
        Assert.Throws<ArgumentOutOfRangeException>(() => RoundOrder.Bracketed(0, 0));
        Assert.Throws<ArgumentOutOfRangeException>(() => RoundOrder.Bracketed(2, -1));
    }

    private async Task<(CyclicExperimentResult Result, List<string> Log)> DriftingAsync(bool bracketed)
    {
        var clock = new ManualTimeProvider();
        var machine = new SlowingMachine();
        var log = new List<string>();
        var experiment = new CyclicExperiment(new CyclicExperimentOptions
        {
            Workload = "w", TimeLimit = TimeSpan.FromSeconds(40), Rounds = 2, SingleProgramRuns = 5, WarmupRuns = 0, Bracketed = bracketed,
        });
        ResultsFolder folder = ResultsFolder.Create(_root, $"drift-{bracketed}", Samples.Stamp);
        Task<CyclicExperimentResult> running = experiment.RunAsync(
            new DriftingScheme("isolated", clock, machine, 1, log), [new DriftingScheme("first", clock, machine, 2, log), new DriftingScheme("second", clock, machine, 2, log)],
            new ExperimentContext(folder, NullProgressSink.Instance, clock));
        clock.AdvanceTo(TimeSpan.FromHours(1));
        return (await running.WaitAsync(TestTimeouts.Wait), log);
    }

    /// <summary>A machine that is a quarter slower at every session opened on it (speed drifting between blocks).</summary>
    private sealed class SlowingMachine
    {
        private int _opened;

        public double NextFactor() => 1 + (0.25 * _opened++);
    }

    /// <summary>Programs A and B of <paramref name="seconds"/> each at the machine's speed when the session opens.</summary>
    private sealed class DriftingScheme(string name, ManualTimeProvider clock, SlowingMachine machine, double seconds, List<string> log) : IWorkloadScheme
    {
        public string Name { get; } = name;

        public ValueTask<IWorkloadSession> OpenAsync(CancellationToken cancellationToken)
        {
            log.Add(Name);
            double factor = machine.NextFactor();
            return new FakeScheme(Name, clock, new Dictionary<string, double> { ["A"] = seconds * factor, ["B"] = seconds * factor }).OpenAsync(cancellationToken);
        }
    }

    [Fact]
    public async Task A_single_round_without_warm_up_is_the_one_block_protocol()
    {
        var clock = new ManualTimeProvider();
        var log = new List<string>();
        var isolated = new LoggingScheme(new FakeScheme("isolated", clock, new Dictionary<string, double> { ["A"] = 1 }), log);
        var s = new LoggingScheme(new FakeScheme("s", clock, new Dictionary<string, double> { ["A"] = 2 }), log);
        var experiment = new CyclicExperiment(new CyclicExperimentOptions { Workload = "w", TimeLimit = TimeSpan.FromSeconds(10), SingleProgramRuns = 3, WarmupRuns = 1 });
        Task<CyclicExperimentResult> running = experiment.RunAsync(isolated, [s], new ExperimentContext(ResultsFolder.Create(_root, "one", Samples.Stamp), NullProgressSink.Instance, clock));
        clock.AdvanceTo(TimeSpan.FromHours(1));
        CyclicExperimentResult result = await running.WaitAsync(TestTimeouts.Wait);

        Assert.Equal(["isolated", "s"], log);
        Assert.Equal([3], result.Isolated.Select(t => t.Seconds.Count));
        Assert.Single(result.Rounds);
        Assert.Empty(result.AcrossRounds);
        Assert.Empty(result.Ranking);
        Assert.DoesNotContain("## Across rounds", await File.ReadAllTextAsync(Path.Combine(_root, "one", "summary.md")), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-1)]
    public void Bad_round_counts_are_rejected(int rounds) =>
        Assert.Throws<ArgumentException>(() => new CyclicExperiment(new CyclicExperimentOptions { Workload = "w", TimeLimit = TimeSpan.FromSeconds(1), Rounds = rounds }));

    [Fact]
    public void A_negative_warm_up_is_rejected() =>
        Assert.Throws<ArgumentException>(() => new CyclicExperiment(new CyclicExperimentOptions { Workload = "w", TimeLimit = TimeSpan.FromSeconds(1), WarmupTime = TimeSpan.FromSeconds(-1) }));

    [Theory]
    [InlineData(1)]
    [InlineData(3)]
    [InlineData(5)]
    public void Over_n_rounds_every_block_runs_once_in_every_position(int slots)
    {
        int[][] orders = [.. Enumerable.Range(0, slots).Select(r => RoundOrder.Rotated(slots, r).ToArray())];
        Assert.Equal(Enumerable.Range(0, slots), orders[0]);
        foreach (int[] order in orders)
        {
            Assert.Equal(Enumerable.Range(0, slots), order.Order());
        }

        for (int position = 0; position < slots; position++)
        {
            Assert.Equal(Enumerable.Range(0, slots), orders.Select(o => o[position]).Order());
        }
    }

    [Fact]
    public void Round_order_rejects_bad_arguments()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => RoundOrder.Rotated(0, 0));
        Assert.Throws<ArgumentOutOfRangeException>(() => RoundOrder.Rotated(2, -1));
    }

    private async Task<(double First, double Second)> StpOfTwoIdenticalSchemesAsync(int rounds, TimeSpan warmup)
    {
        var clock = new ManualTimeProvider();
        var coldness = new Coldness();
        var isolated = new FakeScheme("isolated", clock, new Dictionary<string, double> { ["A"] = 1, ["B"] = 1 });
        var first = new ColdStartScheme("first", clock, coldness);
        var second = new ColdStartScheme("second", clock, coldness);
        var experiment = new CyclicExperiment(new CyclicExperimentOptions
        {
            Workload = "w", TimeLimit = TimeSpan.FromSeconds(20), Rounds = rounds, WarmupTime = warmup, SingleProgramRuns = 2, WarmupRuns = 0,
        });
        ResultsFolder folder = ResultsFolder.Create(_root, $"cold-{rounds}-{warmup.TotalSeconds}", Samples.Stamp);
        Task<CyclicExperimentResult> running = experiment.RunAsync(isolated, [first, second], new ExperimentContext(folder, NullProgressSink.Instance, clock));
        clock.AdvanceTo(TimeSpan.FromHours(1));
        CyclicExperimentResult result = await running.WaitAsync(TestTimeouts.Wait);
        return (result.Metrics.Single(m => m.Scheme == "first").Metrics.Stp, result.Metrics.Single(m => m.Scheme == "second").Metrics.Stp);
    }

    private sealed class Coldness
    {
        public int SessionsOpened { get; set; }
    }

    /// <summary>Two programs of 2 s each; in the process's first scheme session they take 4 s (cold code paths).</summary>
    private sealed class ColdStartScheme(string name, ManualTimeProvider clock, Coldness coldness) : IWorkloadScheme
    {
        public string Name { get; } = name;

        public ValueTask<IWorkloadSession> OpenAsync(CancellationToken cancellationToken)
        {
            double seconds = coldness.SessionsOpened++ == 0 ? 4 : 2;
            return new FakeScheme(Name, clock, new Dictionary<string, double> { ["A"] = seconds, ["B"] = seconds }).OpenAsync(cancellationToken);
        }
    }

    /// <summary>A program "A" whose first run in each session takes <paramref name="cold"/> seconds and later ones <paramref name="warm"/>.</summary>
    private sealed class ColdFirstRunScheme(string name, ManualTimeProvider clock, double cold, double warm) : IWorkloadScheme
    {
        public string Name { get; } = name;

        public int Opened { get; private set; }

        public ValueTask<IWorkloadSession> OpenAsync(CancellationToken cancellationToken)
        {
            Opened++;
            WorkloadProgram program = new FakeProgram("A", clock, TimeSpan.FromSeconds(cold), TimeSpan.FromSeconds(warm));
            return ValueTask.FromResult<IWorkloadSession>(new Session([program]));
        }

        private sealed class Session(IReadOnlyList<WorkloadProgram> programs) : IWorkloadSession
        {
            public IReadOnlyList<WorkloadProgram> Programs { get; } = programs;

            public AllocationTrace? Allocations => null;

            public ValueTask DisposeAsync() => ValueTask.CompletedTask;
        }
    }

    private sealed class LoggingScheme(FakeScheme inner, List<string> log) : IWorkloadScheme
    {
        public string Name => inner.Name;

        public ValueTask<IWorkloadSession> OpenAsync(CancellationToken cancellationToken)
        {
            log.Add(inner.Name);
            return inner.OpenAsync(cancellationToken);
        }
    }
}
