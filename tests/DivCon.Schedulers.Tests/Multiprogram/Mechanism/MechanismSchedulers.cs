using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Multiprogram;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>Builds multiprogram schedulers for the mechanism tests.</summary>
internal static class MechanismSchedulers
{
    /// <summary>Unpinned workers, an explicit policy, and no interval decisions unless asked for.</summary>
    public static MultiprogramScheduler Unpinned(
        int workers, IAllocationPolicy? policy = null, TimeSpan? interval = null, bool lending = true) =>
        new(new MultiprogramSchedulerOptions
        {
            Pin = false,
            WorkerCount = workers,
            Policy = policy ?? new EqualSharePolicy(),
            RebalanceInterval = interval ?? Timeout.InfiniteTimeSpan,
            EnableLending = lending,
        });

    /// <summary>Asserts that the owners in a snapshot match the allocations and cover every worker.</summary>
    public static void AssertOwnershipConsistent(MultiprogramScheduler scheduler)
    {
        IReadOnlyList<WorkerAssignment> workers = scheduler.GetWorkerAssignments();
        IReadOnlyList<ProgramTaskScheduler> programs = scheduler.Programs;
        Assert.Equal(scheduler.WorkerCount, workers.Count);
        if (programs.Count == 0)
        {
            Assert.All(workers, w => Assert.Null(w.Owner));
            return;
        }

        Assert.All(workers, w => Assert.Contains(w.Owner!.Value, programs.Select(p => p.ProgramId)));
        foreach (ProgramTaskScheduler program in programs)
        {
            Assert.Equal(program.CurrentCores, workers.Count(w => w.Owner == program.ProgramId));
        }
    }
}
