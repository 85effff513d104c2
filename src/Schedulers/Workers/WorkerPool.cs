using System.Collections.ObjectModel;
using System.Diagnostics;
using DivCon.Schedulers.Collections;

namespace DivCon.Schedulers.Workers;

/// <summary>
/// A fixed set of dedicated worker threads: starts them (each runs an optional start hook first, such as pinning,
/// and reports success or failure), wakes sleepers for a queue set, and stops them.
/// </summary>
/// <remarks>
/// The pool knows nothing of task-scheduler front-ends: it starts every worker serving one initial
/// <see cref="WorkQueueSet"/>; a multiprogram scheduler can later move workers between sets.
/// </remarks>
internal sealed class WorkerPool : IDisposable
{
    private readonly Worker[] _workers;
    private readonly CpuSlot[] _cpus;
    private readonly Action<Worker>? _startHook;
    private readonly Exception?[] _startFailures;
    private readonly CountdownEvent _started;
    private readonly TaskCompletionSource _exited = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _running;
    private CacheLinePaddedInt64 _sleepers;
    private int _stopRequested;
    private int _wakeCursor;

    /// <summary>
    /// Creates (but does not start) one worker per CPU, and with <paramref name="handoverThreshold"/> a standby
    /// worker per CPU as well, all serving <paramref name="initial"/>.
    /// </summary>
    /// <param name="cpuCount">Number of CPUs (workers, or worker pairs with standbys).</param>
    /// <param name="initial">The set every worker serves first; it is attached to this pool. Its slot count must equal
    /// <see cref="WorkerCount"/> (the CPU count, or twice it with standbys).</param>
    /// <param name="startHook">Runs first on each worker's own thread (for example pinning to
    /// <see cref="Worker.Cpu"/>); an exception stops that worker and is reported by <see cref="Start"/>.</param>
    /// <param name="director">Where idle workers look for other work (lending) and when they may exit; null for a
    /// single-set pool.</param>
    /// <param name="handoverThreshold">With a value: each CPU gets a standby worker that takes the CPU over when a
    /// move finds the serving worker inside a task that has run this long; null: no standby.</param>
    public WorkerPool(
        int cpuCount, WorkQueueSet initial, Action<Worker>? startHook = null, IWorkerDirector? director = null, TimeSpan? handoverThreshold = null)
    {
        Director = director;
        ArgumentOutOfRangeException.ThrowIfLessThan(cpuCount, 1);
        ArgumentNullException.ThrowIfNull(initial);
        if (handoverThreshold is { } threshold)
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(threshold, TimeSpan.Zero, nameof(handoverThreshold));
        }

        long? thresholdTicks = handoverThreshold is { } t ? (long)Math.Min(t.TotalSeconds * Stopwatch.Frequency, long.MaxValue / 2) : null;
        InitialSet = initial;
        _startHook = startHook;
        _cpus = new CpuSlot[cpuCount];
        for (int i = 0; i < cpuCount; i++)
        {
            _cpus[i] = new CpuSlot(this, i, cpuCount, initial, thresholdTicks);
        }

