using System.Diagnostics;
using DivCon.Schedulers.Multiprogram.Estimation;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Multiprogram.Profiles;
using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// One program's front-end on a <see cref="MultiprogramScheduler"/>: a <see cref="TaskScheduler"/> with its own
/// global queue and one work-stealing deque per worker slot, served by the workers the rebalancer gives it.
/// </summary>
/// <remarks>
/// <para>
/// Any task-parallel code runs on it: <see cref="Run(Action)"/>, <see cref="RunAsync(Func{Task})"/>,
/// <see cref="Factory"/>, <see cref="ForAsync(int, int, Action{int})"/>, a skeleton given this scheduler (what stays
/// inside the program and what cannot, such as <c>ConfigureAwait(false)</c>, <c>Task.Run</c> and PLINQ: the
/// multiprogram README, "Any TPL code as a program"). Work stealing stays inside the
/// program: its workers steal only from its own deques. A task queued from one of its workers goes to that worker's
/// deque, from anywhere else to its global queue.
/// </para>
/// <para>
/// <b>Allocation.</b> <see cref="CurrentCores"/> is how many workers the rebalancer gave it (ownership);
/// <see cref="MaximumConcurrencyLevel"/> is the pool's CPU count, the upper bound of what the program may get
/// (owned plus lent workers), because the allocation changes while it runs. Automatic granularity therefore sizes a
/// run's leaves for the whole pool, never for a momentary allocation; a moved core does not wait for a long leaf,
/// because the CPU's standby worker takes over (see the multiprogram README, "Standby handover").
/// </para>
/// <para>
/// <b>Leaving.</b> <see cref="Dispose"/> is the program's departure: it stops accepting tasks from outside its
/// workers (queuing then throws <see cref="ObjectDisposedException"/>, wrapped by the TPL in
/// <see cref="TaskSchedulerException"/>), lets every task already accepted run to completion (and the tasks those
/// queue), and only then leaves: its workers are redistributed at once by a
/// <see cref="RebalanceReason.Departure"/> decision and <see cref="Completion"/> completes. Dispose waits for
/// that (at most <see cref="MultiprogramScheduler.DefaultShutdownTimeout"/>) unless called from a worker;
/// <see cref="DisposeAsync"/> and <see cref="ShutdownAsync"/> wait without blocking a thread. No accepted task is
/// dropped, and a divide-and-conquer run whose task is refused by the closed program ends faulted with the refusal.
/// </para>
/// </remarks>
public sealed partial class ProgramTaskScheduler : TaskScheduler, IDisposable, IAsyncDisposable
{
    private readonly MultiprogramScheduler _owner;
    private readonly TaskCompletionSource _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _currentCores;
    private int _disposeState;
    private ScalabilityEstimate _estimate;

    /// <summary>Creates a program's front-end and its queues, served by <paramref name="pool"/>.</summary>
    /// <param name="owner">The multiprogram scheduler (for <see cref="Scheduler"/> and the pool's shape).</param>
    /// <param name="programId">The program's id.</param>
    /// <param name="name">Its name.</param>
    /// <param name="speedup">Its whole-machine speedup.</param>
    /// <param name="scalability">Its speedup table, if any.</param>
    /// <param name="victims">The steal order of every worker slot.</param>
    /// <param name="pool">The workers that serve the program's queues.</param>
    /// <param name="drained">Called once, on the thread that sees the closed program's last task finish.</param>
    internal ProgramTaskScheduler(
        MultiprogramScheduler owner,
        ProgramId programId,
        string name,
        double speedup,
        ScalabilityTable? scalability,
        int[][][] victims,
        WorkerPool pool,
        Action<ProgramTaskScheduler> drained)
    {
        _owner = owner;
        ProgramId = programId;
        Name = name;
        Speedup = speedup;
        Scalability = scalability;
        Queues = new WorkQueueSet(this, TryExecuteTask, victims, pool, () => drained(this));
        if (owner.LendingPreference == LendingPreference.OldestRun)
        {
            // Before the program is published (registration's release of the programs array): see TrackBusyPeriods.
            Queues.TrackBusyPeriods(owner.TimeProvider);
        }

        Factory = new TaskFactory(CancellationToken.None, TaskCreationOptions.None, TaskContinuationOptions.None, this);
        Estimator = new ScalabilityEstimator(owner.WorkerCount, scalability);
        _estimate = Estimator.Current;
        LastObservedAt = owner.TimeProvider.GetTimestamp();
    }

    /// <summary>
    /// What the scheduler has learned of this program's scalability while it runs (updated at every decision, skipped
    /// ones included): its estimated speedup by core count and its demand. Starts from the registered table, if any.
    /// </summary>
    public ScalabilityEstimate Estimate => Volatile.Read(ref _estimate); // Acquire: pairs with the release in Observe.

