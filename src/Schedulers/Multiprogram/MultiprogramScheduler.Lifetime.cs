using System.Diagnostics;
using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// Shutdown: every program is closed and drains, then the rebalancer and the workers stop; blocking, bounded and
/// asynchronous forms.
/// </summary>
public sealed partial class MultiprogramScheduler
{
    /// <summary>
    /// Stops accepting tasks in every program, lets every accepted task finish, then stops the rebalancer and the
    /// workers, waiting up to <see cref="DefaultShutdownTimeout"/>. Never throws; a second call does nothing.
    /// </summary>
    public void Dispose()
    {
        if (!IsDisposed && !Shutdown(DefaultShutdownTimeout) && !IsCurrentThreadWorker())
        {
            OnShutdownTimedOut($"MultiprogramScheduler: workers still running {DefaultShutdownTimeout} after Dispose.");
        }
    }

    /// <summary>Like <see cref="Dispose"/> with an explicit total timeout. Only the first call does anything.</summary>
    /// <param name="timeout">How long to wait for the programs to drain and the workers to exit.</param>
    /// <returns>Whether everything finished in time (<see langword="false"/> from a worker thread: it does not wait).</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="timeout"/> is negative.</exception>
    public bool Shutdown(TimeSpan timeout)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(timeout, TimeSpan.Zero);
        // Interlocked: exactly one caller shuts down.
        if (Interlocked.Exchange(ref _disposeState, 1) != 0)
        {
            // A later call reports the outcome now: the workers may have exited since the first call timed out.
            if (_pool.Exited.IsCompleted)
            {
                Volatile.Write(ref _workersExited, true); // Volatile: ShutdownTimedOut readers on other threads.
            }

            return Volatile.Read(ref _workersExited); // Volatile: the first caller may be another thread.
        }

        _metrics?.Remove(this);
        var clock = Stopwatch.StartNew();
        LeaveDomainForShutdown();
        ProgramTaskScheduler[] programs;
        lock (_gate)
        {
            // Under the lock: a Register that checked IsDisposed before our Exchange has finished and is included.
            programs = _programs;
        }

        bool onWorker = IsCurrentThreadWorker();
        foreach (ProgramTaskScheduler program in programs)
        {
            program.Shutdown(TimeSpan.Zero);
        }

        bool drained = true;
        foreach (ProgramTaskScheduler program in programs)
        {
            TimeSpan left = timeout - clock.Elapsed;
            drained &= !onWorker && program.Completion.Wait(left > TimeSpan.Zero ? left : TimeSpan.Zero);
        }

        TimeSpan rest = timeout - clock.Elapsed;
        _rebalancer.Stop(rest > TimeSpan.Zero ? rest : TimeSpan.Zero);
        rest = timeout - clock.Elapsed;
        bool exited = StopWorkers(rest > TimeSpan.Zero ? rest : TimeSpan.Zero) && drained;
        if (!onWorker)
        {
            CompleteEventStreams(); // The shutdown is over (or its wait timed out): the event streams end.
        }
        DisposeArbiter();
        if (exited)
        {
            // Only ever set, never cleared: a later ShutdownAsync that saw the workers exit may already have set it,
            // and a timed-out result written after that would make ShutdownTimedOut true again.
            Volatile.Write(ref _workersExited, true); // Volatile: ShutdownTimedOut readers on other threads.
        }

