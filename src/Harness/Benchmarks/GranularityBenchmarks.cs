using System.Collections.Concurrent;
using BenchmarkDotNet.Attributes;
using DivCon.Schedulers;
using DivCon.Skeletons;

namespace DivCon.Harness.Benchmarks;

/// <summary>
/// Granularity by time at a moderate grain: the sum of 2^24 ints split in halves down to 256-element leaves (2^16
/// leaves of well under a microsecond each), written as four lambdas and run by DivCon under the default
/// <see cref="Granularity.Automatic()"/> on its own schedulers and the thread pool, against the sequential loop (the
/// baseline), a plain depth-first recursion of the same four functions, and the idiomatic TPL versions with the same
/// leaves (<see cref="Parallel.Invoke(Action[])"/> recursion, <see cref="Task.Run(Func{Task})"/> + <c>await</c>
/// recursion) or with TPL's own chunks (<see cref="Parallel.ForEach{TSource}(Partitioner{TSource}, Action{TSource})"/>
/// over a range partitioner).
/// </summary>
/// <remarks>
/// Goals on 2 cores: DivCon on its schedulers at most 0.55x the sequential loop and at most 0.6x the
/// <c>Parallel.Invoke</c> recursion. Run: <c>dotnet run -c Release --project src/Harness -- bench --filter '*GranularityBenchmarks*'</c>.
/// </remarks>
[MemoryDiagnoser]
[MinColumn] // Under load the minimum is the steadiest figure: preemption only ever adds time.
#pragma warning disable CA1001 // BenchmarkDotNet owns the lifetime: the schedulers are disposed in [GlobalCleanup].
public class GranularityBenchmarks
#pragma warning restore CA1001
{
    /// <summary>Elements summed.</summary>
    public const int Length = FlatWorkloads.SumLength;

    /// <summary>Elements per leaf.</summary>
    public const int LeafSize = FlatWorkloads.SumLeafSize;

    private int[] _data = [];
    private DivideAndConquer<IndexRange, long> _program = null!;
    private WorkStealingTaskScheduler? _workStealing;
    private AffinityTaskScheduler? _affinity;
    private DivideAndConquerOptions _onWorkStealing = null!;
    private DivideAndConquerOptions _onAffinity = null!;

    /// <summary>Fills the data, builds the program and starts the schedulers once.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _data = GranularityWorkloads.Data(Length);
        _program = GranularityWorkloads.SumProgram(_data, LeafSize);
        _workStealing = new WorkStealingTaskScheduler(2);
        _affinity = new AffinityTaskScheduler(2);
        _onWorkStealing = DivideAndConquerOptions.Default with { Scheduler = _workStealing };
        _onAffinity = DivideAndConquerOptions.Default with { Scheduler = _affinity };
    }

    /// <summary>Stops the schedulers.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _workStealing?.Dispose();
        _affinity?.Dispose();
    }

    /// <summary>One loop over all the elements.</summary>
    /// <returns>The sum.</returns>
    [Benchmark(Baseline = true)]
    public long SequentialLoop() => GranularityWorkloads.SumRange(_data, 0, _data.Length);

    /// <summary>The program's four lambdas called by a plain depth-first recursion: no tasks, no skeleton.</summary>
    /// <returns>The sum.</returns>
    [Benchmark]
    public long PlainRecursion() => GranularityWorkloads.Recurse(GranularityWorkloads.SumFunctions(_data, LeafSize), new IndexRange(0, _data.Length), 0);

    /// <summary>DivCon on its work-stealing scheduler with 2 workers.</summary>
    /// <returns>The sum.</returns>
    [Benchmark]
    public long DivConWorkStealing2() => _program.RunAsync(new IndexRange(0, _data.Length), _onWorkStealing).GetAwaiter().GetResult();

    /// <summary>DivCon on its CPU-pinned scheduler with 2 workers.</summary>
    /// <returns>The sum.</returns>
    [Benchmark]
    public long DivConAffinity2() => _program.RunAsync(new IndexRange(0, _data.Length), _onAffinity).GetAwaiter().GetResult();

    /// <summary>DivCon on the .NET thread pool.</summary>
    /// <returns>The sum.</returns>
    [Benchmark]
    public long DivConThreadPool() => _program.RunAsync(new IndexRange(0, _data.Length)).GetAwaiter().GetResult();

    /// <summary>Halving recursion with <see cref="Parallel.Invoke(Action[])"/> at every node, the same leaves.</summary>
    /// <returns>The sum.</returns>
    [Benchmark]
    public long ParallelInvokeRecursion() => FlatWorkloads.ParallelInvokeSum(_data, 0, _data.Length, LeafSize);

    /// <summary>Halving recursion with <see cref="Task.Run(Func{Task})"/> and <c>await</c> at every node, the same leaves.</summary>
    /// <returns>The sum.</returns>
    [Benchmark]
    public long TaskRunAwaitRecursion() => FlatWorkloads.TaskRunSumAsync(_data, 0, _data.Length, LeafSize).GetAwaiter().GetResult();

    /// <summary><see cref="Parallel.ForEach{TSource}(Partitioner{TSource}, Action{TSource})"/> over TPL's default range partitioner, with per-thread sums.</summary>
    /// <returns>The sum.</returns>
    [Benchmark]
    public long ParallelForRangePartitioner() => FlatWorkloads.ParallelForEachSum(_data);
}

