using System.Diagnostics;
using DivCon.Schedulers.Multiprogram.Profiles;
using DivCon.Schedulers.Platform;
using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Multiprogram.Profiling;

/// <summary>
/// Measures a program's scalability: its sequential time and its parallel time on several core counts, each the
/// mean of <see cref="Repetitions"/> runs after one untimed warm-up run, on an <see cref="AffinityTaskScheduler"/>
/// pinned to the first n CPUs in contiguous order. The result is a <see cref="ScalabilityProfile"/>, optionally
/// kept in a <see cref="ScalabilityProfileStore"/> keyed by program name and problem size so that later runs reuse it
/// (<see cref="GetOrMeasureAsync"/>).
/// </summary>
/// <remarks>
/// <para>
/// <b>Sequential time.</b> Given a sequential run, it is timed on the calling thread. Without one, the 1-core
/// parallel run (one pinned worker) stands in for it, so the speedups then include the task overhead (the
/// 1-core speedup is 1 by definition).
/// </para>
/// <para>
/// <b>Where pinning is unsupported</b> the parallel runs use a <see cref="WorkStealingTaskScheduler"/> with n
/// unpinned workers, and <see cref="IsPinned"/> says so. A scheduler factory can also be given (tests).
/// </para>
/// <example>
/// <code>
/// var profiler = new ScalabilityProfiler(store: ScalabilityProfileFile.Load("profiles.json"));
/// ScalabilityProfile profile = await profiler.GetOrMeasureAsync("quicksort", "1000000",
///     ct => { SortSequentially(); return Task.CompletedTask; },
///     (scheduler, ct) => SortInParallelAsync(scheduler, ct));
/// using var program = multiprogram.Register("quicksort", profile);
/// </code>
/// </example>
/// <para><b>Warning.</b> Timings are only as good as the machine is quiet; run it alone.</para>
/// </remarks>
public sealed class ScalabilityProfiler
{
    private readonly Func<int, TaskScheduler> _createScheduler;

