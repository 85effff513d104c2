using System.Runtime.InteropServices;

namespace DivCon.Schedulers.Platform;

/// <summary>The Linux C library calls used for affinity. Arrays of <see cref="ulong"/> are pinned, not copied.</summary>
internal static class LinuxNative
{
    /// <summary>errno for an invalid argument (including a mask buffer smaller than the kernel's).</summary>
    public const int EINVAL = 22;

    /// <summary><c>int sched_setaffinity(pid_t pid, size_t cpusetsize, const cpu_set_t *mask)</c>; pid 0 = calling thread.</summary>
    [DllImport("libc", EntryPoint = "sched_setaffinity", SetLastError = true)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
    public static extern int SchedSetAffinity(int pid, nuint cpuSetSize, ulong[] mask);

    /// <summary><c>int sched_getaffinity(pid_t pid, size_t cpusetsize, cpu_set_t *mask)</c>; pid 0 = calling thread.</summary>
    [DllImport("libc", EntryPoint = "sched_getaffinity", SetLastError = true)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
    public static extern int SchedGetAffinity(int pid, nuint cpuSetSize, [Out] ulong[] mask);
}

/// <summary>The Win32 calls used for affinity.</summary>
internal static class WindowsNative
{
    /// <summary>A pseudo-handle for the calling thread.</summary>
    [DllImport("kernel32", SetLastError = false)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.System32)]
    public static extern nint GetCurrentThread();

    /// <summary>Sets a thread's affinity mask; returns the previous mask, or 0 on failure.</summary>
    [DllImport("kernel32", SetLastError = true)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.System32)]
    public static extern nuint SetThreadAffinityMask(nint thread, nuint mask);
}
