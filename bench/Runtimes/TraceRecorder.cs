using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using DivCon.Programs;
using DivCon.Schedulers;
using DivCon.Skeletons;
using DivCon.Skeletons.Tracing;

namespace DivCon.Bench.Runtimes;

/// <summary>
/// <c>trace</c>: records task trees (<c>.dctree</c>) on the runtime this program is started on, so that the simulator
/// can replay the relative task costs of that runtime (Mono's, the reference thesis's runtime, through the net48
/// build). The recording is the harness's <c>trace</c> command's: per program one unrecorded warm-up run, then
/// <c>--repeat</c> recorded runs on an affinity scheduler of <c>--workers</c> workers; every node gets its median
/// durations when the runs cut the same tree, else the median run's recording is kept. Files are named
/// <c>{program}-w{workers}-g{granularity cores}.dctree</c>, the names <c>simulate --trace-dir</c> looks for, and
/// carry the same properties plus <c>runtime</c>.
/// </summary>
internal static class TraceRecorder
{
    /// <summary>Records every program of <paramref name="options"/>; one line per file on <paramref name="log"/>.</summary>
    /// <returns>The files written.</returns>
    public static IReadOnlyList<string> Run(TraceOptions options, TextWriter log)
    {
        Directory.CreateDirectory(options.OutFolder);
        var written = new List<string>();
        using var scheduler = new AffinityTaskScheduler(options.Workers);
        foreach (string name in options.Programs)
        {
            BenchmarkProgram program = options.Size > 0
                ? ProgramCatalog.Create(name, options.Size, options.Seed)
                : ProgramCatalog.Create(name, options.Preset, options.Seed);
            string canonical = ProgramCatalog.Find(name).Name;
            int leavesPerWorker = (int)Math.Max(1, Math.Ceiling(Granularity.DefaultLeavesPerWorker * (double)options.GranularityCores / options.Workers));
            // time: the project's default granularity (by measured time) with its leaf-count floor sized for the target
            // machine, as the harness's trace command; leaves: the leaf count alone (4 leaves per target core), the
            // rule the reference thesis configured.
            program.Granularity = options.ByLeafCount
                ? Granularity.ByLeafCount(leavesPerWorker)
                : Granularity.Automatic(Granularity.DefaultMinimumTaskCost, Granularity.DefaultMaximumTaskDuration, leavesPerWorker);
            program.RunParallelAsync(scheduler).GetAwaiter().GetResult();
            var trees = new List<TaskTree>(options.Repeat);
            var seconds = new List<double>(options.Repeat);
            for (int i = 0; i < options.Repeat; i++)
            {
                var recorder = new TaskTreeRecorder();
                var watch = Stopwatch.StartNew();
                program.RunParallelAsync(scheduler, observer: recorder).GetAwaiter().GetResult();
                seconds.Add(watch.Elapsed.TotalSeconds);
                program.VerifyOrThrow();
                trees.Add(recorder.ToTree());
            }

            int medianRun = Enumerable.Range(0, seconds.Count).OrderBy(i => seconds[i]).ElementAt((seconds.Count - 1) / 2);
            var properties = new Dictionary<string, string>(StringComparer.Ordinal)
            {
                ["program"] = canonical,
                ["size"] = program.ProblemSize.ToString(CultureInfo.InvariantCulture),
                ["preset"] = options.Size > 0 ? "Custom" : options.Preset.ToString(),
                ["seed"] = options.Seed.ToString(CultureInfo.InvariantCulture),
                ["workers"] = options.Workers.ToString(CultureInfo.InvariantCulture),
                ["granularityCores"] = options.GranularityCores.ToString(CultureInfo.InvariantCulture),
                ["granularity"] = program.Granularity.ToString(),
                ["effectiveGranularity"] = program.EffectiveGranularity.ToString(CultureInfo.InvariantCulture),
                ["runSeconds"] = seconds[medianRun].ToString("R", CultureInfo.InvariantCulture),
                ["recordedRuns"] = options.Repeat.ToString(CultureInfo.InvariantCulture),
                ["recordedUtc"] = DateTime.UtcNow.ToString("O", CultureInfo.InvariantCulture),
                ["machine"] = string.Create(CultureInfo.InvariantCulture, $"{Environment.ProcessorCount} CPUs, {RuntimeInformation.OSDescription.Trim()}"),
                ["runtime"] = RuntimeInformation.FrameworkDescription,
            };
            TaskTree tree;
            try
            {
                tree = TaskTree.Median(trees);
            }
            catch (ArgumentException)
            {
                tree = trees[medianRun];
                properties["note"] = string.Create(CultureInfo.InvariantCulture, $"shapes differed between runs: the median run's recording (run {medianRun + 1} of {trees.Count}) kept, no per-node median");
            }

            string path = Path.Combine(options.OutFolder, string.Create(CultureInfo.InvariantCulture, $"{canonical}-w{options.Workers}-g{options.GranularityCores}{TaskTreeFile.Extension}"));
            TaskTreeFile.Write(path, new TaskTree(tree.Nodes, properties).WithNestedRuns(tree.NestedRuns));
            log.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"{path}: {tree.Nodes.Count} nodes, {tree.LeafCount} leaves, run {seconds[medianRun]:0.000} s, work {tree.TotalWork / 1e9:0.000} s ({RuntimeInformation.FrameworkDescription})"));
            written.Add(path);
        }

        return written;
    }
}

