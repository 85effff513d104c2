using System.Globalization;
using DivCon.Schedulers.Platform;

namespace DivCon.Schedulers.Topology;

/// <summary>
/// Discovers the CPU topology of the machine, restricted to the CPUs this process may use.
/// </summary>
/// <remarks>
/// <para>On Linux it reads sysfs under a root that tests replace with a fixture tree:</para>
/// <list type="bullet">
/// <item><c>devices/system/cpu/cpuN/topology/physical_package_id</c> and <c>core_id</c> (a core id is unique only
/// within its package, so cores are renumbered machine-wide by (package, core_id));</item>
/// <item><c>devices/system/cpu/cpuN/cache/index*/level</c> and <c>shared_cpu_list</c>: the level-3 cache's sharing
/// list defines the L3 group;</item>
/// <item><c>devices/system/node/nodeM/cpulist</c>: the NUMA node.</item>
/// </list>
/// <para>Missing files fall back: package 0, each CPU its own core, one L3 group per package, NUMA node = package.
/// Elsewhere the fallback is one package of <see cref="Environment.ProcessorCount"/> CPUs.</para>
/// </remarks>
public static class CpuTopologyDetector
{
    /// <summary>The real sysfs mount point.</summary>
    public const string DefaultSysfsRoot = "/sys";

    /// <summary>Detects the topology of the CPUs the process may use.</summary>
    /// <returns>The topology.</returns>
    public static CpuTopology Detect()
    {
        IReadOnlyList<int> allowed = ThreadAffinity.GetProcessAllowedCpus();
        return OperatingSystem.IsLinux() ? Detect(DefaultSysfsRoot, allowed) : Fallback(allowed);
    }

    /// <summary>Reads a topology from a sysfs tree for the given CPUs.</summary>
    /// <param name="sysfsRoot">The directory standing for <c>/sys</c>.</param>
    /// <param name="allowedCpus">The CPUs to include (for example the process's affinity mask), any order.</param>
    /// <returns>The topology of <paramref name="allowedCpus"/>.</returns>
    /// <exception cref="ArgumentException">No CPUs were given.</exception>
    public static CpuTopology Detect(string sysfsRoot, IEnumerable<int> allowedCpus)
    {
        ArgumentNullException.ThrowIfNull(sysfsRoot);
        ArgumentNullException.ThrowIfNull(allowedCpus);
        int[] cpus = [.. allowedCpus.Distinct().Order()];
        if (cpus.Length == 0)
        {
            throw new ArgumentException("At least one allowed CPU is needed.", nameof(allowedCpus));
        }

        string cpuRoot = Path.Combine(sysfsRoot, "devices", "system", "cpu");
        Dictionary<int, int> numaOf = ReadNumaNodes(Path.Combine(sysfsRoot, "devices", "system", "node"));

        var raw = cpus.Select(id =>
        {
            string topologyDir = Path.Combine(cpuRoot, $"cpu{id}", "topology");
            int? package = ReadInt(Path.Combine(topologyDir, "physical_package_id"));
            int? core = ReadInt(Path.Combine(topologyDir, "core_id"));
            IReadOnlyList<int>? l3 = ReadL3SharedList(Path.Combine(cpuRoot, $"cpu{id}", "cache"));
            return (Id: id, Package: package is >= 0 ? package.Value : 0, Core: core, L3: l3);
        }).ToArray();

        // Machine-wide core ids: (package, core_id) pairs numbered in order of first appearance.
        var coreIds = new Dictionary<(int Package, int Core), int>();
        // L3 groups: identical sharing lists are one group; numbered in order of first appearance.
        var l3Ids = new Dictionary<string, int>();
        var result = new List<LogicalCpu>(raw.Length);
        foreach (var cpu in raw)
        {
            var coreKey = (cpu.Package, cpu.Core ?? -1 - cpu.Id);
            if (!coreIds.TryGetValue(coreKey, out int coreId))
            {
                coreId = coreIds.Count;
                coreIds.Add(coreKey, coreId);
            }

            string l3Key = cpu.L3 is null
                ? $"package {cpu.Package}"
                : CpuList.Format(cpu.L3);
            if (!l3Ids.TryGetValue(l3Key, out int l3Id))
            {
                l3Id = l3Ids.Count;
                l3Ids.Add(l3Key, l3Id);
            }

            int numa = numaOf.TryGetValue(cpu.Id, out int node) ? node : cpu.Package;
            result.Add(new LogicalCpu(cpu.Id, coreId, cpu.Package, l3Id, numa));
        }

        return new CpuTopology(result);
    }

    /// <summary>One package, each CPU its own core, one L3 group: for systems without topology information.</summary>
    /// <param name="cpuIds">The CPUs.</param>
    /// <returns>The topology.</returns>
    public static CpuTopology Fallback(IEnumerable<int> cpuIds)
    {
        ArgumentNullException.ThrowIfNull(cpuIds);
        return new CpuTopology(cpuIds.Distinct().Order().Select((id, index) => new LogicalCpu(id, index, 0, 0, 0)));
    }

    private static Dictionary<int, int> ReadNumaNodes(string nodeRoot)
    {
        var numaOf = new Dictionary<int, int>();
        if (!Directory.Exists(nodeRoot))
        {
            return numaOf;
        }

        foreach (string dir in Directory.EnumerateDirectories(nodeRoot, "node*"))
        {
            if (!int.TryParse(Path.GetFileName(dir)["node".Length..], NumberStyles.None, CultureInfo.InvariantCulture, out int node) ||
                SysfsText.Read(Path.Combine(dir, "cpulist")) is not { } list)
            {
                continue;
            }

            foreach (int cpu in TryParseList(list) ?? [])
            {
                numaOf[cpu] = node;
            }
        }

        return numaOf;
    }

    private static IReadOnlyList<int>? ReadL3SharedList(string cacheDir)
    {
        if (!Directory.Exists(cacheDir))
        {
            return null;
        }

        foreach (string index in Directory.EnumerateDirectories(cacheDir, "index*").Order(StringComparer.Ordinal))
        {
            if (ReadInt(Path.Combine(index, "level")) == 3 &&
                SysfsText.Read(Path.Combine(index, "shared_cpu_list")) is { } list &&
                TryParseList(list) is { Count: > 0 } shared)
            {
                return shared;
            }
        }

        return null;
    }

    private static IReadOnlyList<int>? TryParseList(string text)
    {
        try
        {
            return CpuList.Parse(text);
        }
        catch (FormatException)
        {
            return null;
        }
    }

    private static int? ReadInt(string path) =>
        SysfsText.Read(path) is { } text && int.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int value)
            ? value
            : null;
}