    /// <summary>Creates a profiler.</summary>
    /// <param name="topology">The CPUs to measure on; null = the detected (allowed) CPUs.</param>
    /// <param name="repetitions">Timed runs per configuration (at least 1; default 3).</param>
    /// <param name="store">Where <see cref="GetOrMeasureAsync"/> looks profiles up and keeps new ones; null = none.</param>
    /// <param name="schedulerFactory">
    /// Builds the scheduler for n cores (it is disposed after use when disposable); null = affinity scheduler on
    /// the first n contiguous CPUs (or unpinned workers where pinning is unsupported).
    /// </param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="repetitions"/> is below 1.</exception>
    public ScalabilityProfiler(
        CpuTopology? topology = null, int repetitions = 3, ScalabilityProfileStore? store = null, Func<int, TaskScheduler>? schedulerFactory = null)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(repetitions, 1);
        Topology = topology ?? CpuTopologyDetector.Detect();
        Repetitions = repetitions;
        Store = store;
        IsPinned = schedulerFactory is null && ThreadAffinity.IsSupported;
        _createScheduler = schedulerFactory ?? CreateDefaultScheduler;
    }

    /// <summary>The CPUs measured on.</summary>
    public CpuTopology Topology { get; }

    /// <summary>Timed runs per configuration.</summary>
    public int Repetitions { get; }

    /// <summary>The store used by <see cref="GetOrMeasureAsync"/>, if any.</summary>
    public ScalabilityProfileStore? Store { get; }

    /// <summary>Whether the parallel runs use pinned workers.</summary>
    public bool IsPinned { get; }

    /// <summary>The default core counts: powers of two up to the CPU count, plus the CPU count itself.</summary>
    /// <param name="cpuCount">The number of CPUs (at least 1).</param>
    /// <returns>Ascending distinct core counts, starting at 1 and ending at <paramref name="cpuCount"/>.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="cpuCount"/> is below 1.</exception>
    public static IReadOnlyList<int> DefaultCoreCounts(int cpuCount)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(cpuCount, 1);
        var counts = new List<int>();
        for (int n = 1; n < cpuCount; n *= 2)
        {
            counts.Add(n);
        }

        counts.Add(cpuCount);
        return counts;
    }

    /// <summary>Returns the stored profile for (name, size) when there is one; otherwise measures, stores and returns it.</summary>
    /// <param name="programName">The program's name (store key).</param>
    /// <param name="problemSize">The problem size (store key).</param>
    /// <param name="runSequential">One sequential run, or null to use the 1-core parallel run.</param>
    /// <param name="runParallel">One parallel run on the given scheduler.</param>
    /// <param name="coreCounts">Core counts to measure; null = <see cref="DefaultCoreCounts"/>.</param>
    /// <param name="cancellationToken">Stops between runs (and is passed to the runs).</param>
    /// <returns>The profile.</returns>
    /// <exception cref="ArgumentException">A name or size is empty, or a core count is out of range.</exception>
    public async Task<ScalabilityProfile> GetOrMeasureAsync(
        string programName,
        string problemSize,
        Func<CancellationToken, Task>? runSequential,
        Func<TaskScheduler, CancellationToken, Task> runParallel,
        IEnumerable<int>? coreCounts = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(programName);
        ArgumentException.ThrowIfNullOrWhiteSpace(problemSize);
        if (Store is not null && Store.TryGet(programName, problemSize, out ScalabilityProfile? stored))
        {
            return stored;
        }

        ScalabilityProfile profile = await MeasureAsync(
            programName, problemSize, runSequential, runParallel, coreCounts, cancellationToken).ConfigureAwait(false);
        Store?.Set(profile);
        return profile;
    }

    /// <summary>Measures a profile (never looks in the store).</summary>
    /// <param name="programName">The program's name.</param>
    /// <param name="problemSize">The problem size.</param>
    /// <param name="runSequential">One sequential run, or null to use the 1-core parallel run.</param>
    /// <param name="runParallel">One parallel run on the given scheduler.</param>
    /// <param name="coreCounts">Core counts to measure (1 to the CPU count); null = <see cref="DefaultCoreCounts"/>.</param>
    /// <param name="cancellationToken">Stops between runs (and is passed to the runs).</param>
    /// <returns>The profile.</returns>
    /// <exception cref="ArgumentException">A name or size is empty, or a core count is out of range or repeated.</exception>
    /// <exception cref="ArgumentNullException"><paramref name="runParallel"/> is null.</exception>
    public async Task<ScalabilityProfile> MeasureAsync(
        string programName,
        string problemSize,
        Func<CancellationToken, Task>? runSequential,
        Func<TaskScheduler, CancellationToken, Task> runParallel,
        IEnumerable<int>? coreCounts = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(programName);
        ArgumentException.ThrowIfNullOrWhiteSpace(problemSize);
        ArgumentNullException.ThrowIfNull(runParallel);
        int[] counts = [.. (coreCounts ?? DefaultCoreCounts(Topology.Count)).Order()];
        if (counts.Length == 0 || counts[0] < 1 || counts[^1] > Topology.Count || counts.Distinct().Count() != counts.Length)
        {
            throw new ArgumentException(
                $"Core counts [{string.Join(", ", counts)}] must be distinct, non-empty and within 1..{Topology.Count}.", nameof(coreCounts));
        }

        var timings = new List<CoreTiming>(counts.Length);
        foreach (int cores in counts)
        {
            TimeSpan mean = await TimeOnCoresAsync(cores, runParallel, cancellationToken).ConfigureAwait(false);
            timings.Add(new CoreTiming(cores, mean));
        }

        TimeSpan sequential;
        if (runSequential is not null)
        {
            sequential = await TimeAsync(runSequential, cancellationToken).ConfigureAwait(false);
        }
        else if (timings[0].Cores == 1)
        {
            sequential = timings[0].Time;
        }
        else
        {
            sequential = await TimeOnCoresAsync(1, runParallel, cancellationToken).ConfigureAwait(false);
        }

        return ScalabilityProfile.FromTimings(
            programName,
            problemSize,
            sequential,
            timings,
            $"{Environment.MachineName}: {Topology}, {(IsPinned ? "pinned" : "unpinned")}, {Environment.OSVersion}",
            DateTimeOffset.UtcNow);
    }

    private async Task<TimeSpan> TimeOnCoresAsync(
        int cores, Func<TaskScheduler, CancellationToken, Task> runParallel, CancellationToken cancellationToken)
    {
        TaskScheduler scheduler = _createScheduler(cores);
        try
        {
            return await TimeAsync(ct => runParallel(scheduler, ct), cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            (scheduler as IDisposable)?.Dispose();
        }
    }

    private async Task<TimeSpan> TimeAsync(Func<CancellationToken, Task> run, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        await run(cancellationToken).ConfigureAwait(false); // Warm-up: JIT, caches, deque growth.
        long total = 0;
        for (int i = 0; i < Repetitions; i++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            long start = Stopwatch.GetTimestamp();
            await run(cancellationToken).ConfigureAwait(false);
            total += Stopwatch.GetTimestamp() - start;
        }

        // At least one tick, so that a run too quick for the clock still yields a positive time.
        return TimeSpan.FromTicks(Math.Max(1, (long)((double)total / Repetitions / Stopwatch.Frequency * TimeSpan.TicksPerSecond)));
    }

    private TaskScheduler CreateDefaultScheduler(int cores) =>
        ThreadAffinity.IsSupported
            ? new AffinityTaskScheduler(Topology, CpuAllocation.Contiguous(Topology, cores))
            : new WorkStealingTaskScheduler(cores);
}
