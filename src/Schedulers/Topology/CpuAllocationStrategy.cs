namespace DivCon.Schedulers.Topology;

/// <summary>How <see cref="CpuAllocation"/> chooses n CPUs from a topology.</summary>
public enum CpuAllocationStrategy
{
    /// <summary>Neighbours: package by package, L3 group by L3 group, core by core (SMT siblings together).</summary>
    Contiguous,

    /// <summary>Spread: round-robin over packages, distinct cores before SMT siblings within a package.</summary>
    Dispersed,

    /// <summary>As few L3 groups as possible: whole groups first, the remainder from one best-fitting group.</summary>
    CacheAligned,
}
