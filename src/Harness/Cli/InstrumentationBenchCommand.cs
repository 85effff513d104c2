using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;
using System.Text.Json.Nodes;
using DivCon.Harness.Benchmarks;
using DivCon.Harness.Machine;
using DivCon.Harness.Measurement;

namespace DivCon.Harness.Cli;

/// <summary>
/// <c>bench-instrumentation</c>: what DivCon's instruments cost when nobody listens, against the same code with the
/// instruments absent (<c>DivCon.Instrumentation.IsSupported=false</c>), on a machine whose speed drifts between
/// minutes. It alternates child processes of this harness, one with the switch on and one with it off per pair (the
/// order alternates too), each started by <c>dotnet exec --runtimeconfig</c> with a copy of the harness's
/// <c>runtimeconfig.json</c> that sets the switch (exactly what a project's <c>RuntimeHostConfigurationOption</c>
/// writes), and each timing the benchmarks of <see cref="InstrumentationWorkloads"/>. Per benchmark it reports the
/// median of the pairs' ratios on/off with a 95% bootstrap interval (<see cref="PairedRatios"/>), and writes a
/// folder: <c>README.md</c> (command, machine, dates, load, table), <c>runs.csv</c>, <c>summary.csv</c> and the two
/// runtime configurations.
/// </summary>
/// <remarks>
/// Options: <c>--pairs N</c> (default 12), <c>--seconds S</c> timed per benchmark and process (default 2),
/// <c>--only a,b</c> (benchmark names), <c>--out DIR</c> (default <c>results-local/instrumentation-ab-&lt;time&gt;</c>;
/// an existing non-empty folder is refused). Like <c>bench</c>, it is handed its arguments before parsing.
/// </remarks>
public static class InstrumentationBenchCommand
{
    /// <summary>The command's name.</summary>
    public const string Name = "bench-instrumentation";

    /// <summary>How long one child of the A/B may take before the run is abandoned.</summary>
    public static readonly TimeSpan ChildTimeout = TimeSpan.FromMinutes(30);

    /// <summary>Below this many pairs the bootstrap interval is not read as showing a difference (it is little more than the range).</summary>
    public const int MinimumPairsForInterval = 6;

    private const string ChildFlag = "--child";
    private const string ObserveFlag = "--observe";

    /// <summary>Builds the help-only command.</summary>
    /// <param name="host">The host.</param>
    /// <returns>The command.</returns>
    public static Command Create(CliHost host)
    {
        var command = new Command(Name, "Interleaved A/B of DivCon's instruments present (nobody listening) vs absent: --pairs N (12) --seconds S (2) --only a,b --out DIR.")
        {
            TreatUnmatchedTokensAsErrors = false,
        };
        command.SetAction(parse => Run(parse.UnmatchedTokens.ToArray(), host));
        return command;
    }

    /// <summary>Runs the A/B (or, with <c>--child on|off</c> or <c>--observe</c>, one child).</summary>
    /// <param name="arguments">The arguments after the command's name.</param>
    /// <param name="host">The host.</param>
    /// <returns>The exit code.</returns>
    public static int Run(string[] arguments, CliHost host)
    {
        ArgumentNullException.ThrowIfNull(arguments);
        ArgumentNullException.ThrowIfNull(host);
        Settings settings;
        try
        {
            settings = Parse(arguments);
        }
        catch (ArgumentException ex)
        {
            host.Error.WriteLine($"error: {CommandActions.OneLine(ex.Message)}");
            return CommandActions.BadInput;
        }

        try
        {
            if (settings.Observe)
            {
                InstrumentationWorkloads.Observe(host.Output);
                return 0;
            }

            if (settings.Child is { } on)
            {
                InstrumentationWorkloads.Run(on, settings.Seconds, settings.Only, host.Output);
                return 0;
            }

            return RunPairs(settings, host);
        }
#pragma warning disable CA1031 // One line on the error writer and an exit code, as every harness failure.
        catch (Exception ex)
#pragma warning restore CA1031
        {
            host.Error.WriteLine($"error: {CommandActions.OneLine(ex.Message)}");
            return ex is IOException or UnauthorizedAccessException ? CommandActions.EnvironmentError : CommandActions.RunFailed;
        }
    }

