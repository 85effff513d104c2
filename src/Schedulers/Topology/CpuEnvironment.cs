using System.Globalization;
using DivCon.Schedulers.Platform;

namespace DivCon.Schedulers.Topology;

/// <summary>
/// What the process has to run on: the topology of its allowed CPUs and the cgroup CPU quota, if any. A quota
/// throttles the process to that many CPUs' worth of time but gives no particular CPUs to pin.
/// </summary>
/// <param name="Topology">The allowed CPUs and how they share hardware.</param>
/// <param name="ProcessorCount">What <see cref="Environment.ProcessorCount"/> reports (it already honours quotas).</param>
/// <param name="CpuQuota">The cgroup CPU quota in cores (quota / period), or <see langword="null"/> when unlimited or unknown.</param>
public sealed record CpuEnvironment(CpuTopology Topology, int ProcessorCount, double? CpuQuota)
{
    /// <summary>The real cgroup mount point.</summary>
    public const string DefaultCgroupRoot = "/sys/fs/cgroup";

    /// <summary>Detects the environment of the current process.</summary>
    /// <returns>The environment.</returns>
    public static CpuEnvironment Detect() =>
        new(CpuTopologyDetector.Detect(),
            Environment.ProcessorCount,
            OperatingSystem.IsLinux() ? ReadCpuQuota(DefaultCgroupRoot) : null);

    /// <summary>
    /// Reads the CPU quota from a cgroup tree: v2 <c>cpu.max</c> ("max 100000" or "200000 100000"), else v1
    /// <c>cpu.cfs_quota_us</c> / <c>cpu.cfs_period_us</c> (directly or under <c>cpu/</c> or <c>cpu,cpuacct/</c>).
    /// </summary>
    /// <param name="cgroupRoot">The directory standing for <c>/sys/fs/cgroup</c>.</param>
    /// <returns>The quota in cores, or <see langword="null"/> when unlimited, absent or unreadable.</returns>
    public static double? ReadCpuQuota(string cgroupRoot)
    {
        ArgumentNullException.ThrowIfNull(cgroupRoot);
        if (SysfsText.Read(Path.Combine(cgroupRoot, "cpu.max")) is { } max)
        {
            string[] parts = max.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            return parts.Length == 2 && TryParsePositive(parts[0], out double quota) && TryParsePositive(parts[1], out double period)
                ? quota / period
                : null;
        }

        foreach (string dir in new[] { cgroupRoot, Path.Combine(cgroupRoot, "cpu"), Path.Combine(cgroupRoot, "cpu,cpuacct") })
        {
            if (SysfsText.Read(Path.Combine(dir, "cpu.cfs_quota_us")) is { } quotaText &&
                SysfsText.Read(Path.Combine(dir, "cpu.cfs_period_us")) is { } periodText)
            {
                return TryParsePositive(quotaText, out double quota) && TryParsePositive(periodText, out double period)
                    ? quota / period
                    : null;
            }
        }

        return null;
    }

    private static bool TryParsePositive(string text, out double value) =>
        double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out value) && value > 0;
}
