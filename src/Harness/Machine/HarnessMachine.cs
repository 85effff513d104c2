using System.Globalization;
using DivCon.Schedulers.Platform;
using DivCon.Schedulers.Topology;

namespace DivCon.Harness.Machine;
/// <summary>
/// The machine as the harness uses it: the allowed CPUs and how they share hardware, the cgroup CPU quota, and
/// whether threads can be pinned. Every experiment's stamp carries <see cref="Describe"/>.
/// </summary>
/// <param name="Environment">The detected CPUs and quota.</param>
/// <param name="PinningSupported">Whether this operating system lets the schedulers pin threads.</param>
public sealed record HarnessMachine(CpuEnvironment Environment, bool PinningSupported)
{
    /// <summary>The allowed CPUs.</summary>
    public CpuTopology Topology => Environment.Topology;

    /// <summary>How many CPUs the process may use.</summary>
    public int CpuCount => Topology.Count;

    /// <summary>Detects the current process's machine.</summary>
    /// <returns>The machine.</returns>
    public static HarnessMachine Detect() => new(CpuEnvironment.Detect(), ThreadAffinity.IsSupported);

    /// <summary>The first <paramref name="workers"/> CPUs in topology order (a contiguous allocation).</summary>
    /// <param name="workers">How many CPUs, 1 to <see cref="CpuCount"/>.</param>
    /// <returns>The CPU ids.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="workers"/> is out of range.</exception>
    public IReadOnlyList<int> CpusFor(int workers)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(workers, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(workers, CpuCount);
        return CpuAllocation.Contiguous(Topology, workers);
    }

    /// <summary>
    /// One line for the run stamp: topology, allowed CPUs, the CPUs the run uses, pinning support and the CPU quota.
    /// </summary>
    /// <param name="workers">The worker count of the run.</param>
    /// <returns>The line.</returns>
    public string Describe(int workers) => string.Create(CultureInfo.InvariantCulture,
        $"{Topology}; allowed CPUs {CpuList.Format(Topology.CpuIds)}; run uses {workers} worker(s); " +
        $"pinning {(PinningSupported ? "supported" : "NOT supported (pinned schemes unavailable)")}; " +
        $"CPU quota {(Environment.CpuQuota is { } quota ? quota.ToString("0.##", CultureInfo.InvariantCulture) + " cores" : "none")}");
}