/// <summary>
/// How far two threads can go on the 2^24 sum at all: the sequential loop of the granularity benchmarks against the
/// same loop hand-split into two halves on two threads (no skeleton, no tasks besides the one
/// <see cref="Parallel.Invoke(Action[])"/>), and both again with a vectorised loop. If two plain threads cannot reach
/// 0.55x of one, the sum is memory-bandwidth bound on the machine and no scheduling can reach that goal.
/// </summary>
/// <remarks>Run: <c>dotnet run -c Release --project src/Harness -- bench --filter '*SumBandwidthBenchmarks*' --job short</c>.</remarks>
[MemoryDiagnoser]
[MinColumn] // Under load the minimum is the steadiest figure: preemption only ever adds time.
public class SumBandwidthBenchmarks
{
    private int[] _data = [];

    /// <summary>Fills the data.</summary>
    [GlobalSetup]
    public void Setup() => _data = GranularityWorkloads.Data(GranularityBenchmarks.Length);

    /// <summary>The leaf loop of the granularity benchmarks over all the elements, on one thread.</summary>
    /// <returns>The sum.</returns>
    [Benchmark(Baseline = true)]
    public long SequentialLoop() => GranularityWorkloads.SumRange(_data, 0, _data.Length);

    /// <summary>The same loop over the two halves on two threads.</summary>
    /// <returns>The sum.</returns>
    [Benchmark]
    public long TwoThreadsHandSplit() => TwoHalves(_data, GranularityWorkloads.SumRange);

    /// <summary>A vectorised loop over all the elements, on one thread.</summary>
    /// <returns>The sum.</returns>
    [Benchmark]
    public long VectorisedLoop() => GranularityWorkloads.SumRangeVectorised(_data, 0, _data.Length);

    /// <summary>The vectorised loop over the two halves on two threads.</summary>
    /// <returns>The sum.</returns>
    [Benchmark]
    public long VectorisedTwoThreadsHandSplit() => TwoHalves(_data, GranularityWorkloads.SumRangeVectorised);

    private static long TwoHalves(int[] data, Func<int[], int, int, long> sum)
    {
        int middle = data.Length / 2;
        long left = 0;
        long right = 0;
        Parallel.Invoke(() => left = sum(data, 0, middle), () => right = sum(data, middle, data.Length));
        return left + right;
    }
}

