using System.Text.Json;
using System.Xml.Linq;
using DivCon.Harness.Cli;
using DivCon.Harness.Tests.Support;

namespace DivCon.Harness.Tests.Cli;

/// <summary>
/// Every command end to end at tiny sizes and durations: exit code 0, and the files it promises exist and parse
/// (CSV with a header and rows, JSON documents, SVG as XML).
/// </summary>
[Collection(LiveSchedulersTestGroup.Name)]
public sealed class CommandSmokeTests : IDisposable
{
    private static readonly string[] TinySizes = ["--sizes", "quicksort=2^13", "mergesort=2^13", "strassen=64", "sumsq=2^14", "pi=2^14"];

    // A partitioning scheme gives each program at least one core only while programs do not outnumber the CPUs; a
    // program without a core runs only on lent workers and may finish no run in a sub-second test.
    private static readonly string TwoPrograms = Environment.ProcessorCount >= 2 ? "quicksort,strassen" : "quicksort";

    private readonly string _root = Path.Combine(Path.GetTempPath(), "divcon-cli-smoke-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    [Fact]
    public async Task Demo_runs_every_demo_scheme_and_writes_its_files()
    {
        // 1.5 s per scheme: at 0.4 s a loaded machine could end a scheme before one of its programs completed a run,
        // and that scheme then has no metrics (reported as incomplete), which is not what this test checks.
        string[] args = ["demo", "--programs", TwoPrograms, "--duration", "1.5", "--runs", "1", "--warmup", "0", "--out", _root, .. TinySizes];
        var (exitCode, output, error) = await CliRunner.RunAsync(args);
        Assert.True(exitCode == 0, error);
        Assert.Contains("ANTT", output, StringComparison.Ordinal);
        string folder = Path.Combine(_root, "demo");
        AssertCyclicFiles(folder, ["default", "shared", "dynamic"]);
        ParseSvg(Path.Combine(folder, "allocation-dynamic.svg"), TwoPrograms.Split(','));
        ParseJson(Path.Combine(_root, "profiles.json")); // quick profiles measured and stored
    }

    [Fact]
    public async Task Bare_invocation_is_the_demo()
    {
        // Only the help of the default command: running the real demo takes a minute.
        var (exitCode, output, _) = await CliRunner.RunAsync("demo", "--help");
        Assert.Equal(0, exitCode);
        Assert.Contains("quicksort, mergesort and strassen", output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Cyclic_runs_every_scheme()
    {
        string[] args = ["cyclic", "--programs", TwoPrograms, "--schemes", "oversubscribed-free,oversubscribed-pinned,shared,default,static,dynamic,hill-climbing",
            "--duration", "0.3", "--runs", "1", "--warmup", "0", "--rebalance-ms", "20", "--name", "smoke", "--out", _root, .. TinySizes];
        var (exitCode, _, error) = await CliRunner.RunAsync(args);
        Assert.True(exitCode == 0, error);
        string folder = Path.Combine(_root, "smoke");
        AssertCyclicFiles(folder, ["oversubscribed-free", "oversubscribed-pinned", "shared", "default", "static", "dynamic", "hill-climbing"]);
        foreach (string scheme in new[] { "static", "dynamic", "hill-climbing" })
        {
            ParseSvg(Path.Combine(folder, $"allocation-{scheme}.svg"), TwoPrograms.Split(','));
        }

        ParseSvg(Path.Combine(folder, "move-latency.svg"), "static", "dynamic", "hill-climbing", "p50", "max"); // the partitioning schemes' moves

        using JsonDocument setup = ParseJson(Path.Combine(folder, "setup.json"));
        Assert.Equal(TwoPrograms.Split(',').Length, setup.RootElement.GetProperty("data").GetProperty("workload").GetArrayLength());
    }

    [Fact]
    public async Task Processes_runs_every_mode_and_writes_its_files()
    {
        string[] args = ["processes", "--programs", TwoPrograms, "--modes", "independent,joined,one-process", "--duration", "1", "--runs", "1",
            "--warmup", "0", "--warmup-seconds", "0", "--child-warmup", "0", "--rounds", "1", "--profile-fallback", "unit", "--out", _root, .. TinySizes];
        var (exitCode, output, error) = await CliRunner.RunAsync(args);
        Assert.True(exitCode == 0, error);
        Assert.Contains("ANTT", output, StringComparison.Ordinal);
        string folder = Path.Combine(_root, "processes");
        AssertCyclicFiles(folder, ["independent", "joined", "one-process"]);
        string children = Path.Combine(folder, "children");
        Assert.NotEmpty(Directory.GetFiles(children, "independent-*.csv"));
        // Completions (the moves files beside them may hold a header only: no CPU need change process in a short run).
        Assert.All(Directory.GetFiles(children, "joined-*.csv").Where(f => !f.EndsWith("-moves.csv", StringComparison.Ordinal)), f => ParseCsv(f));
        // On Linux (.NET 8+) the children join one domain; elsewhere the run says plainly that they did not.
        if (OperatingSystem.IsLinux())
        {
            Assert.DoesNotContain("WITHOUT a machine domain", error, StringComparison.Ordinal);
            // Cross-process moves are reported as the in-process ones (a row even when no CPU changed process).
            Assert.Contains(ParseCsv(Path.Combine(folder, "move-latency.csv")), row => row[0] == "joined");
            Assert.NotEmpty(Directory.GetFiles(children, "joined-*-moves.csv"));
        }
        else
        {
            Assert.Contains("joined: the children ran WITHOUT a machine domain", error, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task Processes_fault_run_kills_children_and_starts_new_ones()
    {
        string[] args = ["processes", "--programs", TwoPrograms, "--modes", "independent", "--duration", "2", "--runs", "1", "--warmup", "0",
            "--warmup-seconds", "0", "--child-warmup", "0", "--rounds", "1", "--kill-every", "0.3", "--name", "kills", "--out", _root, .. TinySizes];
        var (exitCode, _, error) = await CliRunner.RunAsync(args);
        Assert.True(exitCode == 0, error);
        string children = Path.Combine(_root, "kills", "children");
        List<List<string>> kills = ParseCsv(Path.Combine(children, "kills.csv"));
        Assert.Equal(["scheme", "session", "seconds", "program", "pid"], kills[0]);
        Assert.Contains("children killed and replaced", error, StringComparison.Ordinal);
        // A killed child's program went on in a new child (generation 2 or later).
        Assert.Contains(Directory.GetFiles(children, "independent-*.csv"), f => !f.EndsWith("-1.csv", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Cyclic_repetitions_get_their_own_folders_and_a_summary_across_them()
    {
        string[] args = ["cyclic", "--programs", "quicksort", "--schemes", "shared,default", "--repeat", "2",
            "--duration", "0.2", "--runs", "1", "--warmup", "0", "--name", "rep", "--out", _root, .. TinySizes];
        var (exitCode, output, error) = await CliRunner.RunAsync(args);
        Assert.True(exitCode == 0, error);
        Assert.Contains("across repetitions", output, StringComparison.Ordinal);
        AssertCyclicFiles(Path.Combine(_root, "rep-rep1"), ["shared", "default"]);
        AssertCyclicFiles(Path.Combine(_root, "rep-rep2"), ["shared", "default"]);
        string combined = Path.Combine(_root, "rep");
        Assert.Equal(1 + (2 * 2), ParseCsv(Path.Combine(combined, "repetitions.csv")).Count); // header + 2 repetitions x 2 schemes
        using (JsonDocument summary = ParseJson(Path.Combine(combined, "summary.json")))
        {
            Assert.Equal(2, summary.RootElement.GetProperty("data").GetProperty("schemes").GetArrayLength());
        }

        ParseSvg(Path.Combine(combined, "stp.svg"), "shared", "default");
    }

    [Fact]
    public async Task Cyclic_with_unit_profiles_warns_instead_of_measuring()
    {
        string[] args = ["cyclic", "--programs", "quicksort", "--schemes", "static", "--profile-fallback", "unit",
            "--duration", "0.2", "--runs", "1", "--warmup", "0", "--out", _root, .. TinySizes];
        var (exitCode, _, error) = await CliRunner.RunAsync(args);
        Assert.True(exitCode == 0, error);
        Assert.Contains("assuming speedup 1", error, StringComparison.Ordinal);
        Assert.False(File.Exists(Path.Combine(_root, "profiles.json")));
    }

    [Fact]
    public async Task Symmetric_runs_k_instances_per_program()
    {
        string[] args = ["symmetric", "--programs", "quicksort", "-k", Environment.ProcessorCount >= 2 ? "2" : "1", "--schemes", "shared,static", "--duration", "0.3", "--runs", "1", "--warmup", "0", "--out", _root, .. TinySizes];
        var (exitCode, output, error) = await CliRunner.RunAsync(args);
        Assert.True(exitCode == 0, error);
        Assert.Contains("MNTT", output, StringComparison.Ordinal);
        string folder = Path.Combine(_root, "symmetric-quicksort");
        AssertCyclicFiles(folder, ["shared", "static"]);
        List<List<string>> runs = CsvParser.Parse(File.ReadAllText(Path.Combine(folder, "runs.csv")));
        Assert.Contains(runs, r => r.Contains("quicksort#1"));
        string combined = Path.Combine(_root, "symmetric");
        List<List<string>> mntt = ParseCsv(Path.Combine(combined, "mntt.csv"));
        Assert.Equal(1 + 2, mntt.Count); // header + 1 program x 2 schemes
        ParseSvg(Path.Combine(combined, "mntt.svg"), "quicksort", "shared", "static");
        Assert.Contains("MNTT", File.ReadAllText(Path.Combine(combined, "summary.md")), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Granularity_sweeps_every_fraction()
    {
        string[] args = ["granularity", "--programs", "quicksort,strassen", "--max-exponent", "3", "--runs", "1", "--warmup", "0", "--out", _root, .. TinySizes];
        var (exitCode, _, error) = await CliRunner.RunAsync(args);
        Assert.True(exitCode == 0, error);
        string folder = Path.Combine(_root, "granularity");
        List<List<string>> rows = ParseCsv(Path.Combine(folder, "runs.csv"));
        Assert.Equal(1 + (2 * 4), rows.Count); // header + 2 programs x 4 fractions x 1 run
        ParseJson(Path.Combine(folder, "summary.json")).Dispose();
        ParseSvg(Path.Combine(folder, "time-vs-granularity.svg"), "quicksort", "strassen");
        Assert.Contains("quicksort", File.ReadAllText(Path.Combine(folder, "summary.md")), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Scalability_measures_speedups_and_stores_profiles()
    {
        string profiles = Path.Combine(_root, "store", "my-profiles.json");
        string[] args = ["scalability", "--programs", "quicksort", "--runs", "1", "--warmup", "0", "--profiles", profiles, "--out", _root, .. TinySizes];
        var (exitCode, _, error) = await CliRunner.RunAsync(args);
        Assert.True(exitCode == 0, error);
        string folder = Path.Combine(_root, "scalability");
        ParseCsv(Path.Combine(folder, "runs.csv"));
        ParseCsv(Path.Combine(folder, "sequential.csv"));
        ParseJson(Path.Combine(folder, "speedup-tables.json")).Dispose();
        ParseSvg(Path.Combine(folder, "speedup-vs-cores.svg"), "quicksort", "ideal (linear)");
        AssertPerformanceFiles(folder, ["quicksort"]);
        var store = DivCon.Schedulers.Multiprogram.Profiling.ScalabilityProfileFile.Load(profiles);
        Assert.True(store.TryGet("quicksort", "8192", out var profile));
        Assert.Equal(1, profile.ParallelTimes[0].Cores);
    }

    [Fact]
    public async Task Phases_profiles_every_level()
    {
        string[] args = ["phases", "--programs", "quicksort,strassen", "--runs", "1", "--out", _root, .. TinySizes];
        var (exitCode, _, error) = await CliRunner.RunAsync(args);
        Assert.True(exitCode == 0, error);
        string folder = Path.Combine(_root, "phases");
        List<List<string>> rows = ParseCsv(Path.Combine(folder, "phases.csv"));
        Assert.Contains(rows, r => r[0] == "strassen");
        ParseSvg(Path.Combine(folder, "phases-quicksort.svg"), "split", "execute", "merge");
        ParseJson(Path.Combine(folder, "stamp.json")).Dispose();
        AssertPerformanceFiles(folder, ["quicksort", "strassen"]);
        Assert.Contains("## Performance model", File.ReadAllText(Path.Combine(folder, "summary.md")), StringComparison.Ordinal);
    }

    /// <summary>The performance model's files: a one-worker row per program (its own baseline) and charts naming the bound's terms.</summary>
    private static void AssertPerformanceFiles(string folder, IReadOnlyList<string> programs)
    {
        List<List<string>> rows = ParseCsv(Path.Combine(folder, "performance.csv"));
        foreach (string program in programs)
        {
            List<string> one = Assert.Single(rows, r => r[0] == program && r[1] == "1");
            Assert.Equal("1", one[rows[0].IndexOf("inflation_ratio")]);
            Assert.Equal(one[rows[0].IndexOf("t_p_s")], one[rows[0].IndexOf("t_1_s")]);
        }

        XDocument bound = XDocument.Load(Path.Combine(folder, "time-vs-bound.svg"));
        string[] texts = bound.Descendants().Where(e => e.Name.LocalName == "text").Select(e => e.Value).ToArray();
        Assert.Contains("T_1 / P", texts);
        Assert.Contains("T_∞ (span)", texts);
        ParseSvg(Path.Combine(folder, "performance.svg"), [.. programs.Select(p => $"{p}, P=1"), "work", "idle"]);
    }

    [Fact]
    public async Task A_rerun_publishes_a_fresh_folder_and_moves_the_previous_results_aside()
    {
        string folder = Path.Combine(_root, "phases");
        Directory.CreateDirectory(folder);
        await File.WriteAllTextAsync(Path.Combine(folder, "phases-old.svg"), "<svg/>");
        await File.WriteAllTextAsync(Path.Combine(folder, "stamp.json"), "{\"utcDate\": \"2026-01-02T03:04:05+00:00\"}"); // an earlier run's folder
        string[] args = ["phases", "--programs", "quicksort", "--runs", "1", "--out", _root, .. TinySizes];
        var (exitCode, output, error) = await CliRunner.RunAsync(args);
        Assert.True(exitCode == 0, error);
        Assert.False(File.Exists(Path.Combine(folder, "phases-old.svg"))); // no stale chart in the new results
        string previous = Path.Combine(_root, "phases.previous-20260102T030405Z");
        Assert.Equal("<svg/>", await File.ReadAllTextAsync(Path.Combine(previous, "phases-old.svg"))); // ... and nothing destroyed
        Assert.Contains(previous, output, StringComparison.Ordinal);
        Assert.Empty(Directory.GetDirectories(_root, ".*")); // no staging folder left
    }

    [Fact]
    public async Task A_folder_without_a_run_stamp_is_refused_and_left_untouched()
    {
        string folder = Path.Combine(_root, "phases");
        Directory.CreateDirectory(folder);
        await File.WriteAllTextAsync(Path.Combine(folder, "notes.md"), "mine");
        string[] args = ["phases", "--programs", "quicksort", "--runs", "1", "--out", _root, .. TinySizes];
        var (exitCode, _, error) = await CliRunner.RunAsync(args);
        Assert.Equal(CommandActions.BadInput, exitCode);
        Assert.Contains("not a results folder", error, StringComparison.Ordinal);
        Assert.Equal(["notes.md"], Directory.GetFiles(folder).Select(Path.GetFileName));
        Assert.Equal([folder], Directory.GetDirectories(_root));
    }

    private static void AssertCyclicFiles(string folder, IReadOnlyList<string> schemes)
    {
        List<List<string>> runs = ParseCsv(Path.Combine(folder, "runs.csv"));
        foreach (string scheme in schemes)
        {
            Assert.Contains(runs, r => r.Contains(scheme));
        }

        ParseCsv(Path.Combine(folder, "isolated.csv"));
        using (JsonDocument summary = ParseJson(Path.Combine(folder, "summary.json")))
        {
            Assert.Equal(schemes.Count, summary.RootElement.GetProperty("data").GetProperty("schemes").GetArrayLength());
        }

        ParseJson(Path.Combine(folder, "stamp.json")).Dispose();
        foreach (string chart in new[] { "ntt.svg", "np.svg", "antt.svg", "stp.svg", "mntt.svg" })
        {
            ParseSvg(Path.Combine(folder, chart), [.. schemes]);
        }

        Assert.Contains("| Machine", File.ReadAllText(Path.Combine(folder, "summary.md")), StringComparison.Ordinal);
    }

    private static List<List<string>> ParseCsv(string path)
    {
        List<List<string>> rows = CsvParser.Parse(File.ReadAllText(path));
        Assert.True(rows.Count >= 2, $"{path} has no data rows");
        Assert.All(rows, r => Assert.Equal(rows[0].Count, r.Count));
        return rows;
    }

    private static JsonDocument ParseJson(string path) => JsonDocument.Parse(File.ReadAllText(path));

    /// <summary>
    /// Parses a chart drawn by OxyPlot and checks it shows data: its title, the names it must show (legend entries or
    /// category labels), and at least one mark (bar, line, band) in the first palette colour, the colour of the first
    /// series or category.
    /// </summary>
    private static void ParseSvg(string path, params string[] names)
    {
        XDocument svg = XDocument.Load(path);
        Assert.Equal("svg", svg.Root!.Name.LocalName);
        XNamespace ns = svg.Root.Name.Namespace;
        Assert.False(string.IsNullOrWhiteSpace(svg.Root.Element(ns + "title")?.Value), $"{path} has no title");
        string[] texts = svg.Descendants(ns + "text").Select(t => t.Value).ToArray();
        Assert.All(names, name => Assert.Contains(name, texts));
        Assert.DoesNotContain(texts, t => t.Contains("exception", StringComparison.OrdinalIgnoreCase));
        string[] marks = ["rect", "polyline", "polygon", "path"];
        Assert.Contains(svg.Descendants(), e => marks.Contains(e.Name.LocalName)
            && ((string?)e.Attribute("style") ?? "").Contains("rgb(0,114,178)", StringComparison.Ordinal));
    }
}
