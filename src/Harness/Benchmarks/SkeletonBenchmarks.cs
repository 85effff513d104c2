using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using DivCon.Schedulers;
using DivCon.Skeletons;

namespace DivCon.Harness.Benchmarks;

/// <summary>
/// The cost of the skeleton itself: a fine tree of 2^16 leaves (2^17 - 1 nodes) whose muscles are trivial (the sum
/// of 16 ints per leaf, halving splits, an addition per merge), so that almost all the time and memory is task
/// machinery. The DivCon engines are compared with the recursions a C# developer writes by hand, with exactly the
/// same leaves (16 elements) and the same halving:
/// <list type="bullet">
/// <item><see cref="TaskRunAwait"/> (the baseline): <c>Task.Run</c> the left half, recurse into the right half on
/// the current thread, <c>await</c> both; the asynchronous idiom, and like DivCon it never blocks a thread;</item>
/// <item><see cref="ParallelInvoke"/>: <c>Parallel.Invoke</c> on the two halves, the synchronous idiom (it runs one
/// action itself and may inline the other; waiting threads block);</item>
/// <item><see cref="Sequential"/>: the same recursion with no tasks (the work alone).</item>
/// </list>
/// Everything in the <c>Default</c> category runs on <see cref="TaskScheduler.Default"/>; the <c>DivConSchedulers</c>
/// category runs the continuation engine on DivCon's own schedulers (one worker per logical CPU).
/// </summary>
/// <remarks>
/// <para>
/// Fairness to the .NET thread pool: one tree takes a few milliseconds, comparable to the pool's thread injection and
/// wake-up latencies, so every invocation launches <see cref="LaunchesPerInvoke"/> trees one after another
/// (<c>OperationsPerInvoke</c> divides the time back to one tree), and <see cref="Setup"/> runs every variant a few
/// times before BenchmarkDotNet's own warm-up so that the pool has its threads and every method has been through
/// tiered compilation. The pool's minimum thread count is left at its default (the logical CPU count), as a user
/// would have it.
/// </para>
/// <para>
/// An earlier baseline built the whole tree on the calling thread and joined pairs of leaf tasks with
/// <c>ContinueWhenAll</c>: no one writes that, and its ratios are not comparable with these.
/// </para>
/// <para>
/// External peer: the package feed this project builds from serves no third-party work-stealing
/// <see cref="TaskScheduler"/> (no ParallelExtensionsExtras or similar), so the peers are the .NET pool and the
/// naive locked-queue scheduler of <see cref="SchedulerBenchmarks"/>.
/// </para>
/// </remarks>
[MemoryDiagnoser]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
[CategoriesColumn]
#pragma warning disable CA1001 // BenchmarkDotNet owns the lifetime: the schedulers are disposed in [GlobalCleanup].
public class SkeletonBenchmarks
#pragma warning restore CA1001
{
    /// <summary>Elements per leaf.</summary>
    public const int LeafSize = TreeWorkloads.LeafSize;

    /// <summary>Leaves of the tree.</summary>
    public const int Leaves = 1 << 16;

    /// <summary>Trees run one after another in one invocation (BenchmarkDotNet divides by this).</summary>
    public const int LaunchesPerInvoke = 4;

    private const string OnDefault = "Default";
    private const string OnDivCon = "DivConSchedulers";
    private const int SetupRuns = 8;

    private int[] _data = [];
    private long _expected;
    private DivideAndConquer<IndexRange, long> _program = null!;
    private DivideAndConquerOptions _forkJoinOptions = null!;
    private DivideAndConquerOptions _workStealingOptions = null!;
    private DivideAndConquerOptions _affinityOptions = null!;
    private WorkStealingTaskScheduler? _workStealing;
    private AffinityTaskScheduler? _affinity;

    /// <summary>Fills the data, builds the program and the schedulers, and warms every variant.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _data = TreeWorkloads.Data(Leaves * LeafSize);

        _expected = TreeWorkloads.SequentialSum(_data, 0, _data.Length);
        // Every node a task, as the hand-written versions: this suite measures the task machinery, not serial elision.
        _program = new TreeWorkloads.RangeSum(_data) { Granularity = Granularity.EveryNodeATask };
        _forkJoinOptions = DivideAndConquerOptions.Default with { Engine = ExecutionEngine.ForkJoin };
        _workStealing = new WorkStealingTaskScheduler(Environment.ProcessorCount);
        _affinity = new AffinityTaskScheduler(Environment.ProcessorCount);
        _workStealingOptions = DivideAndConquerOptions.Default with { Scheduler = _workStealing };
        _affinityOptions = DivideAndConquerOptions.Default with { Scheduler = _affinity };

        // Warm the pool's threads and every code path; also checks that every variant computes the same sum.
        Func<long>[] variants = [TaskRunAwait, ParallelInvoke, ContinuationEngine, ForkJoinEngine, ContinuationOnWorkStealing, ContinuationOnAffinity];
        for (int run = 0; run < SetupRuns; run++)
        {
            foreach (Func<long> variant in variants)
            {
                long sum = variant();
                if (sum != _expected * LaunchesPerInvoke)
                {
                    throw new InvalidOperationException($"A variant computed {sum}, expected {_expected * LaunchesPerInvoke}.");
                }
            }
        }
    }

    /// <summary>Stops DivCon's schedulers.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _workStealing?.Dispose();
        _affinity?.Dispose();
    }

    /// <summary><c>Task.Run</c> for one half, recursion for the other, <c>await</c> both: the asynchronous idiom.</summary>
    /// <returns>The sum over all launches.</returns>
    [Benchmark(Baseline = true, OperationsPerInvoke = LaunchesPerInvoke)]
    [BenchmarkCategory(OnDefault)]
    public long TaskRunAwait()
    {
        long total = 0;
        for (int i = 0; i < LaunchesPerInvoke; i++)
        {
            total += Task.Run(() => FlatWorkloads.TaskRunSumAsync(_data, 0, _data.Length, LeafSize)).GetAwaiter().GetResult();
        }

        return total;
    }

    /// <summary><c>Parallel.Invoke</c> on the two halves at every level: the synchronous idiom.</summary>
    /// <returns>The sum over all launches.</returns>
    [Benchmark(OperationsPerInvoke = LaunchesPerInvoke)]
    [BenchmarkCategory(OnDefault)]
    public long ParallelInvoke()
    {
        long total = 0;
        for (int i = 0; i < LaunchesPerInvoke; i++)
        {
            total += FlatWorkloads.ParallelInvokeSum(_data, 0, _data.Length, LeafSize);
        }

        return total;
    }

    /// <summary>The skeleton's default engine on <see cref="TaskScheduler.Default"/>.</summary>
    /// <returns>The sum over all launches.</returns>
    [Benchmark(OperationsPerInvoke = LaunchesPerInvoke)]
    [BenchmarkCategory(OnDefault)]
    public long ContinuationEngine() => RunProgram(DivideAndConquerOptions.Default);

    /// <summary>The skeleton's blocking engine on <see cref="TaskScheduler.Default"/>.</summary>
    /// <returns>The sum over all launches.</returns>
    [Benchmark(OperationsPerInvoke = LaunchesPerInvoke)]
    [BenchmarkCategory(OnDefault)]
    public long ForkJoinEngine() => RunProgram(_forkJoinOptions);

    /// <summary>The same recursion without tasks.</summary>
    /// <returns>The sum over all launches.</returns>
    [Benchmark(OperationsPerInvoke = LaunchesPerInvoke)]
    [BenchmarkCategory(OnDefault)]
    public long Sequential()
    {
        long total = 0;
        for (int i = 0; i < LaunchesPerInvoke; i++)
        {
            total += TreeWorkloads.SequentialSum(_data, 0, _data.Length);
        }

        return total;
    }

    /// <summary>The continuation engine on <see cref="WorkStealingTaskScheduler"/> (unpinned).</summary>
    /// <returns>The sum over all launches.</returns>
    [Benchmark(Baseline = true, OperationsPerInvoke = LaunchesPerInvoke)]
    [BenchmarkCategory(OnDivCon)]
    public long ContinuationOnWorkStealing() => RunProgram(_workStealingOptions);

    /// <summary>The continuation engine on <see cref="AffinityTaskScheduler"/> (pinned).</summary>
    /// <returns>The sum over all launches.</returns>
    [Benchmark(OperationsPerInvoke = LaunchesPerInvoke)]
    [BenchmarkCategory(OnDivCon)]
    public long ContinuationOnAffinity() => RunProgram(_affinityOptions);

    private long RunProgram(DivideAndConquerOptions options)
    {
        long total = 0;
        for (int i = 0; i < LaunchesPerInvoke; i++)
        {
            total += _program.RunAsync(new IndexRange(0, _data.Length), options).GetAwaiter().GetResult();
        }

        return total;
    }
}
