using System.Runtime.InteropServices;

namespace DivCon.Schedulers.Workers;

/// <summary>
/// The counters of one worker slot. Each is written only by the worker that serves the slot (single writer, so a
/// plain increment published with a volatile store is enough) and read by anyone (volatile reads, summed on read).
/// </summary>
/// <remarks>Padded on both sides so that neighbouring slots' counters never share a cache line.</remarks>
[StructLayout(LayoutKind.Sequential)]
internal sealed class WorkerSlotCounters
{
#pragma warning disable CS0169, IDE0051 // Padding fields are never read: they exist to keep other data off this line.
    private readonly long _padBefore0, _padBefore1, _padBefore2, _padBefore3, _padBefore4, _padBefore5, _padBefore6, _padBefore7;
#pragma warning restore CS0169, IDE0051

    /// <summary>Tasks taken from a queue and executed.</summary>
    public long TasksExecuted;

    /// <summary>Tasks executed inline (in a wait or a synchronous continuation) on this worker.</summary>
    public long TasksInlined;

    /// <summary>Tasks taken from this slot's own deque.</summary>
    public long LocalPops;

    /// <summary>Tasks taken from the global queue.</summary>
    public long GlobalDequeues;

    /// <summary>Tasks stolen from another slot's deque.</summary>
    public long Steals;

    /// <summary>Steal attempts that lost a race (<see cref="Collections.StealResult.Retry"/>).</summary>
    public long FailedSteals;

    /// <summary>Times the worker blocked waiting for work.</summary>
    public long Parks;

    /// <summary>Tasks this worker pushed onto its own deque.</summary>
    public long Pushed;

    /// <summary>Tasks taken from a queue whose execution has returned (bumped after <see cref="TasksExecuted"/>).</summary>
    public long TasksFinished;

    /// <summary>Tasks this worker removed from a deque of the set: local pops, steals and drains.</summary>
    public long DequeTaken;

#pragma warning disable CS0169, IDE0051 // Padding, see above.
    private readonly long _padAfter0, _padAfter1, _padAfter2, _padAfter3, _padAfter4, _padAfter5, _padAfter6, _padAfter7;
#pragma warning restore CS0169, IDE0051

    /// <summary>Single-writer increment: only the slot's current worker calls it.</summary>
    /// <param name="counter">A field of this object.</param>
    public static void Bump(ref long counter) =>
        // Volatile store: readers on other threads see a whole, recent value; no read-modify-write race exists
        // because only one thread writes.
        Volatile.Write(ref counter, counter + 1);
}