        // Worker i of CPU c has index c + i * cpuCount: the first workers take slots 0..cpuCount-1, standbys the rest.
        _workers = [.. _cpus.Select(c => c.Workers[0]), .. _cpus.Where(c => c.HasStandby).Select(c => c.Workers[1])];
        _startFailures = new Exception?[_workers.Length];
        _started = new CountdownEvent(_workers.Length);
        _running = _workers.Length;
        Workers = new ReadOnlyCollection<Worker>(_workers);
        Cpus = new ReadOnlyCollection<CpuSlot>(_cpus);
        initial.AttachPool(this);
    }

    /// <summary>The workers, by index (the CPUs' first workers, then their standbys).</summary>
    public IReadOnlyList<Worker> Workers { get; }

    /// <summary>The CPUs, by index: owner, server and workers of each.</summary>
    public IReadOnlyList<CpuSlot> Cpus { get; }

    /// <summary>The set the workers served first; standbys serve it while they stand by (it must never get tasks).</summary>
    public WorkQueueSet InitialSet { get; }

    /// <summary>The number of CPUs.</summary>
    public int CpuCount => _cpus.Length;

    /// <summary>Handovers to a standby so far, over all CPUs.</summary>
    public long Handovers => _cpus.Sum(c => c.Handovers);

    /// <summary>Where idle workers look for other sets' work; null for a single-set pool.</summary>
    public IWorkerDirector? Director { get; }

    /// <summary>Announced sleepers over all sets (read on the lending wake-up path).</summary>
    public long Sleepers => Volatile.Read(ref _sleepers.Value); // Volatile: updated by interlocked ops elsewhere.

    /// <summary>The number of worker threads (and of slots in every set): the CPU count, or twice it with standbys.</summary>
    public int WorkerCount => _workers.Length;

    /// <summary>
    /// Completes when every worker thread has left its loop (after <see cref="RequestStop"/>, or a failed start hook).
    /// Its continuations run asynchronously, never on an exiting worker.
    /// </summary>
    public Task Exited => _exited.Task;

    /// <summary>Whether <see cref="RequestStop"/> was called.</summary>
    public bool StopRequested =>
        Volatile.Read(ref _stopRequested) != 0; // Acquire: pairs with RequestStop's interlocked store.

    /// <summary>
    /// Starts every worker and waits until each has run its start hook. Returns the hooks' failures (empty when all
    /// succeeded); workers whose hook failed have exited.
    /// </summary>
    /// <param name="timeout">How long to wait for the workers to report.</param>
    /// <returns>The failures by worker index.</returns>
    /// <exception cref="TimeoutException">Some worker did not report within <paramref name="timeout"/>.</exception>
    public IReadOnlyList<Exception> Start(TimeSpan timeout)
    {
        foreach (Worker worker in _workers)
        {
            worker.Thread.Start();
        }

        if (!_started.Wait(timeout))
        {
            throw new TimeoutException(
                $"Only {_workers.Length - _started.CurrentCount} of {_workers.Length} workers started within {timeout}.");
        }

        return _startFailures.OfType<Exception>().ToArray();
    }

    /// <summary>Called on each worker's thread before its loop: runs the hook and reports.</summary>
    /// <param name="worker">The calling worker.</param>
    /// <returns>Whether the worker should go on to serve tasks.</returns>
    public bool RunStartHook(Worker worker)
    {
        try
        {
            _startHook?.Invoke(worker);
            return true;
        }
#pragma warning disable CA1031 // Any failure of the hook is reported to the thread that starts the pool.
        catch (Exception ex)
#pragma warning restore CA1031
        {
            _startFailures[worker.Index] = ex;
            return false;
        }
        finally
        {
            _started.Signal();
        }
    }

    /// <summary>Called by each worker thread as its last action.</summary>
    public void ReportExit()
    {
        // Interlocked: workers exit concurrently; the last one completes Exited.
        if (Interlocked.Decrement(ref _running) == 0)
        {
            _exited.TrySetResult();
        }
    }

    /// <summary>Wakes one sleeping worker that serves <paramref name="queues"/>, if there is one.</summary>
    /// <param name="queues">The set that has new work.</param>
    public void WakeOne(WorkQueueSet queues)
    {
        // A racy cursor is fine: it only spreads wake-ups, correctness comes from the CAS in TryWake.
        int start = (int)((uint)_wakeCursor++ % (uint)_workers.Length);
        for (int i = 0; i < _workers.Length; i++)
        {
            int index = start + i;
            Worker worker = _workers[index < _workers.Length ? index : index - _workers.Length];
            if (worker.IsParked && ReferenceEquals(worker.Queues, queues) && worker.TryWake())
            {
                return;
            }
        }
    }

    /// <summary>Counts a sleeper announcing (+1) or withdrawn (-1), for <see cref="Sleepers"/>.</summary>
    /// <param name="delta">+1 or -1.</param>
    public void CountSleeper(int delta) =>
        // Interlocked: sleepers of every set update the count concurrently.
        Interlocked.Add(ref _sleepers.Value, delta);

    /// <summary>
    /// Lending wake-up (best effort): wakes one sleeping worker that does not serve <paramref name="queues"/>, so
    /// that it looks for work elsewhere. Used when <paramref name="queues"/> has new work and no sleeper of its own.
    /// A worker at home in <see cref="InitialSet"/> is never woken to lend: its CPU is not given to any set (no set
    /// yet, or withheld by a machine domain), and it would find nothing to lend itself to.
    /// </summary>
    /// <param name="queues">The set that has new work.</param>
    public void WakeLender(WorkQueueSet queues)
    {
        // A racy cursor is fine: it only spreads wake-ups, correctness comes from the CAS in TryWake.
        int start = (int)((uint)_wakeCursor++ % (uint)_workers.Length);
        for (int i = 0; i < _workers.Length; i++)
        {
            int index = start + i;
            Worker worker = _workers[index < _workers.Length ? index : index - _workers.Length];
            if (worker.IsParked && !ReferenceEquals(worker.Queues, queues) && !ReferenceEquals(worker.Home, InitialSet) && worker.TryWake())
            {
                return;
            }
        }
    }

    /// <summary>Whether a stopping worker serving <paramref name="queues"/> may exit.</summary>
    /// <param name="queues">The set the worker serves.</param>
    /// <returns>Whether nothing accepted is left to start (in every set, when there is a director).</returns>
    public bool CanExit(WorkQueueSet queues) => Director?.AllQuiescent() ?? queues.IsQuiescent;

    /// <summary>Asks every worker to exit once the set it serves is quiescent (a standby at once), and wakes them all.</summary>
    public void RequestStop()
    {
        // [X1] Full fence: the flag is visible before we read the workers' states, pairing with a sleeper's announce
        // ([P1], [P2]) or a standby's ([S1], [S2]) followed by its read of the flag ([P3], [S3]): one of us sees the
        // other. A worker claimed here finds the flag after its wait.
        Interlocked.Exchange(ref _stopRequested, 1);
        foreach (Worker worker in _workers)
        {
            if (!worker.TryWake())
            {
                worker.TryActivate();
            }
        }
    }

    /// <summary>Releases the wait handles; only after every worker thread has exited.</summary>
    public void Dispose()
    {
        _started.Dispose();
        foreach (Worker worker in _workers)
        {
            worker.Dispose();
        }
    }

    /// <summary>
    /// Waits for every worker thread except the calling one to exit, up to <paramref name="timeout"/> in total.
    /// </summary>
    /// <param name="timeout">The total time to wait.</param>
    /// <returns>Whether all (other) workers exited in time.</returns>
    public bool Join(TimeSpan timeout)
    {
        Debug.Assert(StopRequested, "Join only after RequestStop.");
        var clock = Stopwatch.StartNew();
        bool all = true;
        foreach (Worker worker in _workers)
        {
            if (worker.Thread == Thread.CurrentThread)
            {
                continue;
            }

            TimeSpan left = timeout - clock.Elapsed;
            all &= worker.Thread.Join(left > TimeSpan.Zero ? left : TimeSpan.Zero);
        }

        return all;
    }
}
