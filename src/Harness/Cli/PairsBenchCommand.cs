using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;
using DivCon.Harness.Benchmarks;
using DivCon.Harness.Machine;
using DivCon.Harness.Measurement;

namespace DivCon.Harness.Cli;

/// <summary>
/// <c>bench-pairs</c>: two builds of the same timing program (<c>bench/Runtimes</c>' <c>flat</c> command, compiled
/// against two commits' libraries by <c>scripts/bench-pairs.sh</c>) compared on a machine whose speed drifts between
/// minutes. It runs child processes of build A and build B back to back, pair after pair, the order alternating
/// (A,B then B,A); each child warms up and times every case of <see cref="FlatWorkloads"/> for a short budget. Per
/// case it reports the median of the pairs' ratios B/A with a 95% bootstrap interval (<see cref="PairedRatios"/>),
/// and per build each case against its baseline in the same child, and writes a folder: <c>README.md</c> (command,
/// builds, machine, dates, load, tables), <c>runs.csv</c>, <c>summary.csv</c> and <c>summary.md</c>.
/// </summary>
/// <remarks>
/// Options: <c>--a DLL</c> and <c>--b DLL</c> (the two builds' <c>DivCon.Bench.Runtimes.dll</c>; required),
/// <c>--a-commit TEXT</c>, <c>--b-commit TEXT</c>, <c>--program-commit TEXT</c> (what the README names them),
/// <c>--pairs N</c> (10), <c>--seconds S</c> timed per case and child (1), <c>--warmup S</c> unrecorded per case and
/// child (1), <c>--workers N</c> (2), <c>--only a,b</c> (case names), <c>--out DIR</c> (default
/// <c>results-local/bench-pairs-&lt;time&gt;</c>; an existing non-empty folder is refused), <c>--command TEXT</c>
/// (the command line the README records; default this one), <c>--validate</c> (check the options and stop).
/// </remarks>
public static class PairsBenchCommand
{
    /// <summary>The command's name.</summary>
    public const string Name = "bench-pairs";

    /// <summary>The timing program's command a child runs.</summary>
    public const string ChildCommand = "flat";

    /// <summary>How long one child may take before the run is abandoned.</summary>
    public static readonly TimeSpan ChildTimeout = TimeSpan.FromMinutes(30);

    private const string ValidateFlag = "--validate";

    /// <summary>Builds the help-only command.</summary>
    /// <param name="host">The host.</param>
    /// <returns>The command.</returns>
    public static System.CommandLine.Command Create(CliHost host)
    {
        var command = new System.CommandLine.Command(Name, "Paired comparison of two builds of bench/Runtimes' flat cases (scripts/bench-pairs.sh builds them): --a DLL --b DLL --pairs N (10) --seconds S (1) --warmup S (1) --workers N (2) --only a,b --out DIR.")
        {
            TreatUnmatchedTokensAsErrors = false,
        };
        command.SetAction(parse => Run(parse.UnmatchedTokens.ToArray(), host));
        return command;
    }

    /// <summary>Runs the comparison.</summary>
    /// <param name="arguments">The arguments after the command's name.</param>
    /// <param name="host">The host.</param>
    /// <returns>The exit code: 0, <see cref="CommandActions.BadInput"/> (1) for bad options, <see cref="CommandActions.RunFailed"/> (3) for a child that failed or reported nothing.</returns>
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

        if (settings.Out is { } existing && Directory.Exists(existing) && Directory.EnumerateFileSystemEntries(existing).Any())
        {
            host.Error.WriteLine($"error: --out {existing} exists and is not empty; results are never overwritten.");
            return CommandActions.BadInput;
        }

        if (settings.Validate)
        {
            return 0;
        }

