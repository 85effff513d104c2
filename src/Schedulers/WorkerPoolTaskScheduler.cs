using System.Diagnostics;
using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers;

/// <summary>
/// The shared machinery of <see cref="WorkStealingTaskScheduler"/> and <see cref="AffinityTaskScheduler"/>: a fixed
/// number of dedicated worker threads, each with a lock-free work-stealing deque, plus a global queue.
/// </summary>
/// <remarks>
/// <para>
/// <b>Where tasks go.</b> A task queued from one of this scheduler's workers (a child task, a continuation) is
/// pushed onto that worker's own deque; a task queued from any other thread goes to the global queue. There is no
/// thread injection: <see cref="TaskCreationOptions.LongRunning"/> is treated like any other task, and a task that
/// blocks holds its worker.
/// </para>
/// <para>
/// <b>How workers find work.</b> Own deque, newest first (cache-warm); then the global queue, oldest first; then
/// steal the oldest task (for divide-and-conquer, the biggest) from other workers, nearest first. A worker that
/// finds nothing spins briefly, then parks; queuing a task wakes a parked worker (README-wakeups.md).
/// </para>
/// <para>
/// <b>Inlining.</b> Only this scheduler's workers run tasks inline (a <see cref="Task.Wait()"/> on a worker runs the
/// awaited task there if it has not started); foreign threads never do, so the degree of parallelism is exactly
/// the worker count.
/// </para>
/// <para>
/// <b>Disposal.</b> <see cref="Dispose"/> stops accepting tasks from other threads (queuing then throws; the TPL
/// wraps it in <see cref="TaskSchedulerException"/>), lets the workers run every task already accepted (and any
/// task those tasks queue from the workers), then waits for the workers to exit, at most
/// <see cref="DefaultShutdownTimeout"/>. Every accepted task runs: none is cancelled, none is dropped. Called from
/// one of its own workers, it does not wait (a thread cannot join itself); the workers exit once the work is done.
/// <see cref="DisposeAsync"/> and <see cref="ShutdownAsync"/> do the same without blocking a thread: the returned
/// task completes when the last worker has exited; cancelling the wait (or its timeout) only stops waiting, the
/// accepted tasks still run. A divide-and-conquer run on a disposed scheduler is never stranded: a task of the run
/// refused by the closed scheduler faults the run with that refusal.
/// </para>
/// <para>
/// <b>Warning.</b> Always dispose: the workers are dedicated background threads that live until then.
/// </para>
/// </remarks>
public abstract class WorkerPoolTaskScheduler : TaskScheduler, IDisposable, IAsyncDisposable
{
    /// <summary>How long <see cref="Dispose"/> waits for the workers, and the constructor for them to start.</summary>
    public static readonly TimeSpan DefaultShutdownTimeout = TimeSpan.FromSeconds(30);

    private readonly WorkQueueSet _queues;
    private readonly WorkerPool _pool;
    private readonly int?[] _cpuIds;
    private int _shutdownState;
    private bool _workersExited;
    private int _poolDisposed;

    /// <summary>Creates the queues and the workers and starts them.</summary>
    /// <param name="victims">Each worker's steal levels (see <see cref="VictimOrder"/>); its length is the worker count.</param>
    /// <param name="cpuIds">The CPU of each worker when pinned, otherwise <see langword="null"/>.</param>
    /// <param name="startHook">Runs first on each worker's thread (pinning); failures are thrown from here.</param>
    private protected WorkerPoolTaskScheduler(int[][][] victims, IReadOnlyList<int>? cpuIds, Action<Worker>? startHook)
    {
        _queues = new WorkQueueSet(this, TryExecuteTask, victims);
        _pool = new WorkerPool(victims.Length, _queues, startHook);
        _cpuIds = new int?[victims.Length];
        for (int i = 0; i < _cpuIds.Length && cpuIds is not null; i++)
        {
            _cpuIds[i] = cpuIds[i];
        }

        IReadOnlyList<Exception> failures;
        try
        {
            failures = _pool.Start(DefaultShutdownTimeout);
        }
        catch (TimeoutException)
        {
            Shutdown(TimeSpan.Zero);
            throw;
        }

        if (failures.Count > 0)
        {
            Shutdown(DefaultShutdownTimeout);
            throw failures.Count == 1
                ? failures[0]
                : new AggregateException($"{failures.Count} workers failed to start.", failures);
        }
    }

