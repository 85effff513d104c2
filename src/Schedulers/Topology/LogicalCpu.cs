namespace DivCon.Schedulers.Topology;

/// <summary>
/// One logical CPU (a hardware thread) as the operating system numbers it, with the hardware units it shares.
/// </summary>
/// <param name="Id">The operating system's CPU number (the bit in an affinity mask).</param>
/// <param name="CoreId">The physical core; SMT siblings share it. Unique across the machine, not per package.</param>
/// <param name="PackageId">The processor package (socket or chip).</param>
/// <param name="L3GroupId">The group of CPUs that share one last-level cache. Unique across the machine.</param>
/// <param name="NumaNode">The NUMA node whose memory is local to this CPU.</param>
public sealed record LogicalCpu(int Id, int CoreId, int PackageId, int L3GroupId, int NumaNode);
