namespace DivCon.Schedulers.Workers;

/// <summary>A snapshot of one worker's counters (each read atomically; the set is not one instant).</summary>
/// <param name="WorkerIndex">The worker's index in its scheduler.</param>
/// <param name="CpuId">The CPU the worker is pinned to, or <see langword="null"/> when unpinned.</param>
/// <param name="TasksExecuted">Tasks the worker took from a queue and ran; equals
/// <paramref name="LocalPops"/> + <paramref name="GlobalDequeues"/> + <paramref name="Steals"/>.</param>
/// <param name="TasksInlined">Tasks run inline on the worker (inside a wait or a synchronous continuation).</param>
/// <param name="LocalPops">Tasks taken from the worker's own deque (LIFO).</param>
/// <param name="GlobalDequeues">Tasks taken from the scheduler's global queue (FIFO).</param>
/// <param name="Steals">Tasks stolen from another worker's deque (FIFO).</param>
/// <param name="FailedSteals">Steal attempts that lost a race to another thread.</param>
/// <param name="Parks">Times the worker blocked because it found no work.</param>
public sealed record WorkerStatistics(
    int WorkerIndex,
    int? CpuId,
    long TasksExecuted,
    long TasksInlined,
    long LocalPops,
    long GlobalDequeues,
    long Steals,
    long FailedSteals,
    long Parks);