/// <summary>
/// Every node a potential task: the 2^24 sum with 16-element leaves, and fib(32) with <c>shouldSplit: n &gt; 1</c>
/// (every call a node). The baseline is the same four lambdas called by a plain depth-first recursion; DivCon runs
/// them under the default <see cref="Granularity.Automatic()"/>, which learns that small subtrees are cheaper than a
/// task and runs them inline.
/// </summary>
/// <remarks>
/// <para>
/// Goals: on 2 workers DivCon at most 0.6x the plain recursion; on 1 worker at most 1.15x. The idiomatic TPL
/// recursions are left out here: with a task or an invoke per node they would create millions of tasks per run.
/// Run: <c>dotnet run -c Release --project src/Harness -- bench --filter '*FineGranularityBenchmarks*'</c>.
/// </para>
/// <para>
/// What two threads can reach at all: <see cref="PlainRecursionTwoCopies"/> runs two copies of the plain recursion at
/// once on two threads and reports the time per copy, so its ratio is the machine's ceiling for a perfect 2-way
/// split of the same work (shared caches, memory bandwidth, the garbage collector's pauses, which stop both
/// threads). A DivCon ratio near that ceiling leaves nothing to the scheduling; one well above it is lost in the
/// skeleton or the scheduler. Each benchmark process also prints, when it ends, a <c>// fine-grain diagnostics</c>
/// line: per run, the garbage collections and their pause time, and for DivCon the tasks, steals and parks of
/// the scheduler it ran on.
/// </para>
/// </remarks>
[MemoryDiagnoser]
[MinColumn] // Under load the minimum is the steadiest figure: preemption only ever adds time.
#pragma warning disable CA1001 // BenchmarkDotNet owns the lifetime: the schedulers are disposed in [GlobalCleanup].
public class FineGranularityBenchmarks
#pragma warning restore CA1001
{
    private int[] _data = [];
    private Func<long> _plain = null!;
    private Func<DivideAndConquerOptions, long> _divCon = null!;
    private WorkStealingTaskScheduler? _oneWorker;
    private WorkStealingTaskScheduler? _workStealing;
    private AffinityTaskScheduler? _affinity;
    private DivideAndConquerOptions _onOneWorker = null!;
    private DivideAndConquerOptions _onWorkStealing = null!;
    private DivideAndConquerOptions _onAffinity = null!;

    // Created at the first run (after the setup's allocations), so the counts below are the runs' own.
    private FineGrainDiagnostics? _diagnostics;

    /// <summary>The workload.</summary>
    [ParamsAllValues]
    public FineWorkload Workload { get; set; }

    /// <summary>Builds the workload and starts the schedulers once.</summary>
    [GlobalSetup]
    public void Setup()
    {
        switch (Workload)
        {
            case FineWorkload.Sum16:
            {
                _data = GranularityWorkloads.Data(GranularityBenchmarks.Length);
                var functions = GranularityWorkloads.SumFunctions(_data, 16);
                var program = GranularityWorkloads.SumProgram(_data, 16);
                var root = new IndexRange(0, _data.Length);
                _plain = () => GranularityWorkloads.Recurse(functions, root, 0);
                _divCon = options => program.RunAsync(root, options).GetAwaiter().GetResult();
                break;
            }

            case FineWorkload.Fib32:
            {
                var functions = GranularityWorkloads.FibFunctions();
                var program = GranularityWorkloads.FibProgram();
                _plain = () => GranularityWorkloads.Recurse(functions, 32, 0);
                _divCon = options => program.RunAsync(32, options).GetAwaiter().GetResult();
                break;
            }

            case FineWorkload.Sum16Binary:
            {
                _data = GranularityWorkloads.Data(GranularityBenchmarks.Length);
                var functions = GranularityWorkloads.BinarySumFunctions(_data, 16);
                var program = GranularityWorkloads.BinaryProgram(functions);
                var root = new IndexRange(0, _data.Length);
                _plain = () => GranularityWorkloads.Recurse(functions, root, 0);
                _divCon = options => program.RunAsync(root, options).GetAwaiter().GetResult();
                break;
            }

            default:
            {
                var functions = GranularityWorkloads.BinaryFibFunctions();
                var program = GranularityWorkloads.BinaryProgram(functions);
                _plain = () => GranularityWorkloads.Recurse(functions, 32, 0);
                _divCon = options => program.RunAsync(32, options).GetAwaiter().GetResult();
                break;
            }
        }

        _oneWorker = new WorkStealingTaskScheduler(1);
        _workStealing = new WorkStealingTaskScheduler(2);
        _affinity = new AffinityTaskScheduler(2);
        _onOneWorker = DivideAndConquerOptions.Default with { Scheduler = _oneWorker };
        _onWorkStealing = DivideAndConquerOptions.Default with { Scheduler = _workStealing };
        _onAffinity = DivideAndConquerOptions.Default with { Scheduler = _affinity };
    }

    /// <summary>Prints the diagnostics line, then stops the schedulers.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        Console.WriteLine(_diagnostics?.Report(_oneWorker, _workStealing, _affinity));
        _oneWorker?.Dispose();
        _workStealing?.Dispose();
        _affinity?.Dispose();
    }

    /// <summary>The four lambdas called by a plain depth-first recursion.</summary>
    /// <returns>The result.</returns>
    [Benchmark(Baseline = true)]
    public long PlainRecursion() => Counted(_plain);

    /// <summary>
    /// Two copies of <see cref="PlainRecursion"/> at once on two threads, reported per copy: the ratio a perfect
    /// split of the work over two workers could reach on this machine.
    /// </summary>
    /// <returns>The sum of the two results.</returns>
    [Benchmark(OperationsPerInvoke = 2)]
    public long PlainRecursionTwoCopies()
    {
        long first = 0;
        long second = 0;
        Counted(() =>
        {
            Parallel.Invoke(() => first = _plain(), () => second = _plain());
            return 0;
        });
        return first + second;
    }

    /// <summary>DivCon on its work-stealing scheduler with 1 worker.</summary>
    /// <returns>The result.</returns>
    [Benchmark]
    public long DivConWorkStealing1() => Counted(() => _divCon(_onOneWorker));

    /// <summary>DivCon on its work-stealing scheduler with 2 workers.</summary>
    /// <returns>The result.</returns>
    [Benchmark]
    public long DivConWorkStealing2() => Counted(() => _divCon(_onWorkStealing));

    /// <summary>DivCon on its CPU-pinned scheduler with 2 workers.</summary>
    /// <returns>The result.</returns>
    [Benchmark]
    public long DivConAffinity2() => Counted(() => _divCon(_onAffinity));

    /// <summary>DivCon on the .NET thread pool.</summary>
    /// <returns>The result.</returns>
    [Benchmark]
    public long DivConThreadPool() => Counted(() => _divCon(DivideAndConquerOptions.Default));

    private long Counted(Func<long> run)
    {
        _diagnostics ??= new FineGrainDiagnostics();
        _diagnostics.Runs++;
        return run();
    }
}

