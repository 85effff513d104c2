using System.Collections.ObjectModel;
using System.Diagnostics;
using System.Runtime.InteropServices;

namespace DivCon.Schedulers.Platform;

/// <summary>
/// Pins the calling thread to one CPU and reads affinity masks: Linux (<c>sched_setaffinity</c> /
/// <c>sched_getaffinity</c> on the calling thread, masks of any size) and Windows (<c>SetThreadAffinityMask</c>,
/// CPUs 0-63). Elsewhere pinning is reported as unsupported, never silently skipped.
/// </summary>
/// <remarks>
/// Pinning acts on the <em>calling</em> thread, so a scheduler pins each worker from inside that worker as it
/// starts. <see cref="Process.ProcessorAffinity"/> is no substitute on Linux: it touches only the main thread.
/// </remarks>
public static partial class ThreadAffinity
{
    /// <summary>Whether <see cref="PinCurrentThread"/> works on this operating system.</summary>
    public static bool IsSupported => OperatingSystem.IsLinux() || OperatingSystem.IsWindows();

    /// <summary>Restricts the calling thread to run only on <paramref name="cpuId"/>.</summary>
    /// <param name="cpuId">An operating-system CPU number.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="cpuId"/> is negative, or 64 or more on Windows.</exception>
    /// <exception cref="ThreadAffinityException">The operating system refused (for example the CPU is not in the
    /// process's allowed set); the message names the CPU and the error.</exception>
    /// <exception cref="PlatformNotSupportedException">Neither Linux nor Windows.</exception>
    public static void PinCurrentThread(int cpuId)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(cpuId);
        if (OperatingSystem.IsLinux())
        {
            PinCurrentThreadLinux(cpuId);
        }
        else if (OperatingSystem.IsWindows())
        {
            PinCurrentThreadWindows(cpuId);
        }
        else
        {
            throw new PlatformNotSupportedException("Thread pinning is supported on Linux and Windows only.");
        }
    }

    /// <summary>The CPUs the calling thread may run on (Linux only), sorted.</summary>
    /// <returns>CPU ids.</returns>
    /// <exception cref="PlatformNotSupportedException">Not Linux.</exception>
    /// <exception cref="ThreadAffinityException">The system call failed.</exception>
    public static IReadOnlyList<int> GetCurrentThreadAffinity()
    {
        if (!OperatingSystem.IsLinux())
        {
            throw new PlatformNotSupportedException("Reading a thread's affinity is supported on Linux only.");
        }

        return GetAffinityLinux(0);
    }

    /// <summary>
    /// The CPUs the process may use, sorted: on Linux the main thread's mask (which honours <c>taskset</c> and
    /// container cpusets, and may be non-contiguous such as 2,3,6,7); on Windows the process affinity mask;
    /// elsewhere 0 to <see cref="Environment.ProcessorCount"/> - 1.
    /// </summary>
    /// <returns>CPU ids.</returns>
    public static IReadOnlyList<int> GetProcessAllowedCpus()
    {
        if (OperatingSystem.IsLinux())
        {
            return GetAffinityLinux(Environment.ProcessId);
        }

        if (OperatingSystem.IsWindows())
        {
            using var process = Process.GetCurrentProcess();
            long mask = (long)process.ProcessorAffinity;
            return new ReadOnlyCollection<int>(Enumerable.Range(0, 64).Where(i => (mask & (1L << i)) != 0).ToArray());
        }

        return new ReadOnlyCollection<int>(Enumerable.Range(0, Environment.ProcessorCount).ToArray());
    }

    private static void PinCurrentThreadLinux(int cpuId)
    {
        // A mask of at least 1024 bits (glibc's cpu_set_t), larger when the CPU id needs it.
        var mask = new ulong[Math.Max(16, (cpuId / 64) + 1)];
        mask[cpuId / 64] = 1UL << (cpuId % 64);
        if (LinuxNative.SchedSetAffinity(0, (nuint)(mask.Length * sizeof(ulong)), mask) != 0)
        {
            int errno = Marshal.GetLastPInvokeError();
            throw new ThreadAffinityException(
                cpuId,
                errno,
                $"Pinning thread to CPU {cpuId} failed: errno {errno} ({Marshal.GetPInvokeErrorMessage(errno)}). " +
                "Is the CPU online and in the process's allowed set?");
        }
    }

    private static ReadOnlyCollection<int> GetAffinityLinux(int pid)
    {
        // Start at 1024 bits; the kernel answers EINVAL while the buffer is smaller than its CPU mask.
        for (int words = 16; words <= 1 << 16; words <<= 1)
        {
            var mask = new ulong[words];
            if (LinuxNative.SchedGetAffinity(pid, (nuint)(words * sizeof(ulong)), mask) == 0)
            {
                var cpus = new List<int>();
                for (int i = 0; i < words * 64; i++)
                {
                    if ((mask[i / 64] & (1UL << (i % 64))) != 0)
                    {
                        cpus.Add(i);
                    }
                }

                return cpus.AsReadOnly();
            }

            int errno = Marshal.GetLastPInvokeError();
            if (errno != LinuxNative.EINVAL)
            {
                throw new ThreadAffinityException(
                    $"sched_getaffinity failed: errno {errno} ({Marshal.GetPInvokeErrorMessage(errno)}).");
            }
        }

        throw new ThreadAffinityException("sched_getaffinity: the CPU mask is larger than 65536 words.");
    }

    private static void PinCurrentThreadWindows(int cpuId)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(cpuId, 63);
        nuint mask = (nuint)1 << cpuId;
        if (WindowsNative.SetThreadAffinityMask(WindowsNative.GetCurrentThread(), mask) == 0)
        {
            int error = Marshal.GetLastPInvokeError();
            throw new ThreadAffinityException(
                cpuId, error, $"Pinning thread to CPU {cpuId} failed: error {error} ({Marshal.GetPInvokeErrorMessage(error)}).");
        }
    }
}