    /// <summary>The number of worker threads.</summary>
    public int WorkerCount => _pool.WorkerCount;

    /// <inheritdoc />
    /// <remarks>Equals <see cref="WorkerCount"/>.</remarks>
    public override int MaximumConcurrencyLevel => _pool.WorkerCount;

    /// <summary>Whether each worker is pinned to one CPU.</summary>
    public abstract bool IsPinned { get; }

    /// <summary>
    /// Tasks queued and not yet started: exact when the scheduler is idle (then 0), within the operations in flight
    /// otherwise. Cheap: sums one pair of per-worker counters per worker.
    /// </summary>
    public long AvailableTasks => _queues.AvailableTasks;

    /// <summary>Whether <see cref="Dispose"/> (or <see cref="Shutdown"/>) was called.</summary>
    public bool IsDisposed =>
        Volatile.Read(ref _shutdownState) != 0; // Volatile: set by whichever thread disposes.

    /// <summary>
    /// After disposal: <see langword="true"/> when the workers did not all exit within the timeout (tasks still
    /// running, or disposal from a worker thread, which does not wait).
    /// </summary>
    public bool ShutdownTimedOut =>
        IsDisposed && !Volatile.Read(ref _workersExited); // Volatile: written by the disposing thread.

    /// <summary>The counters of each worker.</summary>
    public IReadOnlyList<WorkerStatistics> WorkerStatistics => _queues.ReadWorkerStatistics(slot => _cpuIds[slot]);

    /// <summary>The counters summed over all workers, plus <see cref="AvailableTasks"/>.</summary>
    public SchedulerStatistics Statistics => _queues.SumStatistics(WorkerStatistics);

    /// <summary>Test hook: the number of workers that have announced they are asleep.</summary>
    internal int ParkedWorkerCount => _pool.Workers.Count(w => w.IsParked);

    /// <summary>The queues (for a later multiprogram front-end and for tests).</summary>
    internal WorkQueueSet Queues => _queues;

    /// <summary>The workers (for tests).</summary>
    internal WorkerPool Pool => _pool;

    /// <summary>Whether the calling thread is one of this scheduler's workers serving its queues.</summary>
    internal bool IsCurrentThreadWorker => Worker.Current is { } worker && ReferenceEquals(worker.Queues, _queues);

    /// <summary>
    /// Stops accepting tasks, lets the accepted ones run, and waits up to <see cref="DefaultShutdownTimeout"/> for
    /// the workers. Never throws; a timeout is reported by <see cref="ShutdownTimedOut"/> and a trace warning.
    /// A second call does nothing.
    /// </summary>
    public void Dispose()
    {
        if (!IsDisposed && !Shutdown(DefaultShutdownTimeout) && !IsCurrentThreadWorker)
        {
            Trace.TraceWarning(
                $"{GetType().Name}: workers still running {DefaultShutdownTimeout} after Dispose (tasks that never finish?).");
        }

        GC.SuppressFinalize(this);
    }

    /// <summary>
    /// Like <see cref="Dispose"/> with an explicit timeout: stops accepting tasks, lets the accepted ones run, and
    /// waits for the workers. Only the first call (of this or <see cref="Dispose"/>) does anything.
    /// </summary>
    /// <param name="timeout">How long to wait for the workers to exit.</param>
    /// <returns>
    /// Whether every worker exited within <paramref name="timeout"/>; <see langword="false"/> when called from one
    /// of this scheduler's workers (it does not wait) or when this was not the first call and the first timed out.
    /// </returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="timeout"/> is negative.</exception>
    public bool Shutdown(TimeSpan timeout)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(timeout, TimeSpan.Zero);
        // Interlocked: exactly one caller performs the shutdown.
        if (Interlocked.Exchange(ref _shutdownState, 1) != 0)
        {
            return Volatile.Read(ref _workersExited); // Volatile: the first caller may be another thread.
        }

