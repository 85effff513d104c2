using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// Lent CPUs taken back from long tasks: a worker lent to another program returns at its next task boundary, so a
/// long task of the borrower would keep the lender's CPU for as long as it runs; the interval sweep hands such a CPU
/// to its standby, which serves the owner while the lent worker finishes that one task.
/// </summary>
public sealed partial class MultiprogramScheduler
{
    private long _reclaims;

    /// <summary>How many lent CPUs were taken back from a borrower's long task (arrivals of reclaim orders).</summary>
    internal long Reclaims => Interlocked.Read(ref _reclaims); // Atomic 64-bit read on every platform.

    /// <summary>
    /// Under the decision lock: for every CPU whose server is lent to another program and inside a task while the
    /// CPU's owner has queued tasks, issues a move to the same owner. The standard handover then applies (the
    /// multiprogram README, "Standby handover"): the standby takes the CPU over once the task has run for the
    /// handover threshold and serves the owner, and the lent worker finishes its task and retires (its deque goes
    /// back to the borrower's global queue). If the lent worker reaches a boundary first, it goes home by itself
    /// (its owner has work) and reports the arrival. A CPU with a pending move is left alone: the move brings its
    /// own arrival report, which must not be replaced.
    /// </summary>
    /// <returns>How many orders were issued.</returns>
    internal int ReclaimLentCpus()
    {
        int issued = 0;
        foreach (CpuSlot cpu in _pool.Cpus)
        {
            if (!cpu.HasStandby || cpu.Order.IsPending)
            {
                continue;
            }

            WorkQueueSet home = cpu.Home;
            Worker server = cpu.Server;
            WorkQueueSet serving = server.Queues;
            if (ReferenceEquals(serving, home) || serving.Owner is not ProgramTaskScheduler || !server.IsInTask ||
                home.Owner is not ProgramTaskScheduler || home.LooksEmpty())
            {
                continue;
            }

            // Interlocked: arrivals are reported by worker threads, read by tests and diagnostics.
            cpu.RequestMove(home, () => Interlocked.Increment(ref _reclaims));
            issued++;
        }

        return issued;
    }
}
