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
    int ThreadPoolThreads)
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
    internal readonly record struct Counters(long JitMethods, TimeSpan JitTime, int Gen0, int Gen1, int Gen2, TimeSpan GcPause)
    {
        /// <summary>The counters now.</summary>
        /// <returns>The snapshot.</returns>
        public static Counters Now() => new(
            System.Runtime.JitInfo.GetCompiledMethodCount(currentThread: false),
            System.Runtime.JitInfo.GetCompilationTime(currentThread: false),
            GC.CollectionCount(0),
            GC.CollectionCount(1),
            GC.CollectionCount(2),
            GC.GetTotalPauseDuration());

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
            ThreadPool.ThreadCount);
    }
}
