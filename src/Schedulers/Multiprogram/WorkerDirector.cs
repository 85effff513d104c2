using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// The multiprogram scheduler's answers to idle workers: which program to lend themselves to, and whether stopping
/// workers may exit. Reads a copy-on-write array of the live programs' queue sets, lock-free.
/// </summary>
internal sealed class WorkerDirector : IWorkerDirector
{
    private readonly bool _lending;
    private readonly LendingPreference _preference;
    private readonly WorkQueueSet _idle;
    private WorkQueueSet[] _sets = [];
    private bool _ordered; // whether _sets is in a decision's lending order (scan from the first) or not (round-robin)
    private WorkerPool? _pool;
    private int _cursor;
    private BurstParts _bursts = BurstParts.None; // the last decision's burst roles (copy on write)

    public WorkerDirector(bool lending, WorkQueueSet idle, LendingPreference preference = LendingPreference.RoundRobin)
    {
        _lending = lending;
        _idle = idle;
        _preference = preference;
    }

    /// <summary>
    /// The live programs' sets (including programs that are draining before they leave), in no order: idle workers
    /// are spread over them round-robin until <see cref="SetLendingOrder"/> orders them.
    /// </summary>
    public WorkQueueSet[] Sets
    {
        get => Volatile.Read(ref _sets); // Acquire: pairs with the setter's release, a fully built array.
        set
        {
            Volatile.Write(ref _ordered, false);
            Volatile.Write(ref _sets, value); // Release: the array is complete before workers read it.
        }
    }

    /// <summary>
    /// The live programs' sets in a decision's lending order: an idle worker lends itself to the first one with work.
    /// </summary>
    /// <param name="ordered">Every live program's set once, the first preferred.</param>
    public void SetLendingOrder(WorkQueueSet[] ordered)
    {
        Volatile.Write(ref _sets, ordered); // Release: the array is complete before workers read it.
        Volatile.Write(ref _ordered, true);
    }

    /// <summary>
    /// Bursts first: the sets of the programs a decision made bursty and of those it made yield
    /// (<see cref="Model.AllocationDecision.BurstRoles"/>); empty arrays when it gave none.
    /// </summary>
    /// <param name="bursty">The bursty programs' sets, in registration order.</param>
    /// <param name="yielding">The yielding programs' sets.</param>
    public void SetBurstRoles(WorkQueueSet[] bursty, WorkQueueSet[] yielding) =>
        Volatile.Write(ref _bursts, bursty.Length == 0 ? BurstParts.None : new BurstParts(bursty, yielding)); // Release: complete arrays.

    /// <inheritdoc />
    public WorkQueueSet? BurstFor(WorkQueueSet serving)
    {
        // Bursts first is lending at a boundary: off with lending (as in the simulator).
        BurstParts parts = Volatile.Read(ref _bursts); // Acquire: pairs with SetBurstRoles.
        return _lending && parts.Yielding.Length != 0 && Array.IndexOf(parts.Yielding, serving) >= 0 ? BurstWithWork(parts.Bursty) : null;
    }

    /// <inheritdoc />
    public bool StaysForBurst(WorkQueueSet home, WorkQueueSet serving)
    {
        BurstParts parts = Volatile.Read(ref _bursts);
        return parts.Yielding.Length != 0 && Array.IndexOf(parts.Yielding, home) >= 0 && Array.IndexOf(parts.Bursty, serving) >= 0
            && !serving.LooksEmpty();
    }

    // The first bursty set with queued tasks, in registration order (one burst finishes early rather than all late);
    // null when none has any.
    private static WorkQueueSet? BurstWithWork(WorkQueueSet[] bursty)
    {
        foreach (WorkQueueSet set in bursty)
        {
            if (!set.LooksEmpty())
            {
                return set;
            }
        }

        return null;
    }

    /// <summary>
    /// Cross-process lending, when the process joined a domain with guests (null: none). Set once, after the
    /// workers started; read by workers on their idle path.
    /// </summary>
    public GuestLending? Guests
    {
        get => Volatile.Read(ref field); // Acquire: pairs with the setter's release.
        set => Volatile.Write(ref field, value);
    }

    /// <summary>Connects the pool (for its stop flag). Called once, before the workers start.</summary>
    /// <param name="pool">The pool.</param>
    public void Attach(WorkerPool pool) => _pool = pool;

