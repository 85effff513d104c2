using DivCon.Schedulers.Platform;
using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Tests;

/// <summary>Builds schedulers for tests and names the bounded waits they use.</summary>
internal static class TestSchedulers
{
    /// <summary>Every wait in these tests is bounded by this (generous: the box is shared).</summary>
    public static readonly TimeSpan Timeout = TimeSpan.FromSeconds(30);

    public static TheoryData<SchedulerKind> Kinds => new() { SchedulerKind.WorkStealing, SchedulerKind.Affinity };

    /// <summary>
    /// A scheduler of the given kind with up to <paramref name="workers"/> workers (the affinity kind is capped at
    /// the allowed CPUs). Where pinning is unsupported the affinity kind skips the test (callers are skippable
    /// theories), rather than silently testing the unpinned kind a second time.
    /// </summary>
    public static WorkerPoolTaskScheduler Create(SchedulerKind kind, int workers = 2)
    {
        if (kind == SchedulerKind.Affinity)
        {
            Skip.IfNot(ThreadAffinity.IsSupported, "Pinning is not supported on this operating system.");
            CpuTopology topology = CpuTopologyDetector.Detect();
            return new AffinityTaskScheduler(topology, Math.Min(workers, topology.Count), CpuAllocationStrategy.Contiguous);
        }

        return new WorkStealingTaskScheduler(workers);
    }

    /// <summary>Raises <paramref name="target"/> to <paramref name="value"/> if that is larger (several tasks report at once).</summary>
    public static void InterlockedMax(ref int target, int value)
    {
        int seen = Volatile.Read(ref target);
        while (value > seen && Interlocked.CompareExchange(ref target, value, seen) is int now && now != seen)
        {
            seen = now;
        }
    }

    public static Task Start(this TaskScheduler scheduler, Action action) =>
        Task.Factory.StartNew(action, CancellationToken.None, TaskCreationOptions.None, scheduler);

    public static Task<T> Start<T>(this TaskScheduler scheduler, Func<T> function) =>
        Task.Factory.StartNew(function, CancellationToken.None, TaskCreationOptions.None, scheduler);

    public static void AssertCompletes(this Task task) =>
        Assert.True(task.Wait(Timeout), "The task did not complete within the test timeout.");

    public static bool IsWorkerThread => Thread.CurrentThread.Name?.StartsWith("DivCon worker ", StringComparison.Ordinal) == true;
}
