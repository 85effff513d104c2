using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// The multiprogram scheduler's answers to idle workers: which program to lend themselves to, and whether stopping
/// workers may exit. Reads a copy-on-write array of the live programs' queue sets, lock-free.
/// </summary>
internal sealed class WorkerDirector : IWorkerDirector
{
    private readonly bool _lending;
    private readonly WorkQueueSet _idle;
    private WorkQueueSet[] _sets = [];
    private WorkerPool? _pool;
    private int _cursor;

    public WorkerDirector(bool lending, WorkQueueSet idle)
    {
        _lending = lending;
        _idle = idle;
    }

    /// <summary>The live programs' sets (including programs that are draining before they leave).</summary>
    public WorkQueueSet[] Sets
    {
        get => Volatile.Read(ref _sets); // Acquire: pairs with the setter's release, a fully built array.
        set => Volatile.Write(ref _sets, value); // Release: the array is complete before workers read it.
    }

    /// <summary>Connects the pool (for its stop flag). Called once, before the workers start.</summary>
    /// <param name="pool">The pool.</param>
    public void Attach(WorkerPool pool) => _pool = pool;

    /// <inheritdoc />
    public WorkQueueSet? FindWork(Worker worker)
    {
        // While stopping, every worker helps whatever is left, lending or not.
        if (!_lending && _pool?.StopRequested != true)
        {
            return null;
        }

        // A worker at home in the idle set while programs run holds a CPU withheld by a machine domain (another
        // process's now): it sleeps and never lends itself (while stopping it helps, like every worker).
        WorkQueueSet home = worker.Home;
        WorkQueueSet[] sets = Sets;
        if (sets.Length == 0 || (ReferenceEquals(home, _idle) && _pool?.StopRequested != true))
        {
            return null;
        }

        // A racy cursor only spreads idle workers over the programs; any answer is correct.
        int start = (int)((uint)_cursor++ % (uint)sets.Length);
        for (int i = 0; i < sets.Length; i++)
        {
            int index = start + i;
            WorkQueueSet set = sets[index < sets.Length ? index : index - sets.Length];
            if (!ReferenceEquals(set, home) && !set.LooksEmpty())
            {
                return set;
            }
        }

        return null;
    }

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
}
