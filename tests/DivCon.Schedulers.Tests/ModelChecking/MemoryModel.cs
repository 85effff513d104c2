namespace DivCon.Schedulers.Tests.ModelChecking;

/// <summary>How the explorer lets stores become visible to other threads.</summary>
internal enum MemoryModel
{
    /// <summary>Every store reaches memory at once; loads read memory (interleaving semantics).</summary>
    SequentialConsistency,

    /// <summary>
    /// x86-TSO: a store enters its thread's FIFO store buffer and reaches memory later, as a separate step the
    /// explorer schedules; a load reads the newest buffered store of its own location first, then memory; a locked
    /// instruction (interlocked operation, full fence, semaphore operation) runs only with an empty buffer.
    /// </summary>
    TotalStoreOrder,
}
