using System.Runtime.InteropServices;

namespace DivCon.Schedulers.Platform;

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