    /// <summary>The program's estimator (decision path only, under the scheduler's decision lock).</summary>
    internal ScalabilityEstimator Estimator { get; }

    /// <summary>When the estimator last observed the program (the scheduler's clock; decision lock).</summary>
    internal long LastObservedAt { get; private set; }

    /// <summary>Decision lock: feeds the estimator one interval and publishes the estimate (at a decision).</summary>
    /// <param name="now">The scheduler's clock now.</param>
    /// <param name="running">The program's tasks running now.</param>
    /// <param name="queued">Its tasks queued now.</param>
    /// <returns>The new estimate.</returns>
    internal ScalabilityEstimate Observe(long now, int running, long queued)
    {
        Sample(now, running, queued);
        ScalabilityEstimate estimate = Estimator.Current;
        Volatile.Write(ref _estimate, estimate); // Release: a fully built estimate for lock-free readers of Estimate.
        return estimate;
    }

    /// <summary>Decision lock: feeds the estimator one interval (between decisions; no estimate is built).</summary>
    /// <param name="now">The scheduler's clock now.</param>
    /// <param name="running">The program's tasks running now.</param>
    /// <param name="queued">Its tasks queued now.</param>
    internal void Sample(long now, int running, long queued)
    {
        TimeSpan elapsed = _owner.TimeProvider.GetElapsedTime(LastObservedAt, now);
        LastObservedAt = now;
        Estimator.Observe(elapsed < TimeSpan.Zero ? TimeSpan.Zero : elapsed, running, queued);
    }

    /// <summary>The id the multiprogram scheduler gave this program (as used in allocations and events).</summary>
    public ProgramId ProgramId { get; }

    /// <summary>The name given at registration.</summary>
    public string Name { get; }

    /// <summary>The whole-machine speedup the policies see.</summary>
    public double Speedup { get; }

    /// <summary>Speedup by core count, when registered with one.</summary>
    public ScalabilityTable? Scalability { get; }

    /// <summary>The multiprogram scheduler this program runs on.</summary>
    public MultiprogramScheduler Scheduler => _owner;

    /// <inheritdoc />
    /// <remarks>
    /// The pool's CPU count (<see cref="MultiprogramScheduler.WorkerCount"/>): the upper bound of the workers the
    /// program may get, owned or lent. Not its current allocation, which changes every rebalancing interval, and not
    /// the number of threads (a CPU's standby adds no concurrency).
    /// </remarks>
    public override int MaximumConcurrencyLevel => _owner.WorkerCount;

    /// <summary>Workers the rebalancer gave this program at its last decision (its owned workers).</summary>
    public int CurrentCores => Volatile.Read(ref _currentCores); // Volatile: written under the decision lock.

    /// <summary>Workers serving this program now, owned or lent (racy: a snapshot of moving workers).</summary>
    public int ServingWorkers => _owner.CountServing(Queues);

    /// <summary>
    /// Tasks queued and not yet started (the policies' "available tasks"): exact when the program is idle, within
    /// the operations in flight otherwise. Cheap: one pass over per-worker counters.
    /// </summary>
    public long AvailableTasks => Queues.AvailableTasks;

    /// <summary>Tasks accepted and not yet finished (queued or running).</summary>
    public long OutstandingTasks => Queues.OutstandingTasks;

    /// <summary>Whether <see cref="Dispose"/> was called (the program accepts no more tasks from outside).</summary>
    public bool IsDisposed => Volatile.Read(ref _disposeState) != 0; // Volatile: set by whichever thread disposes.

    /// <summary>Completes when the program has left: every accepted task finished and its workers were redistributed.</summary>
    public Task Completion => _completion.Task;

    /// <summary>This program's counters in each worker slot (a slot counts only while its worker served this program).</summary>
    public IReadOnlyList<WorkerStatistics> WorkerStatistics =>
        Queues.ReadWorkerStatistics(slot => _owner.IsPinned ? _owner.CpuOfWorker(slot) : null, _owner.WorkerCount);

    /// <summary>This program's counters summed over the worker slots, plus <see cref="AvailableTasks"/>.</summary>
    public SchedulerStatistics Statistics => Queues.SumStatistics(WorkerStatistics);

    /// <summary>The program's queues.</summary>
    internal WorkQueueSet Queues { get; }

