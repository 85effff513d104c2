using System.Diagnostics;
using DivCon.Schedulers.Multiprogram.Domain;
using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// Cross-process lending at task grain (opt-in, <see cref="MachineDomainOptions.Guests"/>): the worker of a CPU
/// withheld from this process runs this process's tasks there, one at a time, while the CPU's holder says on the
/// domain's guest board that it is idle; the holder's own worker says so when it parks and unsays it when it wakes.
/// The protocol and why it is correct: the Domain README, "Guests".
/// </summary>
/// <remarks>
/// Three parties. A server parking at home publishes <see cref="GuestCpuState.Idle"/> on its CPU (or
/// <see cref="GuestCpuState.None"/> when its home is the idle set: the CPU is not this process's), and
/// <see cref="GuestCpuState.Busy"/> when it wakes (<see cref="OnParking"/>). The watcher thread renews the
/// heartbeat and wakes the parked worker of a withheld CPU whose holder is idle while some program here has queued
/// tasks. That worker, finding its home (the idle set) empty, asks the director for work, which lends it to a
/// program with tasks only if the board still says the holder is idle (<see cref="MayGuest"/>), and rechecks at
/// every task boundary (<see cref="IWorkerDirector.KeepsLoan"/>): it goes home and parks as soon as the holder is
/// busy again, so the holder gets its CPU back within the task the guest is running.
/// </remarks>
internal sealed class GuestLending : IDisposable
{
    /// <summary>How often the watcher looks at the board while some CPU is withheld from this process.</summary>
    public static readonly TimeSpan Poll = TimeSpan.FromMilliseconds(1);

    /// <summary>How often it looks (to renew the heartbeat) while none is.</summary>
    public static readonly TimeSpan QuietPoll = TimeSpan.FromMilliseconds(5);

    /// <summary>How long it waits before trying again to open a board it could not open.</summary>
    public static readonly TimeSpan RetryOpen = TimeSpan.FromMilliseconds(500);

    private readonly WorkerPool _pool;
    private readonly WorkQueueSet _idle;
    private readonly int[] _cpuOfWorker;
    private readonly Func<IGuestBoard?> _open;
    private readonly Func<bool> _anyWork;
    private readonly Action<string> _log;
    private readonly ManualResetEventSlim _stop = new(false);
    private readonly Thread _thread;
    private IGuestBoard? _board; // Written by the watcher (and Dispose), read by workers: volatile.
    private long _loans;
    private long _handbacks;
    private long _wakes;
    private long _polls;
    private int _disposed;

    /// <summary>Creates the lending and starts its watcher.</summary>
    /// <param name="pool">The worker pool.</param>
    /// <param name="idle">The idle set (the home of withheld CPUs).</param>
    /// <param name="cpuOfWorker">The CPU id of every worker slot.</param>
    /// <param name="open">Opens the board (null: not now, the watcher tries again later).</param>
    /// <param name="anyWork">Whether some program here has queued tasks.</param>
    /// <param name="log">Where to say why there is no board.</param>
    public GuestLending(WorkerPool pool, WorkQueueSet idle, int[] cpuOfWorker, Func<IGuestBoard?> open, Func<bool> anyWork, Action<string> log)
    {
        _pool = pool;
        _idle = idle;
        _cpuOfWorker = cpuOfWorker;
        _open = open;
        _anyWork = anyWork;
        _log = log;
        _thread = new Thread(Watch) { IsBackground = true, Name = "DivCon guests" };
        _thread.Start();
    }

    /// <summary>Loans: a withheld CPU's worker lent itself to a program here because the CPU's holder was idle.</summary>
    public long Loans => Interlocked.Read(ref _loans); // Atomic 64-bit read on every platform.

    /// <summary>Hand-backs: a guest left at a task boundary because the holder was no longer idle.</summary>
    public long Handbacks => Interlocked.Read(ref _handbacks); // Atomic 64-bit read.

    /// <summary>Withheld CPUs' workers woken by the watcher to look for a loan.</summary>
    public long Wakes => Interlocked.Read(ref _wakes); // Atomic 64-bit read.

    /// <summary>The watcher's looks at the board (its polling cost).</summary>
    public long Polls => Interlocked.Read(ref _polls); // Atomic 64-bit read.

    /// <summary>Whether a board is open now.</summary>
    public bool HasBoard => Volatile.Read(ref _board) is not null;

    /// <summary>Worker thread: whether a worker of a withheld CPU may run a task here now (its holder is idle).</summary>
    /// <param name="worker">The worker.</param>
    /// <returns>Whether the board says the CPU's holder is idle.</returns>
    public bool MayGuest(Worker worker)
    {
        try
        {
            return Volatile.Read(ref _board) is { } board && board.OwnerIdle(_cpuOfWorker[worker.Cpu.Index]);
        }
#pragma warning disable CA1031 // A worker thread must never die of the board: a board that fails means no loan.
        catch (Exception)
#pragma warning restore CA1031
        {
            return false;
        }
    }

    /// <summary>Worker thread: a loan began.</summary>
    public void CountLoan() => Interlocked.Increment(ref _loans); // Interlocked: many workers, read by reports.

    /// <summary>Worker thread: a loan ended at a boundary because the holder was busy again.</summary>
    public void CountHandback() => Interlocked.Increment(ref _handbacks); // Interlocked: as above.

