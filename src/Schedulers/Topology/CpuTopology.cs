using System.Collections.ObjectModel;

namespace DivCon.Schedulers.Topology;

/// <summary>
/// The CPUs a process may run on and how they share cores, caches and packages. Built by hand (tests model a
/// 64-CPU, 4-package machine on any box) or discovered from the operating system.
/// </summary>
/// <remarks>
/// Invariants: CPU ids are unique and the list is sorted by id; the ids need not be contiguous (a cpuset such as
/// 2,3,6,7 is normal inside containers).
/// </remarks>
public sealed class CpuTopology
{
    private readonly Dictionary<int, LogicalCpu> _byId;

    /// <summary>Creates a topology from explicit CPU descriptions.</summary>
    /// <param name="cpus">The CPUs; at least one, ids unique and non-negative.</param>
    /// <exception cref="ArgumentNullException"><paramref name="cpus"/> is null.</exception>
    /// <exception cref="ArgumentException">The list is empty, or holds a duplicate or negative id.</exception>
    public CpuTopology(IEnumerable<LogicalCpu> cpus)
    {
        ArgumentNullException.ThrowIfNull(cpus);
        var sorted = cpus.OrderBy(c => c.Id).ToArray();
        if (sorted.Length == 0)
        {
            throw new ArgumentException("A topology needs at least one CPU.", nameof(cpus));
        }

        _byId = new Dictionary<int, LogicalCpu>(sorted.Length);
        foreach (var cpu in sorted)
        {
            ArgumentNullException.ThrowIfNull(cpu, nameof(cpus));
            if (cpu.Id < 0)
            {
                throw new ArgumentException($"CPU id {cpu.Id} is negative.", nameof(cpus));
            }

            if (!_byId.TryAdd(cpu.Id, cpu))
            {
                throw new ArgumentException($"CPU id {cpu.Id} appears more than once.", nameof(cpus));
            }
        }

        Cpus = new ReadOnlyCollection<LogicalCpu>(sorted);
    }

    /// <summary>The CPUs, sorted by id.</summary>
    public IReadOnlyList<LogicalCpu> Cpus { get; }

    /// <summary>The number of logical CPUs.</summary>
    public int Count => Cpus.Count;

    /// <summary>The CPU ids, sorted.</summary>
    public IEnumerable<int> CpuIds => Cpus.Select(c => c.Id);

    /// <summary>Whether <paramref name="cpuId"/> belongs to this topology.</summary>
    /// <param name="cpuId">An operating-system CPU number.</param>
    /// <returns><see langword="true"/> when the CPU is present.</returns>
    public bool Contains(int cpuId) => _byId.ContainsKey(cpuId);

    /// <summary>The description of one CPU.</summary>
    /// <param name="cpuId">An operating-system CPU number in this topology.</param>
    /// <returns>The CPU's description.</returns>
    /// <exception cref="ArgumentException">The id is not in this topology.</exception>
    public LogicalCpu this[int cpuId] => _byId.TryGetValue(cpuId, out var cpu)
        ? cpu
        : throw new ArgumentException($"CPU {cpuId} is not in this topology.", nameof(cpuId));

    /// <summary>
    /// A regular machine built by hand: <paramref name="packages"/> packages of <paramref name="coresPerPackage"/>
    /// cores with <paramref name="threadsPerCore"/> hardware threads each, every package split into
    /// <paramref name="l3GroupsPerPackage"/> equal L3 groups, one NUMA node per package. CPU ids are numbered
    /// package by package, core by core, so SMT siblings are adjacent.
    /// </summary>
    /// <param name="packages">Number of packages (at least 1).</param>
    /// <param name="coresPerPackage">Cores in each package (at least 1).</param>
    /// <param name="threadsPerCore">Hardware threads per core (at least 1).</param>
    /// <param name="l3GroupsPerPackage">L3 groups per package; must divide <paramref name="coresPerPackage"/>.</param>
    /// <returns>The topology.</returns>
    /// <exception cref="ArgumentOutOfRangeException">A count is below 1.</exception>
    /// <exception cref="ArgumentException">The L3 groups do not divide the cores evenly.</exception>
    public static CpuTopology Uniform(int packages, int coresPerPackage, int threadsPerCore = 1, int l3GroupsPerPackage = 1)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(packages, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(coresPerPackage, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(threadsPerCore, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(l3GroupsPerPackage, 1);
        if (coresPerPackage % l3GroupsPerPackage != 0)
        {
            throw new ArgumentException(
                $"{l3GroupsPerPackage} L3 groups do not divide {coresPerPackage} cores evenly.", nameof(l3GroupsPerPackage));
        }

        int coresPerL3 = coresPerPackage / l3GroupsPerPackage;
        var cpus = new List<LogicalCpu>(packages * coresPerPackage * threadsPerCore);
        for (int package = 0; package < packages; package++)
        {
            for (int core = 0; core < coresPerPackage; core++)
            {
                int coreId = (package * coresPerPackage) + core;
                int l3 = (package * l3GroupsPerPackage) + (core / coresPerL3);
                for (int thread = 0; thread < threadsPerCore; thread++)
                {
                    cpus.Add(new LogicalCpu((coreId * threadsPerCore) + thread, coreId, package, l3, package));
                }
            }
        }

        return new CpuTopology(cpus);
    }

    /// <summary>A topology restricted to the given CPU ids (for example one program's share).</summary>
    /// <param name="cpuIds">Ids that must all be in this topology.</param>
    /// <returns>The sub-topology.</returns>
    /// <exception cref="ArgumentException">An id is unknown; the message names every unknown id.</exception>
    public CpuTopology Subset(IEnumerable<int> cpuIds)
    {
        ArgumentNullException.ThrowIfNull(cpuIds);
        var ids = cpuIds.ToArray();
        var unknown = ids.Where(id => !_byId.ContainsKey(id)).Distinct().ToArray();
        if (unknown.Length > 0)
        {
            throw new ArgumentException(
                $"CPU ids not in this topology: {string.Join(", ", unknown)}.", nameof(cpuIds));
        }

        return new CpuTopology(ids.Distinct().Select(id => _byId[id]));
    }

    /// <inheritdoc />
    public override string ToString()
    {
        int packages = Cpus.Select(c => c.PackageId).Distinct().Count();
        int cores = Cpus.Select(c => c.CoreId).Distinct().Count();
        int l3 = Cpus.Select(c => c.L3GroupId).Distinct().Count();
        return $"{Count} CPUs, {cores} cores, {packages} packages, {l3} L3 groups";
    }
}

/// <summary>
/// One logical CPU (a hardware thread) as the operating system numbers it, with the hardware units it shares.
/// </summary>
/// <param name="Id">The operating system's CPU number (the bit in an affinity mask).</param>
/// <param name="CoreId">The physical core; SMT siblings share it. Unique across the machine, not per package.</param>
/// <param name="PackageId">The processor package (socket or chip).</param>
/// <param name="L3GroupId">The group of CPUs that share one last-level cache. Unique across the machine.</param>
/// <param name="NumaNode">The NUMA node whose memory is local to this CPU.</param>
public sealed record LogicalCpu(int Id, int CoreId, int PackageId, int L3GroupId, int NumaNode);