    /// <summary>
    /// Leaves: stops accepting tasks from outside, lets the accepted ones finish, then hands the workers back
    /// (see the remarks on the type). Waits up to <see cref="MultiprogramScheduler.DefaultShutdownTimeout"/>;
    /// never throws. A second call does nothing.
    /// </summary>
    public void Dispose()
    {
        if (!Shutdown(MultiprogramScheduler.DefaultShutdownTimeout) && !IsCurrentThreadOnPool())
        {
            Trace.TraceWarning($"Program {this}: tasks still running {MultiprogramScheduler.DefaultShutdownTimeout} after Dispose.");
        }
    }

    /// <summary>
    /// Like <see cref="Dispose"/> with an explicit timeout. Every call closes the program (the first one starts
    /// the departure) and waits for <see cref="Completion"/>; from one of the pool's workers it does not wait.
    /// </summary>
    /// <param name="timeout">How long to wait for the program to leave.</param>
    /// <returns>Whether the program has left within <paramref name="timeout"/>.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="timeout"/> is negative.</exception>
    public bool Shutdown(TimeSpan timeout)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(timeout, TimeSpan.Zero);
        BeginDeparture();
        if (IsCurrentThreadOnPool())
        {
            return Completion.IsCompleted;
        }

        return Completion.Wait(timeout);
    }

    /// <summary>
    /// Like <see cref="Dispose"/> without blocking: closes the program and completes when it has left (every
    /// accepted task finished, its workers redistributed) or after <see cref="MultiprogramScheduler.DefaultShutdownTimeout"/>
    /// (then a trace warning is written; the departure still happens once the tasks end). Never throws.
    /// </summary>
    /// <returns>A task that completes when the program has left or the wait timed out.</returns>
    /// <remarks>Do not await it from a task of this program: the continuation would be queued on the closed program.</remarks>
    public ValueTask DisposeAsync() =>
        BoundedShutdown.WaitAsync(
            ShutdownAsync,
            MultiprogramScheduler.DefaultShutdownTimeout,
            () => $"Program {this}: tasks still running {MultiprogramScheduler.DefaultShutdownTimeout} after DisposeAsync.");

    /// <summary>
    /// Closes the program (the first call starts the departure; accepted tasks still run, none is cancelled) and
    /// returns <see cref="Completion"/>, waited for with <paramref name="cancellationToken"/>. Safe from a worker.
    /// </summary>
    /// <param name="cancellationToken">Cancels the wait only: the departure goes on.</param>
    /// <returns>A task that completes when the program has left, or is cancelled with <paramref name="cancellationToken"/>.</returns>
    public Task ShutdownAsync(CancellationToken cancellationToken = default)
    {
        BeginDeparture();
        return Completion.WaitAsync(cancellationToken);
    }

    /// <inheritdoc />
    public override string ToString() => $"{Name} (P{ProgramId.Value})";

    /// <summary>Sets the owned-worker count after a decision (under the decision lock).</summary>
    /// <param name="cores">Owned workers.</param>
    internal void SetCurrentCores(int cores) =>
        Volatile.Write(ref _currentCores, cores); // Volatile: read lock-free by monitors and the policy snapshot.

    /// <summary>Marks the program as gone (after its departure decision was applied).</summary>
    internal void CompleteDeparture() => _completion.TrySetResult();

    /// <inheritdoc />
    /// <exception cref="ObjectDisposedException">The program was disposed and the caller is not one of its workers.</exception>
    protected override void QueueTask(Task task)
    {
        if (!Queues.TryQueue(task) && !_owner.TryResumeLate(this, task, TryExecuteTask))
        {
            throw new ObjectDisposedException(
                ToString(), "The program was disposed and accepts no more tasks from outside its workers.");
        }
    }

    /// <inheritdoc />
    /// <remarks>Runs the task only on a worker serving this program now; returns <see langword="false"/> elsewhere.</remarks>
    protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued) => Queues.TryExecuteInline(task);

    /// <inheritdoc />
    /// <remarks>Always <see langword="false"/>: a task cannot be taken out of the middle of a deque.</remarks>
    protected override bool TryDequeue(Task task) => false;

    /// <inheritdoc />
    /// <remarks>A snapshot for debuggers; not consistent while workers run.</remarks>
    protected override IEnumerable<Task> GetScheduledTasks() => Queues.Snapshot();

    /// <summary>Closes the program and starts the drained handshake; only the first call does anything.</summary>
    private void BeginDeparture()
    {
        // Interlocked: exactly one caller closes and starts the drained handshake.
        if (Interlocked.Exchange(ref _disposeState, 1) == 0)
        {
            Queues.Close();
            Queues.CheckDrained();
        }
    }

    private bool IsCurrentThreadOnPool() => Worker.Current is { } worker && _owner.OwnsPool(worker.Pool);
}
