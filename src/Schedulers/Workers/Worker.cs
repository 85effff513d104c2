using System.Diagnostics;

namespace DivCon.Schedulers.Workers;

/// <summary>
/// One dedicated worker thread. It serves one <see cref="WorkQueueSet"/> at a time (read afresh each iteration)
/// using slot <see cref="Index"/> of that set: take a task (own deque, global queue, steal), run it, repeat; when
/// nothing is found, spin a bounded number of rounds, then park until woken.
/// </summary>
/// <remarks>
/// <para>States and the wake-up protocol are described in README-wakeups.md beside this folder.</para>
/// <para>
/// <b>Home and moves.</b> Besides the set it serves, a worker has a <see cref="Home"/> set (the program that owns
/// it). Anyone may change the home with <see cref="RequestMove"/>; the worker itself performs the move at its next
/// task boundary (a running task never changes thread), and a parked worker is woken to do so.
/// </para>
/// <para>
/// <b>Lending.</b> When the pool has a <see cref="IWorkerDirector"/> and the home set has no work after spinning,
/// the worker asks the director for another set with work and serves it, lent, until that set runs dry or its home
/// has work again (checked at every task boundary while lent). Parking always happens at home.
/// </para>
/// </remarks>
internal sealed class Worker : IDisposable
{
    /// <summary>Spin rounds (each one <c>SpinWait.SpinOnce</c> plus a scan) before parking.</summary>
    internal const int SpinRounds = 24;

    private const int Awake = 0;
    private const int Sleeping = 1;

    [ThreadStatic]
    private static Worker? t_current;

    private readonly WorkerPool _pool;
    private readonly SemaphoreSlim _wake = new(0, 1);
    private WorkQueueSet _queues;
    private WorkQueueSet _home;

    // Worker thread only: the home this worker had when it lent itself out; null when not lent.
    private WorkQueueSet? _lentFrom;
    private int _state;
    private uint _random;

    /// <summary>Creates a worker (its thread is started by the pool).</summary>
    /// <param name="pool">The pool it belongs to.</param>
    /// <param name="index">Its index in the pool, which is also its slot in every queue set.</param>
    /// <param name="queues">The queue set it serves first.</param>
    public Worker(WorkerPool pool, int index, WorkQueueSet queues)
    {
        _pool = pool;
        Index = index;
        _queues = queues;
        _home = queues;
        _random = (uint)(index * 0x9E3779B9u) | 1u;
        Thread = new Thread(Run)
        {
            IsBackground = true,
            Name = $"DivCon worker {index}",
        };
    }

    /// <summary>The worker running on the calling thread, or <see langword="null"/> on any other thread.</summary>
    public static Worker? Current => t_current;

    /// <summary>The worker's index in its pool and its slot in every queue set.</summary>
    public int Index { get; }

    /// <summary>The worker's thread.</summary>
    public Thread Thread { get; }

    /// <summary>The pool the worker belongs to.</summary>
    public WorkerPool Pool => _pool;

    /// <summary>The queue set the worker serves now.</summary>
    public WorkQueueSet Queues => Volatile.Read(ref _queues); // Acquire: pairs with MoveTo's release.

    /// <summary>The set that owns the worker (it serves it whenever it is not lent out or moving).</summary>
    public WorkQueueSet Home => Volatile.Read(ref _home); // Acquire: pairs with RequestMove's interlocked store.

    /// <summary>Whether the worker has announced it is asleep (parked or about to park).</summary>
    public bool IsParked => Volatile.Read(ref _state) == Sleeping; // Volatile: read by wakers and tests.

    /// <summary>
    /// Worker thread only, between tasks: hands the local deque back to the current set's global queue and serves
    /// <paramref name="next"/> from now on (the seam a multiprogram scheduler uses to move a worker).
    /// </summary>
    /// <param name="next">The set to serve.</param>
    public void MoveTo(WorkQueueSet next)
    {
        Debug.Assert(ReferenceEquals(t_current, this), "Only the worker itself changes its queue set.");
        WorkQueueSet current = _queues;
        if (ReferenceEquals(current, next))
        {
            return;
        }

        current.DrainLocalToGlobal(Index);
        // Release: readers of Queues (QueueTask on this thread, wakers) see the new set after the drain.
        Volatile.Write(ref _queues, next);
    }

