using System.Runtime;
using System.Runtime.InteropServices;
using DivCon.Programs;
using DivCon.Schedulers;
using DivCon.Skeletons;

namespace DivCon.Bench.Runtimes;

/// <summary>
/// The timing loop: each variant runs its warm-ups, then its repetitions, each after a full collection (so that one
/// repetition's garbage is not collected in the next), counting the collections and pause time inside it.
/// </summary>
internal sealed class Runner(Options options, TextWriter log)
{
    private readonly List<ResultRow> _rows = [];

    /// <summary>The runtime as reported (Mono's display name on Mono), with its GC mode.</summary>
    public static string RuntimeDescription
    {
        get
        {
            string gc = GCSettings.IsServerGC ? "server GC" : "workstation GC";
            return $"{RuntimeInformation.FrameworkDescription.Trim()} ({RuntimeInformation.ProcessArchitecture}, {gc})";
        }
    }

    /// <summary>Runs the chosen cases; returns their rows.</summary>
    public IReadOnlyList<ResultRow> Run()
    {
        log.WriteLine($"{options.Label}: {RuntimeDescription}, {Environment.ProcessorCount} CPUs, {options.Repetitions} repetitions after {options.Warmups} warm-ups (speedup: {options.SpeedupRepetitions} pairs after one)");
        if (options.Cases.Contains("skeleton"))
        {
            RunSkeleton();
        }

        if (options.Cases.Contains("tree"))
        {
            RunTree();
        }

        if (options.Cases.Contains("speedup"))
        {
            RunSpeedup();
        }

        return _rows;
    }

    private void RunSkeleton()
    {
        string name = $"skeleton: {(2 * options.Leaves) - 1} nodes, every node a task";
        int workers = Environment.ProcessorCount;
        using var affinity = new AffinityTaskScheduler(workers);
        Measure(name, "sequential recursion (no tasks)", "ns/node", Workloads.SkeletonTree(options.Leaves, options.Launches, null));
        Measure(name, "continuation engine, thread pool", "ns/node", Workloads.SkeletonTree(options.Leaves, options.Launches, DivideAndConquerOptions.Default));
        Measure(name, "fork-join engine, thread pool", "ns/node", Workloads.SkeletonTree(options.Leaves, options.Launches, DivideAndConquerOptions.Default with { Engine = ExecutionEngine.ForkJoin }));
        Measure(name, $"continuation engine, affinity ({workers} workers)", "ns/node", Workloads.SkeletonTree(options.Leaves, options.Launches, DivideAndConquerOptions.Default with { Scheduler = affinity }));
    }

    private void RunTree()
    {
        string name = $"task tree: {(1 << (options.TreeDepth + 1)) - 1} tasks";
        int workers = Environment.ProcessorCount;
        using var workStealing = new WorkStealingTaskScheduler(workers);
        using var affinity = new AffinityTaskScheduler(workers);
        Measure(name, "thread pool", "ms/tree", Workloads.TaskTree(TaskScheduler.Default, options.TreeDepth));
        Measure(name, $"work-stealing ({workers} workers)", "ms/tree", Workloads.TaskTree(workStealing, options.TreeDepth));
        Measure(name, $"affinity ({workers} workers)", "ms/tree", Workloads.TaskTree(affinity, options.TreeDepth));
    }

    private void RunSpeedup()
    {
        BenchmarkProgram program = options.Size > 0
            ? ProgramCatalog.Create(options.Program, options.Size)
            : ProgramCatalog.Create(options.Program, SizePreset.Thesis);
        string name = $"{program.Name} {program.ProblemSize}: affinity scheduler, 1 vs {options.Workers} workers";
        using var one = new AffinityTaskScheduler(1);
        using var several = new AffinityTaskScheduler(options.Workers);
        // One warm-up pair (a thesis-size run takes seconds; one is enough for every method to be compiled), then a
        // verification (both schedulers have run it by then).
        Workloads.RunProgram(program, one);
        Workloads.RunProgram(program, several);
        program.VerifyOrThrow();

        // Paired repetitions, the order alternating, so that drift (heat, other load) weighs on both sides alike.
        var single = new List<double>();
        var parallel = new List<double>();
        var speedups = new List<double>();
        var singleGc = new List<GcCounters>();
        var parallelGc = new List<GcCounters>();
        for (int rep = 0; rep < options.SpeedupRepetitions; rep++)
        {
            bool singleFirst = rep % 2 == 0;
            (double t, GcCounters gc) first = Timed(() => Workloads.RunProgram(program, singleFirst ? one : several));
            (double t, GcCounters gc) second = Timed(() => Workloads.RunProgram(program, singleFirst ? several : one));
            var (s, p) = singleFirst ? (first, second) : (second, first);
            single.Add(s.t);
            singleGc.Add(s.gc);
            parallel.Add(p.t);
            parallelGc.Add(p.gc);
            speedups.Add(s.t / p.t);
            log.WriteLine($"  rep {rep + 1}: 1 worker {s.t:F3} s, {options.Workers} workers {p.t:F3} s, speedup {s.t / p.t:F3}");
        }

        Add(name, "1 worker", "s", single, singleGc);
        Add(name, $"{options.Workers} workers", "s", parallel, parallelGc);
        Add(name, $"speedup (1 worker / {options.Workers} workers, paired)", "x", speedups, null);
    }

    private void Measure(string caseName, string variant, string unit, Func<double> once)
    {
        // At least the warm-up count and at least the warm-up time: .NET's tiered compilation recompiles hot methods
        // only after some calls and a quiet delay, so a few short warm-ups could time unoptimised code.
        var warming = System.Diagnostics.Stopwatch.StartNew();
        for (int i = 0; i < options.Warmups || (options.Warmups > 0 && warming.ElapsedMilliseconds < options.WarmupMilliseconds); i++)
        {
            once();
        }

        var values = new List<double>();
        var gcs = new List<GcCounters>();
        for (int rep = 0; rep < options.Repetitions; rep++)
        {
            (double value, GcCounters gc) = Timed(once);
            values.Add(value);
            gcs.Add(gc);
        }

        Add(caseName, variant, unit, values, gcs);
    }

    private static (double Value, GcCounters Gc) Timed(Func<double> once)
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        GcCounters start = GcCounters.Now();
        double value = once();
        return (value, GcCounters.Now().Since(start));
    }

    private void Add(string caseName, string variant, string unit, List<double> values, List<GcCounters>? gcs)
    {
        Summary s = Summary.Of(values);
        double? pause = gcs is null || !GcCounters.ReportsPause ? null : gcs.Average(g => g.Pause!.Value.TotalMilliseconds);
        var row = new ResultRow(
            options.Label,
            RuntimeDescription,
            caseName,
            variant,
            unit,
            s.Count,
            s.Mean,
            s.HalfWidth99,
            s.StandardDeviation,
            s.Min,
            s.Max,
            gcs?.Average(g => g.Gen0) ?? 0,
            gcs?.Average(g => g.Gen1) ?? 0,
            gcs?.Average(g => g.Gen2) ?? 0,
            pause);
        _rows.Add(row);
        log.WriteLine($"  {caseName} | {variant}: {s.Mean:G4} {unit} +- {s.HalfWidth99:G3} (99%), min {s.Min:G4}, max {s.Max:G4}");
    }
}