    /// <summary>
    /// Worker thread: the CPU's server is about to block at home (<paramref name="asleep"/>) or has just woken.
    /// Publishes the CPU's state when the CPU is this process's (its home is a program), else that it holds nothing
    /// there. The write is one <c>pwrite</c> of one byte, next to the futex wait or wake it accompanies.
    /// </summary>
    /// <param name="worker">The server.</param>
    /// <param name="asleep">Whether it is about to block.</param>
    public void OnParking(Worker worker, bool asleep)
    {
        if (Volatile.Read(ref _board) is not { } board)
        {
            return;
        }

        try
        {
            board.Publish(_cpuOfWorker[worker.Cpu.Index], GuestRules.StateOf(!ReferenceEquals(worker.Home, _idle), asleep));
        }
#pragma warning disable CA1031 // A worker thread must never die of the board: a lost publication costs a loan, never a task.
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

    /// <summary>Stops the watcher and closes the board (this process's row is freed). Idempotent.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        _stop.Set();
        if (!ReferenceEquals(Thread.CurrentThread, _thread))
        {
            _thread.Join();
        }

        Interlocked.Exchange(ref _board, null)?.Dispose();
        _stop.Dispose();
    }

    private void Watch()
    {
        try
        {
            WatchLoop();
        }
#pragma warning disable CA1031 // An exception on this thread would end the process: lending stops instead, tasks go on.
        catch (Exception ex)
#pragma warning restore CA1031
        {
            _log($"cross-process lending stopped ({ex.GetType().Name}: {ex.Message})");
            Interlocked.Exchange(ref _board, null)?.Dispose();
        }
    }

    private void WatchLoop()
    {
        long nextOpen = 0;
        bool reported = false;
        TimeSpan wait = TimeSpan.Zero;
        while (!_stop.Wait(wait))
        {
            long now = Stopwatch.GetTimestamp();
            IGuestBoard? board = Volatile.Read(ref _board);
            if (board is null)
            {
                if (now < nextOpen)
                {
                    wait = RetryOpen;
                    continue;
                }

                board = TryOpen(ref reported);
                if (board is null)
                {
                    nextOpen = now + (long)(RetryOpen.TotalSeconds * Stopwatch.Frequency);
                    wait = RetryOpen;
                    continue;
                }

                PublishAll(board);
            }

            Interlocked.Increment(ref _polls); // Interlocked: read by reports.
            if (!board.Refresh(now))
            {
                // Unreadable or our row taken over: close it, open it again (a new row) at once.
                Interlocked.Exchange(ref _board, null)?.Dispose();
                wait = TimeSpan.Zero;
                continue;
            }

            wait = WakeGuests(board) ? Poll : QuietPoll;
        }
    }

    private IGuestBoard? TryOpen(ref bool reported)
    {
        IGuestBoard? board;
        try
        {
            board = _open();
        }
#pragma warning disable CA1031 // A board that cannot be opened leaves the process without guests.
        catch (Exception ex)
#pragma warning restore CA1031
        {
            board = null;
            if (!reported)
            {
                _log($"no guest board ({ex.GetType().Name}: {ex.Message}); CPUs are not lent across processes");
                reported = true;
            }
        }

        if (board is null)
        {
            return null;
        }

        Volatile.Write(ref _board, board); // Release: workers that read it see it whole.
        if (Volatile.Read(ref _disposed) != 0 && Interlocked.Exchange(ref _board, null) is { } late)
        {
            late.Dispose(); // Disposed while opening: nothing may keep a row.
            return null;
        }

        return board;
    }

    /// <summary>
    /// Publishes every CPU's state as it stands (a server asleep since before the board opened never publishes
    /// otherwise). Racing a server's own publication can leave one stale byte until that server parks or wakes
    /// again, which costs at most a guest's task on a busy CPU or a missed loan; never a task.
    /// </summary>
    private void PublishAll(IGuestBoard board)
    {
        for (int slot = 0; slot < _cpuOfWorker.Length; slot++)
        {
            CpuSlot cpu = _pool.Cpus[slot];
            board.Publish(_cpuOfWorker[slot], GuestRules.StateOf(!ReferenceEquals(cpu.Home, _idle), cpu.Server.IsParked));
        }
    }

    /// <summary>
    /// Wakes the parked worker of every withheld CPU whose holder is idle, when some program here has queued tasks.
    /// Returns whether any CPU is withheld (the watcher then polls at its fast rate).
    /// </summary>
    private bool WakeGuests(IGuestBoard board)
    {
        bool withheld = false;
        bool? work = null;
        for (int slot = 0; slot < _cpuOfWorker.Length; slot++)
        {
            CpuSlot cpu = _pool.Cpus[slot];
            if (!ReferenceEquals(cpu.Home, _idle))
            {
                continue;
            }

            withheld = true;
            Worker server = cpu.Server;
            if (!server.IsParked || _pool.StopRequested)
            {
                continue;
            }

            work ??= _anyWork();
            if (work == true && board.OwnerIdle(_cpuOfWorker[slot]) && server.TryWake())
            {
                Interlocked.Increment(ref _wakes); // Interlocked: read by reports.
            }
        }

        return withheld;
    }
}
