using System.Collections.ObjectModel;
using DivCon.Schedulers.Platform;
using DivCon.Schedulers.Topology;
using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers;

/// <summary>
/// A work-stealing task scheduler with one worker pinned to each of a given set of CPUs.
/// </summary>
/// <remarks>
/// <para>
/// Each worker pins itself as its thread starts (pinning acts on the calling thread), and the constructor returns
/// only after every worker has reported; if any pin fails, the workers are stopped and the failure
/// (<see cref="ThreadAffinityException"/> naming the CPU and the error) is thrown to the caller. Steal victims are
/// tried nearest first: workers on the same L3 group, then the same package, then the rest.
/// </para>
/// <para>See <see cref="WorkerPoolTaskScheduler"/> for queuing, inlining and disposal.</para>
/// <example>
/// <code>
/// var topology = CpuTopologyDetector.Detect();
/// using var scheduler = new AffinityTaskScheduler(topology, CpuAllocation.Contiguous(topology, 4));
/// await Task.Factory.StartNew(Work, CancellationToken.None, TaskCreationOptions.None, scheduler);
/// </code>
/// </example>
/// </remarks>
public sealed class AffinityTaskScheduler : WorkerPoolTaskScheduler
{
    private AffinityTaskScheduler(IReadOnlyList<LogicalCpu> cpus)
        : base(VictimOrder.ByTopology(cpus), cpus.Select(c => c.Id).ToArray(), worker => ThreadAffinity.PinCurrentThread(cpus[worker.Index].Id))
    {
        PinnedCpus = new ReadOnlyCollection<int>(cpus.Select(c => c.Id).ToArray());
    }

    /// <summary>Creates a scheduler with one worker pinned to each of <paramref name="cpuIds"/>.</summary>
    /// <param name="topology">The allowed CPUs (typically <see cref="CpuTopologyDetector.Detect()"/>); used to
    /// check the ids and to order steal victims.</param>
    /// <param name="cpuIds">The CPUs, one worker each, in worker order.</param>
    /// <exception cref="ArgumentException">An id is not in <paramref name="topology"/>, repeats, or is outside the CPUs the
    /// process may use (its affinity mask) (all are named), or none is given.</exception>
    /// <exception cref="PlatformNotSupportedException">Pinning is not supported on this operating system.</exception>
    /// <exception cref="ThreadAffinityException">The operating system refused to pin a worker.</exception>
    public AffinityTaskScheduler(CpuTopology topology, IEnumerable<int> cpuIds)
        : this(ResolveCpus(topology, cpuIds))
    {
    }

    /// <summary>Creates a scheduler on CPUs of the detected topology chosen by <paramref name="strategy"/>.</summary>
    /// <param name="workerCount">How many workers (1 to the number of allowed CPUs).</param>
    /// <param name="strategy">How to choose the CPUs.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="workerCount"/> is out of range.</exception>
    /// <exception cref="PlatformNotSupportedException">Pinning is not supported on this operating system.</exception>
    /// <exception cref="ThreadAffinityException">The operating system refused to pin a worker.</exception>
    public AffinityTaskScheduler(int workerCount, CpuAllocationStrategy strategy = CpuAllocationStrategy.Contiguous)
        : this(CpuTopologyDetector.Detect(), workerCount, strategy)
    {
    }

    /// <summary>Creates a scheduler on CPUs of <paramref name="topology"/> chosen by <paramref name="strategy"/>.</summary>
    /// <param name="topology">The allowed CPUs.</param>
    /// <param name="workerCount">How many workers (1 to the topology's count).</param>
    /// <param name="strategy">How to choose the CPUs.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="workerCount"/> is out of range.</exception>
    /// <exception cref="PlatformNotSupportedException">Pinning is not supported on this operating system.</exception>
    /// <exception cref="ThreadAffinityException">The operating system refused to pin a worker.</exception>
    public AffinityTaskScheduler(CpuTopology topology, int workerCount, CpuAllocationStrategy strategy)
        : this(topology, CpuAllocation.Allocate(topology, workerCount, strategy))
    {
    }

    /// <inheritdoc />
    public override bool IsPinned => true;

    /// <summary>The CPU of each worker, in worker order.</summary>
    public IReadOnlyList<int> PinnedCpus { get; }

    private static LogicalCpu[] ResolveCpus(CpuTopology topology, IEnumerable<int> cpuIds)
    {
        IReadOnlyList<int> ids = CpuAllocation.Validate(topology, cpuIds);
        if (!ThreadAffinity.IsSupported)
        {
            throw new PlatformNotSupportedException(
                $"{nameof(AffinityTaskScheduler)} needs thread pinning, which this operating system does not support.");
        }

        // The topology may be the caller's own: check the ids against the CPUs the process may actually use.
        CpuAllocation.RequireAllowed(ids, ThreadAffinity.GetProcessAllowedCpus(), nameof(cpuIds));
        return [.. ids.Select(id => topology[id])];
    }
}
