namespace DivCon.Schedulers.Topology;

/// <summary>
/// Pure allocation strategies: which n CPUs of a topology a pinned scheduler should use. Every result is sorted
/// by CPU id and depends only on the topology and n.
/// </summary>
/// <remarks>
/// <para><b>Contiguous</b> fills neighbours first (the thesis's default, "processors 1 to n"): constructive
/// sharing of caches, but the chosen packages share their memory bandwidth.</para>
/// <para><b>Dispersed</b> deals CPUs round-robin over packages (the thesis's alternative, used to measure the
/// bandwidth effect): on 4 packages of 16, n = 8 takes 2 CPUs from each package.</para>
/// <para><b>CacheAligned</b> uses as few last-level caches as possible, whole L3 groups first.</para>
/// </remarks>
public static class CpuAllocation
{
    /// <summary>Chooses <paramref name="count"/> CPUs with <paramref name="strategy"/>.</summary>
    /// <param name="topology">The CPUs to choose from.</param>
    /// <param name="count">How many (1 to the topology's count).</param>
    /// <param name="strategy">The strategy.</param>
    /// <returns>CPU ids, sorted.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="count"/> is out of range, or the strategy is unknown.</exception>
    public static IReadOnlyList<int> Allocate(CpuTopology topology, int count, CpuAllocationStrategy strategy) =>
        strategy switch
        {
            CpuAllocationStrategy.Contiguous => Contiguous(topology, count),
            CpuAllocationStrategy.Dispersed => Dispersed(topology, count),
            CpuAllocationStrategy.CacheAligned => CacheAligned(topology, count),
            _ => throw new ArgumentOutOfRangeException(nameof(strategy), strategy, "Unknown CPU allocation strategy."),
        };

    /// <summary>The first <paramref name="count"/> CPUs in hardware order (package, L3 group, core, id).</summary>
    /// <param name="topology">The CPUs to choose from.</param>
    /// <param name="count">How many (1 to the topology's count).</param>
    /// <returns>CPU ids, sorted.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="count"/> is out of range.</exception>
    public static IReadOnlyList<int> Contiguous(CpuTopology topology, int count)
    {
        ValidateCount(topology, count);
        return Sorted(HardwareOrder(topology.Cpus).Take(count));
    }

    /// <summary>
    /// Round-robin over packages (in package order), taking within each package distinct cores before SMT
    /// siblings; packages that run out are skipped.
    /// </summary>
    /// <param name="topology">The CPUs to choose from.</param>
    /// <param name="count">How many (1 to the topology's count).</param>
    /// <returns>CPU ids, sorted.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="count"/> is out of range.</exception>
    public static IReadOnlyList<int> Dispersed(CpuTopology topology, int count)
    {
        ValidateCount(topology, count);
        List<LogicalCpu>[] packages = topology.Cpus
            .GroupBy(c => c.PackageId)
            .OrderBy(g => g.Key)
            .Select(g => SpreadWithinPackage(g).ToList())
            .ToArray();
        var chosen = new List<LogicalCpu>(count);
        for (int round = 0; chosen.Count < count; round++)
        {
            foreach (List<LogicalCpu> package in packages)
            {
                if (round < package.Count && chosen.Count < count)
                {
                    chosen.Add(package[round]);
                }
            }
        }

        return Sorted(chosen);
    }

    /// <summary>
    /// Whole L3 groups first (largest that still fits, ties in hardware order), then the remainder from the
    /// smallest group that can hold all of it, so the CPUs touch as few caches as possible.
    /// </summary>
    /// <param name="topology">The CPUs to choose from.</param>
    /// <param name="count">How many (1 to the topology's count).</param>
    /// <returns>CPU ids, sorted.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="count"/> is out of range.</exception>
    public static IReadOnlyList<int> CacheAligned(CpuTopology topology, int count)
    {
        ValidateCount(topology, count);
        var groups = HardwareOrder(topology.Cpus)
            .GroupBy(c => c.L3GroupId)
            .Select(g => g.ToList())
            .ToList();
        var chosen = new List<LogicalCpu>(count);
        while (chosen.Count < count)
        {
            int remaining = count - chosen.Count;
            List<LogicalCpu>? whole = groups
                .Where(g => g.Count <= remaining)
                .OrderByDescending(g => g.Count)
                .FirstOrDefault();
            if (whole is not null)
            {
                chosen.AddRange(whole);
                groups.Remove(whole);
                continue;
            }

            List<LogicalCpu> bestFit = groups.OrderBy(g => g.Count).First();
            chosen.AddRange(bestFit.Take(remaining));
            groups.Remove(bestFit);
        }

        return Sorted(chosen);
    }