    /// <summary>The runtime configuration of a child: the harness's own with the switch set.</summary>
    /// <param name="harnessRuntimeConfig">The text of the harness's <c>runtimeconfig.json</c>.</param>
    /// <param name="on">The switch's value.</param>
    /// <returns>The child's configuration.</returns>
    public static string ChildRuntimeConfig(string harnessRuntimeConfig, bool on)
    {
        JsonNode root = JsonNode.Parse(harnessRuntimeConfig) ?? throw new ArgumentException("The runtime configuration is empty.", nameof(harnessRuntimeConfig));
        JsonObject options = root["runtimeOptions"] as JsonObject ?? throw new ArgumentException("The runtime configuration has no runtimeOptions.", nameof(harnessRuntimeConfig));
        if (options["configProperties"] is not JsonObject properties)
        {
            properties = [];
            options["configProperties"] = properties;
        }

        properties[InstrumentationWorkloads.SwitchName] = on;
        return root.ToJsonString(new System.Text.Json.JsonSerializerOptions { WriteIndented = true });
    }

    /// <summary>Starts a child of this harness under a runtime configuration.</summary>
    /// <param name="runtimeConfig">The configuration file.</param>
    /// <param name="arguments">The harness arguments.</param>
    /// <param name="timeout">How long the child may take (infinite: no bound).</param>
    /// <returns>The child's output lines.</returns>
    /// <exception cref="InvalidOperationException">The child failed.</exception>
    /// <exception cref="TimeoutException">The child took longer than <paramref name="timeout"/> (it is killed).</exception>
    public static IReadOnlyList<string> RunChild(string runtimeConfig, IEnumerable<string> arguments, TimeSpan timeout)
    {
        ArgumentNullException.ThrowIfNull(arguments);
        string assembly = typeof(InstrumentationBenchCommand).Assembly.Location;
        return PairedRuns.RunDotnet(["exec", "--runtimeconfig", runtimeConfig, assembly, Name, .. arguments], timeout, $"A child ({Path.GetFileName(runtimeConfig)})");
    }

    private static int RunPairs(Settings settings, CliHost host)
    {
        DateTimeOffset started = host.Time.GetUtcNow();
        string folder = settings.Out ?? Path.Combine(CommonOptions.AdHocRoot, $"instrumentation-ab-{started:yyyyMMdd-HHmmss}");
        if (Directory.Exists(folder) && Directory.EnumerateFileSystemEntries(folder).Any())
        {
            host.Error.WriteLine($"error: --out {folder} exists and is not empty; results are never overwritten.");
            return CommandActions.BadInput;
        }

        Directory.CreateDirectory(folder);
        string own = Path.ChangeExtension(typeof(InstrumentationBenchCommand).Assembly.Location, ".runtimeconfig.json");
        string harnessConfig = File.ReadAllText(own);
        var configs = new Dictionary<bool, string>
        {
            [true] = Path.GetFullPath(Path.Combine(folder, "runtimeconfig.on.json")),
            [false] = Path.GetFullPath(Path.Combine(folder, "runtimeconfig.off.json")),
        };
        foreach ((bool on, string path) in configs)
        {
            File.WriteAllText(path, ChildRuntimeConfig(harnessConfig, on));
        }

        string load = PairedRuns.LoadAverage();
        host.Output.WriteLine($"bench-instrumentation: {settings.Pairs} pairs, {settings.Seconds:0.##} s per benchmark and process, to {folder} (load average {load})");
        var rows = new List<(int Pair, int Order, bool On, string Benchmark, double Nanoseconds, int Batches)>();
        string[] childArguments = [ChildFlag, "?", "--seconds", settings.Seconds.ToString("R", CultureInfo.InvariantCulture), .. settings.Only is null ? [] : (string[])["--only", string.Join(',', settings.Only)]];
        for (int pair = 1; pair <= settings.Pairs; pair++)
        {
            bool[] order = pair % 2 == 1 ? [true, false] : [false, true];
            for (int position = 0; position < 2; position++)
            {
                bool on = order[position];
                childArguments[1] = on ? "on" : "off";
                var stopwatch = Stopwatch.StartNew();
                IReadOnlyList<string> lines = RunChild(configs[on], childArguments, ChildTimeout);
                var results = lines.Where(l => l.StartsWith("result ", StringComparison.Ordinal)).Select(l => l.Split(' ')).ToList();
                string check = lines.FirstOrDefault(l => l.StartsWith("check ", StringComparison.Ordinal))
                    ?? throw new InvalidOperationException($"A child ({childArguments[1]}) reported no check line.");
                foreach (string[] r in results)
                {
                    rows.Add((pair, position + 1, on, r[1], double.Parse(r[2], CultureInfo.InvariantCulture), int.Parse(r[3], CultureInfo.InvariantCulture)));
                }

                host.Output.WriteLine(string.Create(
                    CultureInfo.InvariantCulture,
                    $"pair {pair}/{settings.Pairs} {(on ? "on " : "off")} {stopwatch.Elapsed.TotalSeconds,5:0.0} s  {string.Join("  ", results.Select(r => $"{r[1]} {PairedRuns.Format(double.Parse(r[2], CultureInfo.InvariantCulture))}"))}  [{check}]"));
            }
        }

        string loadAfter = PairedRuns.LoadAverage();
        DateTimeOffset ended = host.Time.GetUtcNow();
        var summaries = Summarize(rows.Select(r => (r.Pair, r.On, r.Benchmark, r.Nanoseconds)).ToList());
        WriteFiles(folder, settings, host, rows, summaries, started, ended, load, loadAfter);
        host.Output.WriteLine();
        host.Output.Write(Table(summaries));
        host.Output.WriteLine($"Written: {folder}");
        return 0;
    }