        return exited;
    }

    /// <summary>
    /// Like <see cref="Dispose"/> without blocking a thread: closes every program, lets every accepted task finish,
    /// then stops the rebalancer and the workers; completes when the workers have exited or after
    /// <see cref="DefaultShutdownTimeout"/> (then <see cref="ShutdownTimedOut"/> stays <see langword="true"/> and a trace
    /// warning is written). Never throws. A later call (of this or <see cref="Dispose"/>) does nothing.
    /// </summary>
    /// <returns>A task that completes when disposal is done or timed out.</returns>
    /// <remarks>Do not await it from a task of one of its programs: the continuation would be queued on a closed program.</remarks>
    public async ValueTask DisposeAsync()
    {
        if (IsDisposed)
        {
            return;
        }

        await BoundedShutdown.WaitAsync(
            ShutdownAsync,
            DefaultShutdownTimeout,
            () => $"MultiprogramScheduler: workers still running {DefaultShutdownTimeout} after DisposeAsync.").ConfigureAwait(false);
        CompleteEventStreams(); // The shutdown is over (or its wait timed out): the event streams end.
    }

    /// <summary>
    /// Starts the shutdown if no call of <see cref="Shutdown"/>, <see cref="Dispose"/> or this method did (every
    /// program is closed; accepted tasks still run, none is cancelled; then the rebalancer and the workers stop), and
    /// returns a task that completes when every program has left and every worker has exited. Safe from a worker.
    /// </summary>
    /// <param name="cancellationToken">Cancels the wait only: the shutdown goes on.</param>
    /// <returns>A task that completes when the shutdown is done, or is cancelled with <paramref name="cancellationToken"/>.</returns>
    public Task ShutdownAsync(CancellationToken cancellationToken = default)
    {
        // Interlocked: exactly one caller (of this, Shutdown or Dispose) shuts down.
        Task done = Interlocked.Exchange(ref _disposeState, 1) == 0 ? ShutdownCoreAsync() : WaitForWorkersAsync();
        return done.WaitAsync(cancellationToken);
    }

    /// <summary>
    /// Awaits that resumed after their program had closed and so ran on the .NET thread pool instead of being refused
    /// (a refused resumption would leave its method waiting for ever); see the multiprogram README, "Departure".
    /// </summary>
    public long LateResumptions => Interlocked.Read(ref _lateResumptions); // Atomic 64-bit read on every platform.

    /// <summary>
    /// A closed program refused a task queued from outside its workers. If it is the resumption of an
    /// <c>await</c> (the TPL queues it on <see cref="TaskScheduler.Current"/> and, when that scheduler refuses it,
    /// faults a task nobody sees: the awaiting method would wait for ever), it runs on the .NET thread pool instead,
    /// still with the program as <see cref="TaskScheduler.Current"/>, so that anything it queues there is refused
    /// and faults the method: the method ends either way. Any other task stays refused.
    /// </summary>
    /// <param name="program">The program that refused it.</param>
    /// <param name="task">The refused task.</param>
    /// <param name="execute">The program's <c>TryExecuteTask</c>.</param>
    /// <returns>Whether the task was taken (an await's resumption).</returns>
    internal bool TryResumeLate(ProgramTaskScheduler program, Task task, Func<Task, bool> execute)
    {
        // The TPL's await continuation for a non-default scheduler is a task whose state is the awaiting method's
        // resumption delegate (an Action) and whose public creation options are None; tasks a program's own code
        // starts carry their own state (null for the Action overloads).
        if (task.AsyncState is not Action || task.CreationOptions != TaskCreationOptions.None)
        {
            return false;
        }

        Interlocked.Increment(ref _lateResumptions); // Interlocked: any thread may resume late.
        OnLateResumption(program);
        ThreadPool.UnsafeQueueUserWorkItem(static state => ((LateResumption)state!).Run(), new LateResumption(task, execute));
        return true;
    }

    private async Task WaitForWorkersAsync()
    {
        // Exited's continuations run asynchronously (never on an exiting worker). The workers exit only once every
        // program has drained, so their exit is the whole shutdown's outcome.
        await _pool.Exited.ConfigureAwait(false);
        Volatile.Write(ref _workersExited, true); // Volatile: ShutdownTimedOut readers on other threads.
    }

    private async Task ShutdownCoreAsync()
    {
        _metrics?.Remove(this);
        LeaveDomainForShutdown();
        ProgramTaskScheduler[] programs;
        lock (_gate)
        {
            // Under the lock: a Register that checked IsDisposed before our Exchange has finished and is included.
            programs = _programs;
        }

        foreach (ProgramTaskScheduler program in programs)
        {
            program.Shutdown(TimeSpan.Zero); // Closes without waiting.
        }

        // Completion's continuations run asynchronously: this method never resumes on a worker.
        await Task.WhenAll(programs.Select(p => p.Completion)).ConfigureAwait(false);
        _rebalancer.Stop(TimeSpan.Zero);
        _pool.RequestStop();
        await _pool.Exited.ConfigureAwait(false);
        _pool.Dispose();
        if (_rebalancer.Stop(TimeSpan.Zero))
        {
            // Its handle is released only once its thread is gone (it exits at once when stopped; if it has not yet,
            // the handle is left to the finalizer rather than pulled from under the thread).
            _rebalancer.Dispose();
        }

        DisposeArbiter();
        Volatile.Write(ref _workersExited, true); // Volatile: ShutdownTimedOut readers on other threads.
        CompleteEventStreams(); // Before the shutdown's task completes: its awaiter sees the streams ended.
    }

    private bool StopWorkers(TimeSpan timeout)
    {
        _pool.RequestStop();
        if (IsCurrentThreadWorker())
        {
            return false;
        }

        bool exited = _pool.Join(timeout);
        if (exited)
        {
            _pool.Dispose();
            _rebalancer.Dispose();
        }

        return exited;
    }

    private bool IsCurrentThreadWorker() => Worker.Current is { } worker && ReferenceEquals(worker.Pool, _pool);

    /// <summary>A late await resumption and the program's executor, queued together to the .NET thread pool.</summary>
    private sealed class LateResumption(Task task, Func<Task, bool> execute)
    {
        public void Run() => execute(task);
    }
}