    /// <summary>
    /// Any thread: makes <paramref name="home"/> the worker's owner. The worker moves at its next task boundary
    /// (finishing the task it runs, draining its deque to the old set); a parked worker is woken to move.
    /// </summary>
    /// <param name="home">The new home set.</param>
    public void RequestMove(WorkQueueSet home)
    {
        ArgumentNullException.ThrowIfNull(home);
        // Full fence: the new home is visible before we read the parked state in TryWake (Dekker pair with Park,
        // which stores Sleeping, fences, then rereads Home): either Park sees the move or we see Sleeping.
        Interlocked.Exchange(ref _home, home);
        TryWake();
    }

    /// <summary>Claims a sleeping worker and releases it. Returns false if it was not asleep (or already claimed).</summary>
    /// <returns>Whether this call woke the worker.</returns>
    public bool TryWake()
    {
        // CAS: exactly one of (the sleeper cancelling itself, one waker) moves Sleeping -> Awake, so the semaphore
        // is released at most once per sleep.
        if (Volatile.Read(ref _state) != Sleeping ||
            Interlocked.CompareExchange(ref _state, Awake, Sleeping) != Sleeping)
        {
            return false;
        }

        _queues.RetractSleeper();
        _wake.Release();
        return true;
    }

    /// <summary>Releases the worker's wait handle; only after its thread has exited.</summary>
    public void Dispose() => _wake.Dispose();

    private void Run()
    {
        t_current = this;
        if (!_pool.RunStartHook(this))
        {
            return;
        }

        while (true)
        {
            // Only this thread writes _queues, so a plain read is current.
            WorkQueueSet queues = _queues;
            WorkQueueSet home = Home;
            if (!ReferenceEquals(queues, home) && !StayLent(home))
            {
                // Moved by the rebalancer, or lent and the home has work again: go home.
                MoveTo(home);
                _lentFrom = null;
                queues = home;
            }

            Task? task = queues.TryTake(Index, ref _random) ?? Spin(queues, home);
            if (task is not null)
            {
                queues.Execute(Index, task);
                continue;
            }

            if (!ReferenceEquals(queues, home))
            {
                // Lent and the borrower ran dry (or a move arrived while spinning): the next iteration goes home.
                _lentFrom = null;
                continue;
            }

            if (_pool.Director?.FindWork(this) is { } other)
            {
                _lentFrom = home;
                MoveTo(other);
                continue;
            }

            if (_pool.StopRequested)
            {
                if (_pool.CanExit(queues))
                {
                    return;
                }

                // Stopping but not quiescent (a producer in flight, or a lost steal race): do not park, the producer
                // may have been refused and will not wake anyone.
                Thread.Yield();
                continue;
            }

            Park(queues);
        }
    }

    private bool StayLent(WorkQueueSet home) =>
        ReferenceEquals(_lentFrom, home) && home.LooksEmpty();

    private Task? Spin(WorkQueueSet queues, WorkQueueSet home)
    {
        var spinner = default(SpinWait);
        for (int round = 0; round < SpinRounds && !_pool.StopRequested && ReferenceEquals(Home, home); round++)
        {
#if NETCOREAPP
            spinner.SpinOnce(sleep1Threshold: -1);
#else
            spinner.SpinOnce(); // no sleep1Threshold before .NET Core 3.0: may yield with Sleep(1) late in the spin.
#endif
            if (queues.TryTake(Index, ref _random) is { } task)
            {
                return task;
            }
        }

        return null;
    }

    private void Park(WorkQueueSet queues)
    {
        // Announce, then recheck, then block (README-wakeups.md). The state store is ordered before the counter's
        // Interlocked increment, so a waker that sees the count also sees Sleeping.
        Volatile.Write(ref _state, Sleeping);
        queues.AnnounceSleeper();
        if (!queues.LooksEmpty() || _pool.StopRequested || !ReferenceEquals(Home, queues))
        {
            // CAS: cancel our own announcement unless a waker already claimed us.
            if (Interlocked.CompareExchange(ref _state, Awake, Sleeping) == Sleeping)
            {
                queues.RetractSleeper();
                return;
            }

            // A waker claimed us and has released (or is about to release) the semaphore: consume that release.
            _wake.Wait();
            return;
        }

        queues.CountPark(Index);
        _wake.Wait();
        // Volatile: the waker's CAS happened on another thread before its Release, which we observed.
        Debug.Assert(Volatile.Read(ref _state) == Awake, "Only a waker that set Awake releases the semaphore.");
    }
}