/// <summary>The command line of <c>trace</c> (see README.md beside this file).</summary>
internal sealed class TraceOptions
{
    public IReadOnlyList<string> Programs { get; private set; } = ["strassen-thesis", "quicksort-thesis", "mergesort-thesis"];

    public SizePreset Preset { get; private set; } = SizePreset.Quick;

    /// <summary>An explicit size for every program; 0 means the preset's.</summary>
    public long Size { get; private set; }

    public int Seed { get; private set; } = ProgramCatalog.DefaultSeed;

    public int Workers { get; private set; } = 1;

    public int GranularityCores { get; private set; } = 1;

    public bool ByLeafCount { get; private set; }

    public int Repeat { get; private set; } = 3;

    public string OutFolder { get; private set; } = "";

    /// <summary>Parses <paramref name="args"/> (the words after <c>trace</c>).</summary>
    /// <exception cref="ArgumentException">An option is unknown, lacks its value or has a bad value (named with the value).</exception>
    public static TraceOptions Parse(IReadOnlyList<string> args)
    {
        var options = new TraceOptions();
        for (int i = 0; i < args.Count; i++)
        {
            string name = args[i];
            string Value() => i + 1 < args.Count ? args[++i] : throw new ArgumentException($"Option {name} needs a value.", nameof(args));
            switch (name)
            {
                case "--programs":
                    options.Programs = [.. Value().Split(',').Select(p => p.Trim()).Where(p => p.Length > 0)];
                    foreach (string p in options.Programs.Where(p => !ProgramCatalog.TryFind(p, out _)))
                    {
                        throw new ArgumentException($"--programs: unknown program '{p}' (known: {string.Join(", ", ProgramCatalog.Names)}).", nameof(args));
                    }

                    break;
                case "--size":
                    string size = Value();
                    if (size is "quick" or "thesis")
                    {
                        options.Preset = size == "thesis" ? SizePreset.Thesis : SizePreset.Quick;
                    }
                    else
                    {
                        options.Size = long.TryParse(size, NumberStyles.None, CultureInfo.InvariantCulture, out long n) && n > 0
                            ? n
                            : throw new ArgumentException($"--size must be quick, thesis or a positive whole number, not '{size}'.", nameof(args));
                    }

                    break;
                case "--seed": options.Seed = Whole(name, Value(), int.MinValue, int.MaxValue); break;
                case "--workers": options.Workers = Whole(name, Value(), 1, Environment.ProcessorCount); break;
                case "--granularity-cores": options.GranularityCores = Whole(name, Value(), 1, 4096); break;
                case "--granularity":
                    string rule = Value();
                    options.ByLeafCount = rule switch
                    {
                        "time" => false,
                        "leaves" => true,
                        _ => throw new ArgumentException($"--granularity must be time or leaves, not '{rule}'.", nameof(args)),
                    };
                    break;
                case "--repeat": options.Repeat = Whole(name, Value(), 1, 100); break;
                case "--out": options.OutFolder = Value(); break;
                default: throw new ArgumentException($"Unknown option '{name}'.", nameof(args));
            }
        }

        if (options.OutFolder.Length == 0)
        {
            throw new ArgumentException("trace needs --out FOLDER.", nameof(args));
        }

        if (options.Programs.Count == 0)
        {
            throw new ArgumentException("--programs names no program.", nameof(args));
        }

        return options;
    }

    private static int Whole(string name, string value, int min, int max) =>
        int.TryParse(value, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int n) && n >= min && n <= max
            ? n
            : throw new ArgumentException($"{name} must be a whole number in [{min}, {max}], not '{value}'.", nameof(value));
}
