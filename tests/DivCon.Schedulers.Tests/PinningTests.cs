using DivCon.Schedulers.Platform;
using DivCon.Schedulers.Topology;
using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Tests;

/// <summary>Pinning on the real machine (reading masks back needs Linux; elsewhere those tests are skipped).</summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class PinningTests
{
    [SkippableFact]
    public void Each_worker_is_pinned_to_exactly_its_cpu()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "Reading a thread's mask back needs Linux.");

        CpuTopology topology = CpuTopologyDetector.Detect();
        using var scheduler = new AffinityTaskScheduler(topology, topology.CpuIds);
        int workers = scheduler.WorkerCount;
        using var barrier = new Barrier(workers);
        // Every task waits at a barrier for all the others, so each runs on a different worker.
        var reports = Enumerable.Range(0, workers).Select(_ => scheduler.Start(() =>
        {
            Assert.True(barrier.SignalAndWait(TestSchedulers.Timeout), "Not every worker took a task.");
            return (Name: Thread.CurrentThread.Name!, Mask: ThreadAffinity.GetCurrentThreadAffinity());
        })).ToArray();

        Task.WhenAll(reports).AssertCompletes();
        Assert.True(scheduler.IsPinned);
        Assert.Equal(topology.CpuIds, scheduler.PinnedCpus);
        Assert.Equal(workers, reports.Select(r => r.Result.Name).Distinct().Count());
        foreach (var (name, mask) in reports.Select(r => r.Result))
        {
            int index = int.Parse(name["DivCon worker ".Length..], System.Globalization.CultureInfo.InvariantCulture);
            Assert.Equal([scheduler.PinnedCpus[index]], mask);
        }

        Assert.Equal(scheduler.PinnedCpus, scheduler.WorkerStatistics.Select(w => w.CpuId!.Value));
    }

    [SkippableFact]
    public void Pinning_to_a_cpu_outside_the_allowed_set_fails_naming_the_cpu()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "The error code checked is Linux's.");
        const int Missing = 4000;
        ThreadAffinityException? error = null;
        // A thread of our own: pinning the test runner's thread would leak into other tests.
        var thread = new Thread(() => error = Assert.Throws<ThreadAffinityException>(() => ThreadAffinity.PinCurrentThread(Missing)));
        thread.Start();

        Assert.True(thread.Join(TestSchedulers.Timeout));
        Assert.NotNull(error);
        Assert.Equal(Missing, error.CpuId);
        Assert.Equal(22, error.ErrorCode); // EINVAL: no allowed CPU in the mask.
        Assert.Contains("4000", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Cpu_ids_not_in_the_topology_are_rejected_before_any_thread_starts()
    {
        CpuTopology topology = CpuTopologyDetector.Detect();

        var error = Assert.Throws<ArgumentException>(() => new AffinityTaskScheduler(topology, [9998, 9999]));

        Assert.Equal("cpuIds", error.ParamName);
        Assert.Contains("9998, 9999", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_pinned_thread_reads_back_its_single_cpu_mask()
    {
        if (!OperatingSystem.IsLinux())
        {
            Assert.Throws<PlatformNotSupportedException>(() => ThreadAffinity.GetCurrentThreadAffinity());
            return;
        }

        IReadOnlyList<int> allowed = ThreadAffinity.GetProcessAllowedCpus();
        int target = allowed[^1];
        IReadOnlyList<int>? before = null, after = null;
        // A thread of our own: pinning the test runner's thread would leak into other tests.
        var thread = new Thread(() =>
        {
            before = ThreadAffinity.GetCurrentThreadAffinity();
            ThreadAffinity.PinCurrentThread(target);
            after = ThreadAffinity.GetCurrentThreadAffinity();
        });
        thread.Start();

        Assert.True(thread.Join(TestSchedulers.Timeout));
        Assert.True(ThreadAffinity.IsSupported);
        Assert.Equal(allowed, before);
        Assert.Equal([target], after);
    }

    [Fact]
    public void Negative_cpu_ids_are_rejected() =>
        Assert.Throws<ArgumentOutOfRangeException>(() => ThreadAffinity.PinCurrentThread(-1));

    [SkippableFact]
    public void Convenience_constructor_uses_the_chosen_strategy()
    {
        Skip.IfNot(ThreadAffinity.IsSupported, "Pinning is not supported on this operating system.");

        CpuTopology topology = CpuTopologyDetector.Detect();
        using var scheduler = new AffinityTaskScheduler(1, CpuAllocationStrategy.Contiguous);

        Assert.Equal(CpuAllocation.Contiguous(topology, 1), scheduler.PinnedCpus);
        Assert.Equal(1, scheduler.WorkerCount);
    }
}