/// <summary>
/// Per-run counts of one benchmark process of <see cref="FineGranularityBenchmarks"/> (BenchmarkDotNet runs each
/// benchmark in its own process, so they belong to one method), from the first run to the cleanup: warm-up and
/// pilot runs included, which have the same shape as the measured ones.
/// </summary>
internal sealed class FineGrainDiagnostics
{
    private readonly int _gen0 = GC.CollectionCount(0);
    private readonly TimeSpan _pause = GC.GetTotalPauseDuration();

    /// <summary>Runs so far (incremented on the benchmark's thread only).</summary>
    public long Runs { get; set; }

    /// <summary>The line printed at cleanup: GC per run, and the statistics of each DivCon scheduler that ran tasks.</summary>
    /// <param name="schedulers">The benchmark's schedulers (null ones are skipped).</param>
    /// <returns>The line.</returns>
    public string Report(params WorkerPoolTaskScheduler?[] schedulers)
    {
        double runs = Math.Max(Runs, 1);
        var line = new System.Text.StringBuilder(FormattableString.Invariant(
            $"// fine-grain diagnostics: {Runs} runs; per run: gen0 GCs {(GC.CollectionCount(0) - _gen0) / runs:F1}, GC pause {(GC.GetTotalPauseDuration() - _pause).TotalMilliseconds / runs:F2} ms"));
        foreach (var scheduler in schedulers)
        {
            if (scheduler is null || scheduler.Statistics.TasksExecuted == 0)
            {
                continue;
            }

            var total = scheduler.Statistics;
            line.Append(FormattableString.Invariant(
                $"; {scheduler.GetType().Name}({total.WorkerCount}): tasks {total.TasksExecuted / runs:F0}, steals {total.Steals / runs:F1}, failed steals {total.FailedSteals / runs:F1}, parks {total.Parks / runs:F1}, tasks per worker"));
            foreach (var worker in scheduler.WorkerStatistics)
            {
                line.Append(FormattableString.Invariant($" {worker.TasksExecuted / runs:F0}"));
            }
        }

        return line.ToString();
    }
}

/// <summary>The workloads of <see cref="FineGranularityBenchmarks"/>.</summary>
public enum FineWorkload
{
    /// <summary>The 2^24 sum with 16-element leaves.</summary>
    Sum16,

    /// <summary>fib(32), every call a node.</summary>
    Fib32,

    /// <summary>
    /// <see cref="Sum16"/> written with <see cref="DivideAndConquer.CreateBinary{TProblem, TResult}"/>: the split
    /// returns its two halves as a pair and the merge receives two results, so neither the four functions nor the
    /// plain recursion that calls them allocate.
    /// </summary>
    Sum16Binary,

    /// <summary><see cref="Fib32"/> written with <see cref="DivideAndConquer.CreateBinary{TProblem, TResult}"/> (no allocation per node).</summary>
    Fib32Binary,
}
