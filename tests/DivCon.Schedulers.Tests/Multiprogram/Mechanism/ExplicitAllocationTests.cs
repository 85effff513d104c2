using DivCon.Schedulers.Multiprogram.Decisions;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Platform;
using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>
/// What the scheduler accepts from its user: an explicit allocation never starves a program with queued tasks, a
/// policy is never mistaken for an explicit allocation by its name, and workers are pinned only to CPUs the process
/// may use.
/// </summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class ExplicitAllocationTests
{
    [Fact]
    public void Set_allocation_refuses_no_worker_for_a_program_with_queued_tasks()
    {
        // No lending: were a holder to run on the other program's lent worker, that program's standby would take its
        // CPU back after the handover bound and run the tasks this test needs queued (a race seen on Mono).
        using var scheduler = MechanismSchedulers.Unpinned(2, new EqualSharePolicy(), lending: false);
        using var a = scheduler.Register("a");
        using var b = scheduler.Register("b");
        using var gate = new ManualResetEventSlim();
        using var running = new CountdownEvent(2);
        // Each program's one worker is held by a task of its own, so b's next tasks stay queued.
        Task[] holders = [.. new[] { a, b }.Select(p => p.Start(() =>
        {
            running.Signal();
            gate.Wait(TestSchedulers.Timeout);
        }))];
        Assert.True(running.Wait(TestSchedulers.Timeout));
        Task[] queued = [.. Enumerable.Range(0, 3).Select(_ => b.Start(() => { }))];
        Assert.Equal(3, b.AvailableTasks);

        var error = Assert.Throws<ArgumentException>("cores", () => scheduler.SetAllocation([new(a, 2), new(b, 0)]));
        Assert.Contains($"Program {b}", error.Message, StringComparison.Ordinal);
        Assert.Contains("3 queued tasks", error.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>("cores", () => scheduler.SetAllocation([new(a, 2)])); // b unlisted: 0 as well
        Assert.Equal((1, 1), (a.CurrentCores, b.CurrentCores)); // Nothing was applied.

        // A program without queued tasks may get none (a's tasks run, none is queued).
        Assert.Equal(0, a.AvailableTasks);
        scheduler.SetAllocation([new(a, 0), new(b, 2)]);
        Assert.Equal((0, 2), (a.CurrentCores, b.CurrentCores));
        gate.Set();
        Assert.True(Task.WaitAll([.. holders, .. queued], TestSchedulers.Timeout));
    }

    [Fact]
    public void A_policy_named_override_is_still_guarded()
    {
        // Three busy programs on two cores: a policy that leaves one without a core is corrected by time sharing,
        // whatever the policy is called.
        var snapshot = new AllocationSnapshot(2, [
            new ProgramState(new ProgramId(0), 2, 5, 1), new ProgramState(new ProgramId(1), 1.5, 5, 1), new ProgramState(new ProgramId(2), 1.2, 5, 0)]);
        var decision = new AllocationDecision("override", snapshot, [2, 0, 0], usedFastPath: false, "a user policy that happens to be called override");

        AllocationDecision guarded = new StarvationGuard().Apply(decision);

        Assert.Equal([1, 0, 1], guarded.Cores);
        Assert.Contains("starvation guard", guarded.Explanation, StringComparison.Ordinal);
    }

    [SkippableFact]
    public void A_pinned_topology_naming_cpus_outside_the_process_is_refused_naming_them()
    {
        Skip.IfNot(ThreadAffinity.IsSupported, "Pinning is not supported on this operating system.");
        const int Missing = 4000;
        CpuTopology allowed = CpuTopologyDetector.Detect();
        var withMissing = new CpuTopology([.. allowed.Cpus, new LogicalCpu(Missing, 100_000, 0, 0, 0)]);

        // Refused before any worker starts, with the parameter and the offending CPU named.
        var error = Assert.Throws<ArgumentException>("options", () => new MultiprogramScheduler(new MultiprogramSchedulerOptions
        {
            Topology = withMissing,
            RebalanceInterval = Timeout.InfiniteTimeSpan,
        }));
        Assert.Contains("CPUs 4000 are outside", error.Message, StringComparison.Ordinal);
    }

    [SkippableFact]
    public void An_affinity_scheduler_on_a_topology_naming_cpus_outside_the_process_is_refused_naming_them()
    {
        Skip.IfNot(ThreadAffinity.IsSupported, "Pinning is not supported on this operating system.");
        const int Missing = 4000;
        CpuTopology allowed = CpuTopologyDetector.Detect();
        var withMissing = new CpuTopology([.. allowed.Cpus, new LogicalCpu(Missing, 100_000, 0, 0, 0)]);

        var error = Assert.Throws<ArgumentException>("cpuIds", () => new AffinityTaskScheduler(withMissing, [allowed.Cpus[0].Id, Missing]));
        Assert.Contains("CPUs 4000 are outside", error.Message, StringComparison.Ordinal);
    }
}