    /// <summary>
    /// Checks that every id is in <paramref name="topology"/> (which holds only the CPUs the process may use) and
    /// none repeats.
    /// </summary>
    /// <param name="topology">The allowed CPUs.</param>
    /// <param name="cpuIds">The ids to check, in the caller's order.</param>
    /// <returns>The ids, in the given order.</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="ArgumentException">The list is empty, or ids are unknown or repeated; the message names them all.</exception>
    public static IReadOnlyList<int> Validate(CpuTopology topology, IEnumerable<int> cpuIds)
    {
        ArgumentNullException.ThrowIfNull(topology);
        ArgumentNullException.ThrowIfNull(cpuIds);
        int[] ids = [.. cpuIds];
        if (ids.Length == 0)
        {
            throw new ArgumentException("At least one CPU id is needed.", nameof(cpuIds));
        }

        int[] unknown = [.. ids.Where(id => !topology.Contains(id)).Distinct().Order()];
        if (unknown.Length > 0)
        {
            throw new ArgumentException(
                $"CPU ids not available to this process (not in the topology {CpuList.Format(topology.CpuIds)}): " +
                $"{string.Join(", ", unknown)}.",
                nameof(cpuIds));
        }

        int[] repeated = [.. ids.GroupBy(id => id).Where(g => g.Count() > 1).Select(g => g.Key).Order()];
        if (repeated.Length > 0)
        {
            throw new ArgumentException($"CPU ids given more than once: {string.Join(", ", repeated)}.", nameof(cpuIds));
        }

        return ids;
    }

    /// <summary>
    /// Checks that every CPU a worker would be pinned to is one the process may use. A topology given by the caller
    /// may name CPUs outside the process's affinity mask (<c>taskset</c>, a container's cpuset); pinning a thread
    /// there would either fail or, worse, succeed and run the worker outside the set the process was confined to.
    /// </summary>
    /// <param name="cpuIds">The CPUs to pin to.</param>
    /// <param name="allowedCpus">The CPUs the process may use (for example <see cref="Platform.ThreadAffinity.GetProcessAllowedCpus"/>).</param>
    /// <param name="paramName">The parameter to name in the exception.</param>
    /// <exception cref="ArgumentNullException">A list is null.</exception>
    /// <exception cref="ArgumentException">Some CPUs are not allowed; the message names them and the allowed set.</exception>
    public static void RequireAllowed(IEnumerable<int> cpuIds, IEnumerable<int> allowedCpus, string paramName)
    {
        ArgumentNullException.ThrowIfNull(cpuIds);
        ArgumentNullException.ThrowIfNull(allowedCpus);
        var allowed = allowedCpus.ToHashSet();
        int[] outside = [.. cpuIds.Where(id => !allowed.Contains(id)).Distinct().Order()];
        if (outside.Length > 0)
        {
            throw new ArgumentException(
                $"CPUs {CpuList.Format(outside)} are outside the CPUs this process may use ({CpuList.Format([.. allowed.Order()])}, " +
                "its affinity mask as set by taskset or a cpuset): a worker pinned there would run outside that set.",
                paramName);
        }
    }

    private static IEnumerable<LogicalCpu> HardwareOrder(IEnumerable<LogicalCpu> cpus) =>
        cpus.OrderBy(c => c.PackageId).ThenBy(c => c.L3GroupId).ThenBy(c => c.CoreId).ThenBy(c => c.Id);

    private static IEnumerable<LogicalCpu> SpreadWithinPackage(IEnumerable<LogicalCpu> package) =>
        HardwareOrder(package)
            .GroupBy(c => c.CoreId)
            .SelectMany(core => core.Select((cpu, rank) => (cpu, rank)))
            .OrderBy(x => x.rank)
            .Select(x => x.cpu);

    private static int[] Sorted(IEnumerable<LogicalCpu> cpus) => [.. cpus.Select(c => c.Id).Order()];

    private static void ValidateCount(CpuTopology topology, int count)
    {
        ArgumentNullException.ThrowIfNull(topology);
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(count, topology.Count);
    }
}

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
