using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Profiles;
using DivCon.Schedulers.Multiprogram.Profiling;
using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>The scalability profiler on a cheap fake workload: shape, keys and store reuse (never timings).</summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class MechanismProfilerTests
{
    private int _parallelRuns;
    private int _sequentialRuns;

    [Theory]
    [InlineData(1, new[] { 1 })]
    [InlineData(2, new[] { 1, 2 })]
    [InlineData(8, new[] { 1, 2, 4, 8 })]
    [InlineData(12, new[] { 1, 2, 4, 8, 12 })]
    public void Default_core_counts_are_powers_of_two_and_the_cpu_count(int cpus, int[] expected) =>
        Assert.Equal(expected, ScalabilityProfiler.DefaultCoreCounts(cpus));

    [Fact]
    public async Task A_profile_has_one_timing_per_core_count_and_is_stored_and_reused()
    {
        CpuTopology topology = CpuTopologyDetector.Detect();
        var store = new ScalabilityProfileStore();
        var profiler = new ScalabilityProfiler(topology, repetitions: 2, store: store);
        int[] counts = [.. ScalabilityProfiler.DefaultCoreCounts(topology.Count)];

        ScalabilityProfile profile = await profiler.GetOrMeasureAsync("fake", "64", Sequential, Parallel);

        Assert.Equal("fake", profile.ProgramName);
        Assert.Equal("64", profile.ProblemSize);
        Assert.Equal(counts, profile.ParallelTimes.Select(t => t.Cores));
        Assert.Equal(counts, profile.Speedups.Points.Select(p => p.Cores));
        Assert.All(profile.Speedups.Points, p => Assert.True(p.Speedup > 0 && double.IsFinite(p.Speedup)));
        Assert.True(profile.SequentialTime > TimeSpan.Zero);
        Assert.Equal(counts.Length * 3, _parallelRuns); // Warm-up + 2 timed runs per core count.
        Assert.Equal(3, _sequentialRuns);
        Assert.True(store.TryGet("fake", "64", out ScalabilityProfile? stored));
        Assert.Same(profile, stored);

        // Reused: nothing runs again, and the profile registers a program.
        ScalabilityProfile again = await profiler.GetOrMeasureAsync("fake", "64", Sequential, Parallel);
        Assert.Same(profile, again);
        Assert.Equal(counts.Length * 3, _parallelRuns);
        using var scheduler = MechanismSchedulers.Unpinned(2);
        using ProgramTaskScheduler program = scheduler.Register("fake", profile);
        Assert.Same(profile.Speedups, program.Scalability);

        // Another size is another key.
        await profiler.GetOrMeasureAsync("fake", "128", null, Parallel, [1]);
        Assert.Equal(2, store.Count);
    }

    [Fact]
    public async Task Without_a_sequential_run_the_one_core_run_stands_in_for_it()
    {
        var profiler = new ScalabilityProfiler(CpuTopology.Uniform(1, 4), repetitions: 1, schedulerFactory: n => new WorkStealingTaskScheduler(n));
        Assert.False(profiler.IsPinned);
        ScalabilityProfile profile = await profiler.MeasureAsync("fake", "1", null, Parallel, [1, 4]);
        Assert.Equal(1.0, profile.Speedups.SpeedupAt(1), 12);
        Assert.Equal(0, _sequentialRuns);
    }

    [Fact]
    public async Task Bad_input_is_rejected()
    {
        var profiler = new ScalabilityProfiler(CpuTopology.Uniform(1, 2), repetitions: 1, schedulerFactory: n => new WorkStealingTaskScheduler(n));
        await Assert.ThrowsAsync<ArgumentException>("coreCounts", () => profiler.MeasureAsync("p", "1", null, Parallel, [3]));
        await Assert.ThrowsAsync<ArgumentException>("coreCounts", () => profiler.MeasureAsync("p", "1", null, Parallel, [1, 1]));
        await Assert.ThrowsAsync<ArgumentException>("programName", () => profiler.MeasureAsync(" ", "1", null, Parallel));
        Assert.Throws<ArgumentOutOfRangeException>("repetitions", () => new ScalabilityProfiler(CpuTopology.Uniform(1, 2), repetitions: 0));
    }

    private Task Sequential(CancellationToken cancellationToken)
    {
        Interlocked.Increment(ref _sequentialRuns);
        for (int i = 0; i < 64; i++)
        {
            Thread.SpinWait(100);
        }

        return Task.CompletedTask;
    }

    private Task Parallel(TaskScheduler scheduler, CancellationToken cancellationToken)
    {
        Interlocked.Increment(ref _parallelRuns);
        return Task.WhenAll(Enumerable.Range(0, 64).Select(_ => Task.Factory.StartNew(
            () => Thread.SpinWait(100), cancellationToken, TaskCreationOptions.None, scheduler)));
    }
}