        try
        {
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

    /// <summary>
    /// Reads a child's output: every <c>case</c> line (<see cref="FlatWorkloads.ParseLine"/>); the child must report
    /// each expected case exactly once.
    /// </summary>
    /// <param name="lines">The child's output lines.</param>
    /// <param name="expected">The cases it was asked for, in order.</param>
    /// <param name="child">The child's description for messages.</param>
    /// <returns>(case, nanoseconds per call, batches) in the child's order.</returns>
    /// <exception cref="InvalidDataException">A malformed line, a missing, unexpected or repeated case, or no case at all.</exception>
    public static IReadOnlyList<(string Case, double Nanoseconds, int Batches)> ReadChild(IReadOnlyList<string> lines, IReadOnlyList<string> expected, string child)
    {
        ArgumentNullException.ThrowIfNull(lines);
        ArgumentNullException.ThrowIfNull(expected);
        var results = new List<(string, double, int)>();
        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (string line in lines)
        {
            (string Name, double Nanoseconds, int Batches)? parsed;
            try
            {
                parsed = FlatWorkloads.ParseLine(line);
            }
            catch (FormatException ex)
            {
                throw new InvalidDataException($"{child}: {ex.Message}", ex);
            }

            if (parsed is not { } result)
            {
                continue;
            }

            if (!expected.Contains(result.Name, StringComparer.Ordinal))
            {
                throw new InvalidDataException($"{child} reported a case it was not asked for: '{result.Name}'.");
            }

            if (!seen.Add(result.Name))
            {
                throw new InvalidDataException($"{child} reported {result.Name} twice.");
            }

            results.Add(result);
        }

        if (results.Count == 0)
        {
            throw new InvalidDataException($"{child} reported no case (its output had {lines.Count} lines).");
        }

        string[] missing = [.. expected.Where(e => !seen.Contains(e))];
        if (missing.Length > 0)
        {
            throw new InvalidDataException($"{child} did not report {string.Join(", ", missing)}.");
        }

        return results;
    }

    /// <summary>The Markdown tables: per case B/A, then per build each case against its baseline.</summary>
    /// <param name="builds">Per case, the builds compared.</param>
    /// <param name="baselines">Per build and case, against the baseline.</param>
    /// <returns>The Markdown.</returns>
    public static string Tables(IReadOnlyList<CaseComparison> builds, IReadOnlyList<BaselineComparison> baselines)
    {
        ArgumentNullException.ThrowIfNull(builds);
        ArgumentNullException.ThrowIfNull(baselines);
        var text = new StringBuilder();
        text.AppendLine("Build B against build A (per case, the median of the pairs' ratios B/A; below 1: B is faster):");
        text.AppendLine();
        text.AppendLine("| case | pairs | A (median) | B (median) | B/A | 95% interval | difference shown |");
        text.AppendLine("| --- | ---: | ---: | ---: | ---: | ---: | --- |");
        foreach (CaseComparison c in builds)
        {
            text.AppendLine(string.Create(
                CultureInfo.InvariantCulture,
                $"| {c.Case} | {c.BOverA.Pairs} | {PairedRuns.Format(c.MedianA)} | {PairedRuns.Format(c.MedianB)} | {c.BOverA.Median:0.000} | [{c.BOverA.Low:0.000}, {c.BOverA.High:0.000}] | {Shown(c.BOverA)} |"));
        }

        text.AppendLine();
        text.AppendLine("Each case against its baseline in the same child (per build, the median over its children of time / baseline's time):");
        text.AppendLine();
        text.AppendLine("| case | baseline | A: ratio | A: 95% interval | B: ratio | B: 95% interval |");
        text.AppendLine("| --- | --- | ---: | ---: | ---: | ---: |");
        foreach (var group in baselines.GroupBy(b => (b.Case, b.Baseline)))
        {
            BaselineComparison? a = group.FirstOrDefault(b => b.Build == 'A');
            BaselineComparison? b = group.FirstOrDefault(b => b.Build == 'B');
            text.AppendLine(CultureInfo.InvariantCulture, $"| {group.Key.Case} | {group.Key.Baseline} | {Ratio(a)} | {Interval(a)} | {Ratio(b)} | {Interval(b)} |");
        }

        return text.ToString();

        static string Ratio(BaselineComparison? c) => c is null ? "" : string.Create(CultureInfo.InvariantCulture, $"{c.ToBaseline.Median:0.000}");
        static string Interval(BaselineComparison? c) => c is null ? "" : string.Create(CultureInfo.InvariantCulture, $"[{c.ToBaseline.Low:0.000}, {c.ToBaseline.High:0.000}]");
    }

    private static string Shown(PairedRatios ratio) =>
        ratio.Pairs < InstrumentationBenchCommand.MinimumPairsForInterval ? "too few pairs" : ratio.ContainsOne ? "no" : "yes";

    private static int RunPairs(Settings settings, CliHost host)
    {
        DateTimeOffset started = host.Time.GetUtcNow();
        string folder = settings.Out ?? Path.Combine(CommonOptions.AdHocRoot, $"bench-pairs-{started:yyyyMMdd-HHmmss}");
        if (Directory.Exists(folder) && Directory.EnumerateFileSystemEntries(folder).Any())
        {
            host.Error.WriteLine($"error: --out {folder} exists and is not empty; results are never overwritten.");
            return CommandActions.BadInput;
        }

        var programs = new Dictionary<char, string> { ['A'] = Path.GetFullPath(settings.A!), ['B'] = Path.GetFullPath(settings.B!) };
        string[] expected = [.. FlatWorkloads.Cases.Select(c => c.Name).Where(n => settings.Only is null || settings.Only.Contains(n))];
        string[] childArguments =
        [
            ChildCommand,
            "--warmup", settings.Warmup.ToString("R", CultureInfo.InvariantCulture),
            "--seconds", settings.Seconds.ToString("R", CultureInfo.InvariantCulture),
            "--workers", settings.Workers.ToString(CultureInfo.InvariantCulture),
            .. settings.Only is null ? [] : (string[])["--only", string.Join(',', expected)],
        ];

        Directory.CreateDirectory(folder);
        string load = PairedRuns.LoadAverage();
        host.Output.WriteLine(string.Create(
            CultureInfo.InvariantCulture,
            $"bench-pairs: {settings.Pairs} pairs, {expected.Length} cases, {settings.Warmup:0.##} s warm-up and {settings.Seconds:0.##} s timed per case and child, to {folder} (load average {load})"));
        var rows = new List<(int Pair, int Order, char Build, string Case, double Nanoseconds, int Batches)>();
        for (int pair = 1; pair <= settings.Pairs; pair++)
        {
            char[] order = pair % 2 == 1 ? ['A', 'B'] : ['B', 'A'];
            for (int position = 0; position < 2; position++)
            {
                char build = order[position];
                string child = $"pair {pair} build {build}";
                var stopwatch = Stopwatch.StartNew();
                string[] lines = PairedRuns.RunDotnet(["exec", programs[build], .. childArguments], ChildTimeout, $"{child} ({programs[build]})");
                var results = ReadChild(lines, expected, child);
                foreach (var (name, nanoseconds, batches) in results)
                {
                    rows.Add((pair, position + 1, build, name, nanoseconds, batches));
                }

                host.Output.WriteLine(string.Create(
                    CultureInfo.InvariantCulture,
                    $"pair {pair}/{settings.Pairs} {build} {stopwatch.Elapsed.TotalSeconds,5:0.0} s  {string.Join("  ", results.Select(r => $"{r.Case} {PairedRuns.Format(r.Nanoseconds)}"))}"));
            }
        }

        string loadAfter = PairedRuns.LoadAverage();
        DateTimeOffset ended = host.Time.GetUtcNow();
        var runs = rows.Select(r => new BuildRun(r.Pair, r.Build, r.Case, r.Nanoseconds)).ToList();
        var builds = BuildComparison.CompareBuilds(runs);
        var baselines = BuildComparison.CompareToBaselines(runs, FlatWorkloads.Cases.ToDictionary(c => c.Name, c => c.Baseline, StringComparer.Ordinal));
        string tables = Tables(builds, baselines);
        WriteFiles(folder, settings, host, rows, builds, baselines, tables, started, ended, load, loadAfter);
        host.Output.WriteLine();
        host.Output.Write(tables);
        host.Output.WriteLine($"Written: {folder}");
        return 0;
    }

    private static void WriteFiles(
        string folder,
        Settings settings,
        CliHost host,
        List<(int Pair, int Order, char Build, string Case, double Nanoseconds, int Batches)> rows,
        IReadOnlyList<CaseComparison> builds,
        IReadOnlyList<BaselineComparison> baselines,
        string tables,
        DateTimeOffset started,
        DateTimeOffset ended,
        string load,
        string loadAfter)
    {
        var runs = new StringBuilder("pair,order,build,case,ns_per_call,batches\n");
        foreach (var r in rows)
        {
            runs.Append(CultureInfo.InvariantCulture, $"{r.Pair},{r.Order},{r.Build},{r.Case},{r.Nanoseconds:F1},{r.Batches}\n");
        }

        File.WriteAllText(Path.Combine(folder, "runs.csv"), runs.ToString());
        var summary = new StringBuilder("kind,build,case,baseline,n,median_ratio,ci95_low,ci95_high,median_a_ns,median_b_ns\n");
        foreach (CaseComparison c in builds)
        {
            summary.Append(CultureInfo.InvariantCulture, $"b/a,,{c.Case},,{c.BOverA.Pairs},{c.BOverA.Median:F4},{c.BOverA.Low:F4},{c.BOverA.High:F4},{c.MedianA:F1},{c.MedianB:F1}\n");
        }

        foreach (BaselineComparison b in baselines)
        {
            summary.Append(CultureInfo.InvariantCulture, $"to-baseline,{b.Build},{b.Case},{b.Baseline},{b.ToBaseline.Pairs},{b.ToBaseline.Median:F4},{b.ToBaseline.Low:F4},{b.ToBaseline.High:F4},,\n");
        }

        File.WriteAllText(Path.Combine(folder, "summary.csv"), summary.ToString());
        File.WriteAllText(Path.Combine(folder, "summary.md"), tables);

        var readme = new StringBuilder();
        readme.AppendLine("# Two builds' flat cases: paired comparison");
        readme.AppendLine();
        readme.AppendLine("Command:");
        readme.AppendLine();
        readme.AppendLine("```");
        readme.AppendLine(settings.Command ?? host.CommandLine);
        readme.AppendLine("```");
        readme.AppendLine();
        readme.AppendLine(CultureInfo.InvariantCulture, $"- A: {settings.ACommit ?? settings.A}");
        readme.AppendLine(CultureInfo.InvariantCulture, $"- B: {settings.BCommit ?? settings.B}");
        readme.AppendLine(CultureInfo.InvariantCulture, $"- Timing program (bench/Runtimes and the harness workload files it links, compiled against each build's libraries): {settings.ProgramCommit ?? GitInfo.ShortCommit()}");
        readme.AppendLine(string.Create(CultureInfo.InvariantCulture, $"- Date (UTC): {started:yyyy-MM-dd HH:mm} to {ended:HH:mm}"));
        readme.AppendLine(CultureInfo.InvariantCulture, $"- Machine: {CpuInfo.ReadModelName()}, {Environment.ProcessorCount} logical CPUs, {RuntimeInformation.OSDescription}");
        readme.AppendLine(CultureInfo.InvariantCulture, $"- Runtime: {RuntimeInformation.FrameworkDescription} (the children run on the same `dotnet`)");
        readme.AppendLine(CultureInfo.InvariantCulture, $"- Load average (1, 5, 15 min) at the start: {load}; at the end: {loadAfter}");
        readme.AppendLine(string.Create(CultureInfo.InvariantCulture, $"- {settings.Pairs} pairs of child processes; per case and child {settings.Warmup:0.##} s warm-up, then {settings.Seconds:0.##} s timed in batches of about {BatchTiming.BatchSeconds * 1000:0} ms; DivCon's schedulers with {settings.Workers} workers"));
        readme.AppendLine();
        readme.AppendLine("Each pair runs one child of build A and one of build B back to back, A first in odd pairs and B first in even");
        readme.AppendLine("ones, so a machine whose speed drifts between minutes slows both alike. Each child times every case (after its");
        readme.AppendLine("warm-up, which lets tiered compilation finish) and reports the median time per call over its batches. B/A is");
        readme.AppendLine("taken within each pair; a case against its baseline within each child. The tables give the median of those");
        readme.AppendLine("ratios with its 95% percentile bootstrap interval (10,000 resamples). An interval that contains 1 shows no");
        readme.AppendLine("difference at this resolution; its width is the resolution (with fewer than 6 pairs it is not read at all).");
        readme.AppendLine("`runs.csv` has every child's times, `summary.csv` and `summary.md` the tables.");
        readme.AppendLine();
        readme.Append(tables);
        readme.AppendLine();
        readme.AppendLine("Cases:");
        readme.AppendLine();
        foreach (FlatCase c in FlatWorkloads.Cases.Where(c => settings.Only is null || settings.Only.Contains(c.Name)))
        {
            readme.AppendLine(CultureInfo.InvariantCulture, $"- `{c.Name}`: {c.Description}{(c.Baseline == c.Name ? " (baseline)" : "")}");
        }

        File.WriteAllText(Path.Combine(folder, "README.md"), readme.ToString());
    }

    private static Settings Parse(string[] arguments)
    {
        var settings = new Settings();
        for (int i = 0; i < arguments.Length; i++)
        {
            string option = arguments[i];
            if (option == ValidateFlag)
            {
                settings = settings with { Validate = true };
                continue;
            }

            if (i + 1 >= arguments.Length)
            {
                throw new ArgumentException($"{option} needs a value.");
            }

            string value = arguments[++i];
            settings = option switch
            {
                "--a" => settings with { A = BuildPath(option, value) },
                "--b" => settings with { B = BuildPath(option, value) },
                "--a-commit" => settings with { ACommit = value },
                "--b-commit" => settings with { BCommit = value },
                "--program-commit" => settings with { ProgramCommit = value },
                "--command" => settings with { Command = value },
                "--pairs" => settings with { Pairs = int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out int pairs) && pairs is >= 2 and <= 1000 ? pairs : throw new ArgumentException($"--pairs must be a whole number from 2 to 1000, got '{value}'.") },
                "--seconds" => settings with { Seconds = Seconds(option, value, 0.01) },
                "--warmup" => settings with { Warmup = Seconds(option, value, 0) },
                "--workers" => settings with { Workers = int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out int workers) && workers is >= 1 and <= 1024 ? workers : throw new ArgumentException($"--workers must be a whole number from 1 to 1024, got '{value}'.") },
                "--out" => settings with { Out = string.IsNullOrWhiteSpace(value) ? throw new ArgumentException("--out needs a folder, got ''.") : value },
                "--only" => settings with { Only = Names(value) },
                _ => throw new ArgumentException($"unknown option '{option}' (--pairs, --seconds, --warmup, --workers, --only, --out; --a and --b name the builds)."),
            };
        }