    /// <summary>Per benchmark: the medians of each variant and the paired ratios on/off.</summary>
    /// <param name="rows">(pair, on, benchmark, ns per operation) of every child.</param>
    /// <returns>One summary per benchmark, in first-seen order.</returns>
    public static IReadOnlyList<(string Benchmark, double MedianOn, double MedianOff, PairedRatios Ratio)> Summarize(
        IReadOnlyList<(int Pair, bool On, string Benchmark, double Nanoseconds)> rows)
    {
        ArgumentNullException.ThrowIfNull(rows);
        var summaries = new List<(string, double, double, PairedRatios)>();
        foreach (string benchmark in rows.Select(r => r.Benchmark).Distinct(StringComparer.Ordinal))
        {
            var pairs = rows.Where(r => r.Benchmark == benchmark).GroupBy(r => r.Pair)
                .Where(g => g.Any(r => r.On) && g.Any(r => !r.On))
                .Select(g => (On: g.First(r => r.On).Nanoseconds, Off: g.First(r => !r.On).Nanoseconds))
                .ToList();
            if (pairs.Count < 2)
            {
                continue;
            }

            summaries.Add((
                benchmark,
                MathNet.Numerics.Statistics.Statistics.Median(pairs.Select(p => p.On)),
                MathNet.Numerics.Statistics.Statistics.Median(pairs.Select(p => p.Off)),
                PairedRatios.Of([.. pairs.Select(p => p.On / p.Off)])));
        }

        return summaries;
    }

    private static string Table(IReadOnlyList<(string Benchmark, double MedianOn, double MedianOff, PairedRatios Ratio)> summaries)
    {
        var text = new StringBuilder();
        text.AppendLine("| benchmark | pairs | on (median) | off (median) | on/off (median of pairs) | 95% interval | difference shown |");
        text.AppendLine("| --- | ---: | ---: | ---: | ---: | ---: | --- |");
        foreach (var (benchmark, on, off, ratio) in summaries)
        {
            text.AppendLine(string.Create(
                CultureInfo.InvariantCulture,
                $"| {benchmark} | {ratio.Pairs} | {PairedRuns.Format(on)} | {PairedRuns.Format(off)} | {ratio.Median:0.000} | [{ratio.Low:0.000}, {ratio.High:0.000}] | {(ratio.Pairs < MinimumPairsForInterval ? "too few pairs" : ratio.ContainsOne ? "no" : "yes")} |"));
        }

        return text.ToString();
    }

