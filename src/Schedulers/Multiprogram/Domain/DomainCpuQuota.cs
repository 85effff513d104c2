using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Multiprogram.Domain;

/// <summary>
/// A container's CPU quota in the domain: a process throttled to q CPUs' worth of time (cgroup v2 <c>cpu.max</c>, v1
/// <c>cpu.cfs_quota_us</c> / <c>cpu.cfs_period_us</c>, read by <see cref="CpuEnvironment.ReadCpuQuota"/>) offers the
/// domain at most ceil(q) CPUs of its affinity set, so the domain never grants it CPUs it cannot keep busy. The
/// protocol has no field for a cap (Hello is strict), so the cap is a smaller allowed set: compatible with every
/// coordinator of this version.
/// </summary>
internal static class DomainCpuQuota
{
    /// <summary>The most CPUs a process under the quota of <paramref name="cgroupRoot"/> can keep busy, or null for no quota.</summary>
    /// <param name="cgroupRoot">The directory standing for <c>/sys/fs/cgroup</c>; null: no quota is read.</param>
    /// <returns>ceil(quota), at least 1; null when unlimited, absent or unreadable.</returns>
    public static int? Limit(string? cgroupRoot)
    {
        if (cgroupRoot is null)
        {
            return null;
        }

        double? quota;
        try
        {
            quota = CpuEnvironment.ReadCpuQuota(cgroupRoot);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException)
        {
            return null;
        }

        return quota is { } q && q > 0 && !double.IsInfinity(q) ? (int)Math.Max(1, Math.Min(int.MaxValue, Math.Ceiling(q - 1e-9))) : null;
    }

    /// <summary>
    /// The CPUs offered to the domain: all of <paramref name="ownCpus"/> when within the limit, else
    /// <paramref name="limit"/> of them, consecutive in id order from a start that <paramref name="spread"/> rotates (the
    /// process id), so processes with the same set and quota tend to offer different CPUs.
    /// </summary>
    /// <param name="ownCpus">The process's CPUs, ascending and distinct.</param>
    /// <param name="limit">The most CPUs to offer, or null for no limit.</param>
    /// <param name="spread">Rotates the start (non-negative).</param>
    /// <returns>The offered CPUs, ascending: a subset of <paramref name="ownCpus"/>.</returns>
    public static int[] Offered(int[] ownCpus, int? limit, int spread)
    {
        ArgumentNullException.ThrowIfNull(ownCpus);
        if (limit is not { } k || ownCpus.Length <= k)
        {
            return ownCpus;
        }

        if (k < 1)
        {
            throw new ArgumentOutOfRangeException(nameof(limit), k, "The limit must be at least 1.");
        }

        int start = (int)((uint)spread % (uint)ownCpus.Length);
        int[] chosen = new int[k];
        for (int i = 0; i < k; i++)
        {
            chosen[i] = ownCpus[(start + i) % ownCpus.Length];
        }

        Array.Sort(chosen);
        return chosen;
    }
}