        if (!settings.Validate && (settings.A is null || settings.B is null))
        {
            throw new ArgumentException("--a and --b name the two builds' DivCon.Bench.Runtimes.dll (scripts/bench-pairs.sh builds them).");
        }

        return settings;
    }

    private static string BuildPath(string option, string value) =>
        File.Exists(value) ? value : throw new ArgumentException($"{option} must name a built DivCon.Bench.Runtimes.dll, got '{value}' (no such file).");

    private static double Seconds(string option, string value, double minimum) =>
        double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds) && seconds >= minimum && seconds <= 600
            ? seconds
            : throw new ArgumentException(string.Create(CultureInfo.InvariantCulture, $"{option} must be a number of seconds from {minimum} to 600, got '{value}'."));

    private static HashSet<string> Names(string value) => PairedRuns.OnlyNames(value, FlatWorkloads.Cases.Select(c => c.Name), "cases");

    private sealed record Settings
    {
        public string? A { get; init; }

        public string? B { get; init; }

        public string? ACommit { get; init; }

        public string? BCommit { get; init; }

        public string? ProgramCommit { get; init; }

        public string? Command { get; init; }

        public int Pairs { get; init; } = 10;

        public double Seconds { get; init; } = 1;

        public double Warmup { get; init; } = 1;

        public int Workers { get; init; } = 2;

        public HashSet<string>? Only { get; init; }

        public string? Out { get; init; }

        public bool Validate { get; init; }
    }
}