    private static void WriteFiles(
        string folder,
        Settings settings,
        CliHost host,
        List<(int Pair, int Order, bool On, string Benchmark, double Nanoseconds, int Batches)> rows,
        IReadOnlyList<(string Benchmark, double MedianOn, double MedianOff, PairedRatios Ratio)> summaries,
        DateTimeOffset started,
        DateTimeOffset ended,
        string load,
        string loadAfter)
    {
        var runs = new StringBuilder("pair,order,instrumentation,benchmark,ns_per_op,batches\n");
        foreach (var r in rows)
        {
            runs.Append(CultureInfo.InvariantCulture, $"{r.Pair},{r.Order},{(r.On ? "on" : "off")},{r.Benchmark},{r.Nanoseconds:F1},{r.Batches}\n");
        }

        File.WriteAllText(Path.Combine(folder, "runs.csv"), runs.ToString());
        var summary = new StringBuilder("benchmark,pairs,median_on_ns,median_off_ns,median_ratio_on_off,ci95_low,ci95_high\n");
        foreach (var (benchmark, on, off, ratio) in summaries)
        {
            summary.Append(CultureInfo.InvariantCulture, $"{benchmark},{ratio.Pairs},{on:F1},{off:F1},{ratio.Median:F4},{ratio.Low:F4},{ratio.High:F4}\n");
        }

        File.WriteAllText(Path.Combine(folder, "summary.csv"), summary.ToString());
        var readme = new StringBuilder();
        readme.AppendLine("# DivCon's instruments present (nobody listening) vs absent: interleaved A/B");
        readme.AppendLine();
        readme.AppendLine("Command:");
        readme.AppendLine();
        readme.AppendLine("```");
        readme.AppendLine(host.CommandLine);
        readme.AppendLine("```");
        readme.AppendLine();
        readme.AppendLine(string.Create(CultureInfo.InvariantCulture, $"- Date (UTC): {started:yyyy-MM-dd HH:mm} to {ended:HH:mm}"));
        readme.AppendLine(CultureInfo.InvariantCulture, $"- Machine: {CpuInfo.ReadModelName()}, {Environment.ProcessorCount} logical CPUs, {RuntimeInformation.OSDescription}");
        readme.AppendLine(CultureInfo.InvariantCulture, $"- Runtime: {RuntimeInformation.FrameworkDescription}");
        readme.AppendLine(CultureInfo.InvariantCulture, $"- Commit: {GitInfo.ShortCommit()}");
        readme.AppendLine(CultureInfo.InvariantCulture, $"- Load average (1, 5, 15 min) at the start: {load}; at the end: {loadAfter}");
        readme.AppendLine(string.Create(CultureInfo.InvariantCulture, $"- {settings.Pairs} pairs of child processes, {settings.Seconds:0.##} s timed per benchmark and process"));
        readme.AppendLine();
        readme.AppendLine("Each pair runs two child processes back to back, one with `DivCon.Instrumentation.IsSupported` true (the");
        readme.AppendLine("instruments and the event source present, nobody listening) and one with it false (absent: the JIT drops the");
        readme.AppendLine("guarded code), in alternating order, each started as `dotnet exec --runtimeconfig runtimeconfig.<on|off>.json`");
        readme.AppendLine("(the files here). Each child checks that it runs its variant (the switch the host gave it, and afterwards which");
        readme.AppendLine("DivCon meters and event sources exist) and times every benchmark in batches of about 20 ms after a warm-up,");
        readme.AppendLine("reporting the median time per operation. The ratio on/off is taken within each pair; the table gives the median");
        readme.AppendLine("of the pairs' ratios and its 95% percentile bootstrap interval (10,000 resamples of the pairs). An interval that");
        readme.AppendLine("contains 1 shows no difference at this resolution; its width is the resolution (with fewer than 6 pairs it is not");
        readme.AppendLine("read at all). `runs.csv` has every child's");
        readme.AppendLine("figures, `summary.csv` the table.");
        readme.AppendLine();
        readme.Append(Table(summaries));
        readme.AppendLine();
        readme.AppendLine("Benchmarks:");
        readme.AppendLine();
        foreach (var (name, description) in InstrumentationWorkloads.Benchmarks.Where(b => settings.Only is null || settings.Only.Contains(b.Name)))
        {
            readme.AppendLine(CultureInfo.InvariantCulture, $"- `{name}`: {description}");
        }

        File.WriteAllText(Path.Combine(folder, "README.md"), readme.ToString());
    }

    private static Settings Parse(string[] arguments)
    {
        var settings = new Settings();
        for (int i = 0; i < arguments.Length; i++)
        {
            string option = arguments[i];
            if (option == ObserveFlag)
            {
                settings = settings with { Observe = true };
                continue;
            }

            if (i + 1 >= arguments.Length)
            {
                throw new ArgumentException($"{option} needs a value.");
            }

            string value = arguments[++i];
            settings = option switch
            {
                "--pairs" => settings with { Pairs = int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out int pairs) && pairs is >= 2 and <= 1000 ? pairs : throw new ArgumentException($"--pairs must be a whole number from 2 to 1000, got '{value}'.") },
                "--seconds" => settings with { Seconds = double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds) && seconds is >= 0.01 and <= 600 ? seconds : throw new ArgumentException($"--seconds must be a number from 0.01 to 600, got '{value}'.") },
                "--out" => settings with { Out = string.IsNullOrWhiteSpace(value) ? throw new ArgumentException("--out needs a folder, got ''.") : value },
                "--only" => settings with { Only = Names(value) },
                ChildFlag => settings with { Child = value switch { "on" => true, "off" => false, _ => throw new ArgumentException($"{ChildFlag} must be on or off, got '{value}'.") } },
                _ => throw new ArgumentException($"unknown option '{option}' (--pairs, --seconds, --only, --out)."),
            };
        }

        return settings;
    }

    private static HashSet<string> Names(string value) => PairedRuns.OnlyNames(value, InstrumentationWorkloads.Benchmarks.Select(b => b.Name), "benchmarks");

    private sealed record Settings
    {
        public int Pairs { get; init; } = 12;

        public double Seconds { get; init; } = 2;

        public string? Out { get; init; }

        public HashSet<string>? Only { get; init; }

        public bool? Child { get; init; }

        public bool Observe { get; init; }
    }
}
