namespace DivCon.Schedulers.Workers;

/// <summary>
/// A snapshot of a scheduler's counters, summed over its workers (each counter read atomically; the sums are not
/// one instant while tasks run, and are exact once the scheduler is idle).
/// </summary>
/// <param name="WorkerCount">The number of workers.</param>
/// <param name="TasksExecuted">Tasks taken from a queue and run; equals
/// <paramref name="LocalPops"/> + <paramref name="GlobalDequeues"/> + <paramref name="Steals"/>.</param>
/// <param name="TasksInlined">Tasks run inline on a worker.</param>
/// <param name="LocalPops">Tasks taken by a worker from its own deque.</param>
/// <param name="GlobalDequeues">Tasks taken from the global queue.</param>
/// <param name="Steals">Tasks stolen between workers.</param>
/// <param name="FailedSteals">Steal attempts that lost a race.</param>
/// <param name="Parks">Times a worker blocked for lack of work.</param>
/// <param name="AvailableTasks">Tasks queued and not yet started.</param>
public sealed record SchedulerStatistics(
    int WorkerCount,
    long TasksExecuted,
    long TasksInlined,
    long LocalPops,
    long GlobalDequeues,
    long Steals,
    long FailedSteals,
    long Parks,
    long AvailableTasks);

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