    /// <inheritdoc />
    public WorkQueueSet? FindWork(Worker worker)
    {
        // While stopping, every worker helps whatever is left, lending or not.
        bool stopping = _pool?.StopRequested == true;
        WorkQueueSet home = worker.Home;
        WorkQueueSet[] sets = Sets;
        if (sets.Length == 0)
        {
            return null;
        }

        // A worker at home in the idle set while programs run holds a CPU withheld by a machine domain (another
        // process's now): it sleeps and never lends itself (while stopping it helps, like every worker), unless the
        // process lends across processes and the CPU's holder says it is idle: then it is a guest ([L3]).
        GuestLending? guests = null;
        if (!stopping && ReferenceEquals(home, _idle))
        {
            guests = Guests;
            if (guests is null || !guests.MayGuest(worker))
            {
                return null;
            }
        }
        else if (!_lending && !stopping)
        {
            return null;
        }

        // Bursts first: an idle worker of this process goes to a bursty program with queued tasks before any other.
        if (guests is null && !stopping && Volatile.Read(ref _bursts) is { Bursty.Length: > 0 } parts &&
            BurstWithWork(parts.Bursty) is { } burst && !ReferenceEquals(burst, home))
        {
            return burst;
        }

        if (_preference != LendingPreference.RoundRobin)
        {
            WorkQueueSet? chosen = ChooseByPreference(sets, home);
            if (chosen is not null)
            {
                guests?.CountLoan();
            }

            return chosen;
        }

        // In a lending order: the first program with work. Otherwise a racy cursor only spreads idle workers over the
        // programs. Any answer is correct (a flag read apart from the array may pair an order with an unordered
        // array for one scan, which only changes who is served first).
        int start = Volatile.Read(ref _ordered) ? 0 : (int)((uint)_cursor++ % (uint)sets.Length);
        for (int i = 0; i < sets.Length; i++)
        {
            int index = start + i;
            WorkQueueSet set = sets[index < sets.Length ? index : index - sets.Length];
            if (!ReferenceEquals(set, home) && !set.LooksEmpty())
            {
                guests?.CountLoan();
                return set;
            }
        }

        return null;
    }

    /// <summary>
    /// The lending preference's choice (<see cref="LendingChoice"/>, the simulator's rule) from what the sets show
    /// lock-free: queued work (<see cref="WorkQueueSet.LooksEmpty"/>), "only a new run's root" as one task outstanding
    /// (<see cref="WorkQueueSet.OutstandingTasks"/> at most 1 while a task is seen queued: that task is queued and
    /// none runs), and the run's start as the set's busy period (<see cref="WorkQueueSet.BusySince"/>). Each value
    /// is read apart from the others while workers run, so the choice may be one that was right a moment ago: it
    /// only changes which program is served first: whichever set is returned, the worker serves it as any lent worker
    /// (home at the first boundary where its home has work, back when the borrower runs dry), and every task stays in
    /// its queue until one worker takes it.
    /// </summary>
    private WorkQueueSet? ChooseByPreference(WorkQueueSet[] sets, WorkQueueSet home)
    {
        int count = sets.Length;
        Span<int> queued = count <= 64 ? stackalloc int[count] : new int[count];
        Span<bool> rootOnly = count <= 64 ? stackalloc bool[count] : new bool[count];
        Span<long> runStart = count <= 64 ? stackalloc long[count] : new long[count];
        int homeIndex = -1; // a worker at home in the idle set (a guest, or stopping) has no home among the programs
        for (int s = 0; s < count; s++)
        {
            WorkQueueSet set = sets[s];
            if (ReferenceEquals(set, home))
            {
                homeIndex = s;
            }
            else if (!set.LooksEmpty())
            {
                queued[s] = 1;
                rootOnly[s] = set.OutstandingTasks <= 1;
                runStart[s] = set.BusySince;
            }
        }

        // In a lending order the array is that order: scanning it from 0 is the order's scan (RunsInProgress within each
        // tier), and the cursor is left alone; otherwise the racy cursor, as round-robin (a lost update only repeats
        // a start). OldestRun reads neither.
        bool ordered = Volatile.Read(ref _ordered);
        int cursor = ordered ? 0 : (int)((uint)_cursor % (uint)count);
        int chosen = LendingChoice.Choose(_preference, homeIndex, queued, rootOnly, runStart, order: null, ref cursor);
        if (!ordered)
        {
            _cursor = cursor;
        }

        return chosen >= 0 ? sets[chosen] : null;
    }

    /// <inheritdoc />
    public bool KeepsLoan(Worker worker)
    {
        // Lent within the process, or stopping: the loan lasts until the home has work or the borrower runs dry.
        if (!ReferenceEquals(worker.Home, _idle) || _pool?.StopRequested == true)
        {
            return true;
        }

        // [L3] A guest: only while the holder of its CPU is idle (a fresh read of the board).
        GuestLending? guests = Guests;
        if (guests is not null && guests.MayGuest(worker))
        {
            return true;
        }

        // A hand-back whether the guest asks at a task boundary or while spinning for its borrower's next task: either
        // way it leaves once, on this answer (a spinning guest returns at once and then finds no loan at FindWork).
        guests?.CountHandback();
        return false;
    }

    /// <inheritdoc />
    public void Parking(Worker worker, bool asleep) => Guests?.OnParking(worker, asleep);

    /// <inheritdoc />
    public bool AllQuiescent()
    {
        foreach (WorkQueueSet set in Sets)
        {
            if (!set.IsQuiescent)
            {
                return false;
            }
        }

        return _idle.IsQuiescent;
    }

    // The two arrays are replaced together, so a reader never pairs one decision's bursty sets with another's yielding ones.
    private sealed record BurstParts(WorkQueueSet[] Bursty, WorkQueueSet[] Yielding)
    {
        public static readonly BurstParts None = new([], []);
    }
}