        _queues.Close();
        _pool.RequestStop();
        if (IsCurrentThreadWorker)
        {
            return false;
        }

        bool exited = _pool.Join(timeout);
        if (exited)
        {
            OnWorkersExited();
        }

        return exited;
    }

    /// <summary>
    /// Like <see cref="Dispose"/> without blocking: stops accepting tasks from outside the workers, lets every accepted
    /// task run, and completes when the workers have exited or after <see cref="DefaultShutdownTimeout"/> (then
    /// <see cref="ShutdownTimedOut"/> is <see langword="true"/> and a trace warning is written; the workers still exit
    /// once their tasks end). Never throws. A later call (of this or <see cref="Dispose"/>) does nothing.
    /// </summary>
    /// <returns>A task that completes when disposal is done or timed out.</returns>
    /// <remarks>Do not await it from a task of this scheduler: the continuation would be queued on the closed scheduler.</remarks>
    public async ValueTask DisposeAsync()
    {
        GC.SuppressFinalize(this);
        if (IsDisposed)
        {
            return;
        }

        await BoundedShutdown.WaitAsync(
            ShutdownAsync,
            DefaultShutdownTimeout,
            () => $"{GetType().Name}: workers still running {DefaultShutdownTimeout} after DisposeAsync (tasks that never finish?).")
            .ConfigureAwait(false);
    }

    /// <summary>
    /// Starts the shutdown if no call of <see cref="Shutdown"/>, <see cref="Dispose"/> or this method did (stops
    /// accepting tasks from outside the workers; every accepted task still runs, none is cancelled), and returns a
    /// task that completes when every worker has exited. Safe to call from a worker (nothing blocks).
    /// </summary>
    /// <param name="cancellationToken">Cancels the wait only: the shutdown goes on and the accepted tasks still run.</param>
    /// <returns>A task that completes when the workers have exited, or is cancelled with <paramref name="cancellationToken"/>.</returns>
    public Task ShutdownAsync(CancellationToken cancellationToken = default)
    {
        // Interlocked: exactly one caller (of this, Shutdown or Dispose) closes the queues.
        if (Interlocked.Exchange(ref _shutdownState, 1) == 0)
        {
            _queues.Close();
            _pool.RequestStop();
        }

        return WaitForWorkersAsync(cancellationToken);
    }

    private async Task WaitForWorkersAsync(CancellationToken cancellationToken)
    {
        // Exited's continuations run asynchronously (never on an exiting worker); ours needs no context.
        await _pool.Exited.WaitAsync(cancellationToken).ConfigureAwait(false);
        OnWorkersExited();
    }

    /// <summary>Every worker has exited: release the pool's handles (once) and publish the outcome.</summary>
    private void OnWorkersExited()
    {
        // Interlocked: the synchronous and asynchronous waits may both get here.
        if (Interlocked.Exchange(ref _poolDisposed, 1) == 0)
        {
            _pool.Dispose();
        }

        // Volatile: ShutdownTimedOut readers on other threads see the outcome.
        Volatile.Write(ref _workersExited, true);
    }

    /// <inheritdoc />
    /// <exception cref="ObjectDisposedException">The scheduler was disposed and the caller is not one of its workers.</exception>
    protected override void QueueTask(Task task)
    {
        if (!_queues.TryQueue(task))
        {
            ThrowDisposed();
        }
    }

    /// <inheritdoc />
    /// <remarks>Runs the task only on this scheduler's own workers; returns <see langword="false"/> elsewhere.</remarks>
    protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued) => _queues.TryExecuteInline(task);

    /// <inheritdoc />
    /// <remarks>Always <see langword="false"/>: a task cannot be taken out of the middle of a deque.</remarks>
    protected override bool TryDequeue(Task task) => false;

    /// <inheritdoc />
    /// <remarks>A snapshot for debuggers; not consistent while workers run.</remarks>
    protected override IEnumerable<Task> GetScheduledTasks() => _queues.Snapshot();

    [StackTraceHidden]
    private void ThrowDisposed() => throw new ObjectDisposedException(
        GetType().Name, "The scheduler was disposed and accepts no more tasks from outside its workers.");
}
