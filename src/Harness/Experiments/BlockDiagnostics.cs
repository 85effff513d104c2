using System.Globalization;
using System.Runtime;

namespace DivCon.Harness.Experiments;

/// <summary>
/// What the runtime did during one block of a <see cref="CyclicExperiment"/> (the isolated measurement or one scheme's
/// cyclic test in one round): methods the JIT compiled and its time, garbage collections and their pause time, and the
/// thread pool's size at the end. A block that compiles much more or collects much more than the same block in a
/// later round was paying for warm-up or for a predecessor's garbage (written to <c>blocks.csv</c>).
/// </summary>
/// <param name="Round">0 for the uncounted warm-up round, else the 1-based measured round.</param>
/// <param name="Position">0-based position of the block within its round.</param>
/// <param name="Block">"isolated" or the scheme's name.</param>
/// <param name="Seconds">The block's wall time (from the experiment's clock), settling excluded.</param>
/// <param name="JitMethods">Methods compiled by the JIT during the block (all tiers, OSR included).</param>
/// <param name="JitMilliseconds">Time the JIT spent compiling during the block, summed over threads.</param>
/// <param name="Gen0">Generation 0 collections during the block.</param>
/// <param name="Gen1">Generation 1 collections.</param>
/// <param name="Gen2">Generation 2 collections (full, including large-object-heap collections).</param>
/// <param name="GcPauseMilliseconds">Time every managed thread was paused by the GC during the block.</param>
/// <param name="ThreadPoolThreads">Thread pool threads at the end of the block.</param>
/// <param name="Cpu">The machine's CPU time during the block by kind (every process, from <c>/proc/stat</c>), or
/// <see langword="null"/> where that file is not available.</param>
public sealed record BlockDiagnostics(
    int Round,
    int Position,
    string Block,
    double Seconds,
    long JitMethods,
    double JitMilliseconds,
    int Gen0,
    int Gen1,
    int Gen2,
    double GcPauseMilliseconds,
    int ThreadPoolThreads,
    MachineCpuShares? Cpu = null)
{
    /// <summary>The name of the isolated block.</summary>
    public const string IsolatedBlock = "isolated";

    /// <summary>
    /// A full blocking collection that also compacts the large object heap, then finalizers, then another collection:
    /// the next block starts with a settled heap instead of inheriting its predecessor's garbage (the sorts leave large
    /// arrays on the large object heap that a later, shorter program would otherwise pay to collect).
    /// </summary>
    public static void SettleHeap()
    {
        GCSettings.LargeObjectHeapCompactionMode = GCLargeObjectHeapCompactionMode.CompactOnce;
        GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
        GC.WaitForPendingFinalizers();
        GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
    }

    /// <summary>A snapshot of the runtime's cumulative counters.</summary>
    internal readonly record struct Counters(long JitMethods, TimeSpan JitTime, int Gen0, int Gen1, int Gen2, TimeSpan GcPause, MachineCpuTimes? Cpu)
    {
        /// <summary>The counters now.</summary>
        /// <returns>The snapshot.</returns>
        public static Counters Now() => new(
            System.Runtime.JitInfo.GetCompiledMethodCount(currentThread: false),
            System.Runtime.JitInfo.GetCompilationTime(currentThread: false),
            GC.CollectionCount(0),
            GC.CollectionCount(1),
            GC.CollectionCount(2),
            GC.GetTotalPauseDuration(),
            MachineCpuTimes.Read());

        /// <summary>The block between <paramref name="start"/> and this snapshot.</summary>
        /// <param name="start">The snapshot at the block's start.</param>
        /// <param name="round">Round.</param>
        /// <param name="position">Position.</param>
        /// <param name="block">Block name.</param>
        /// <param name="seconds">Wall time.</param>
        /// <returns>The diagnostics.</returns>
        public BlockDiagnostics Since(Counters start, int round, int position, string block, double seconds) => new(
            round, position, block, seconds,
            JitMethods - start.JitMethods,
            (JitTime - start.JitTime).TotalMilliseconds,
            Gen0 - start.Gen0,
            Gen1 - start.Gen1,
            Gen2 - start.Gen2,
            (GcPause - start.GcPause).TotalMilliseconds,
            ThreadPool.ThreadCount,
            Cpu is { } end && start.Cpu is { } begin ? end.SharesSince(begin) : null);
    }
}

/// <summary>
/// Shares of the machine's CPU time during a block (they sum to 1): user code (every process, this one and its
/// children included), the kernel (system, interrupts), idle (and waiting for I/O), and stolen by the hypervisor. On a
/// machine running only the experiment, idle is CPU capacity that no program used: a scheme that leaves CPUs idle while
/// programs wait shows it here, one that spins does not (spinning is user time).
/// </summary>
/// <param name="User">User and nice time.</param>
/// <param name="System">System, IRQ and soft-IRQ time.</param>
/// <param name="Idle">Idle and I/O wait time.</param>
/// <param name="Steal">Time the hypervisor ran something else.</param>
public sealed record MachineCpuShares(double User, double System, double Idle, double Steal);

/// <summary>The machine's cumulative CPU time by kind, in clock ticks: the first line of Linux's <c>/proc/stat</c>.</summary>
/// <param name="User">user + nice.</param>
/// <param name="System">system + irq + softirq.</param>
/// <param name="Idle">idle + iowait.</param>
/// <param name="Steal">steal.</param>
internal readonly record struct MachineCpuTimes(long User, long System, long Idle, long Steal)
{
    /// <summary>The times now, or <see langword="null"/> where <c>/proc/stat</c> cannot be read or parsed.</summary>
    /// <returns>The times.</returns>
    public static MachineCpuTimes? Read()
    {
        try
        {
            using var reader = new StreamReader("/proc/stat");
            return Parse(reader.ReadLine());
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or NotSupportedException)
        {
            return null;
        }
    }

    /// <summary>Parses the aggregate line ("cpu  user nice system idle iowait irq softirq steal ..."), or null when it is not one.</summary>
    /// <param name="line">The line.</param>
    /// <returns>The times.</returns>
    public static MachineCpuTimes? Parse(string? line)
    {
        string[] fields = line?.Split(' ', StringSplitOptions.RemoveEmptyEntries) ?? [];
        if (fields.Length < 9 || fields[0] != "cpu")
        {
            return null;
        }

        var ticks = new long[8];
        for (int i = 0; i < ticks.Length; i++)
        {
            if (!long.TryParse(fields[i + 1], NumberStyles.None, CultureInfo.InvariantCulture, out ticks[i]))
            {
                return null;
            }
        }

        return new MachineCpuTimes(ticks[0] + ticks[1], ticks[2] + ticks[5] + ticks[6], ticks[3] + ticks[4], ticks[7]);
    }

    /// <summary>The shares of the time between <paramref name="start"/> and these times, or null when no tick passed (or the counters went back).</summary>
    /// <param name="start">The earlier times.</param>
    /// <returns>The shares.</returns>
    public MachineCpuShares? SharesSince(MachineCpuTimes start)
    {
        long user = User - start.User, system = System - start.System, idle = Idle - start.Idle, steal = Steal - start.Steal;
        long total = user + system + idle + steal;
        if (total <= 0 || user < 0 || system < 0 || idle < 0 || steal < 0)
        {
            return null;
        }

        return new MachineCpuShares((double)user / total, (double)system / total, (double)idle / total, (double)steal / total);
    }
}
