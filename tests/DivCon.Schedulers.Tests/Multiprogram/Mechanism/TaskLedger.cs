using DivCon.Schedulers.Multiprogram;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>
/// One program's workload for the invariant tests: <see cref="Spawners"/> spawner tasks queued from outside, each
/// queuing <see cref="LeavesPerSpawner"/> leaves from its worker (so they sit in local deques that moves drain).
/// Every leaf claims a flag (exactly once) and records its thread at start and end (never changes thread).
/// </summary>
internal sealed class TaskLedger
{
    public const int Spawners = 100;
    public const int LeavesPerSpawner = 1000;
    public const int Leaves = Spawners * LeavesPerSpawner;

    private readonly int[] _ran = new int[Leaves];
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _duplicates;
    private int _threadChanges;
    private int _remaining = Leaves;

    public TaskLedger(ProgramTaskScheduler program, int spinPerLeaf = 0)
    {
        Program = program;
        SpinPerLeaf = spinPerLeaf;
    }

    public ProgramTaskScheduler Program { get; }

    public int SpinPerLeaf { get; }

    public Task Done => _done.Task;

    public int Duplicates => Volatile.Read(ref _duplicates);

    public int ThreadChanges => Volatile.Read(ref _threadChanges);

    public int RanCount => _ran.Count(r => Volatile.Read(ref r) == 1);

    /// <summary>Queues the spawners from the calling (non-worker) thread.</summary>
    public void Start() => Start(0, Spawners);

    /// <summary>
    /// Queues spawners <paramref name="first"/> to <paramref name="first"/> + <paramref name="count"/> - 1 from the
    /// calling (non-worker) thread; <see cref="Done"/> completes only once every spawner was queued and ran.
    /// </summary>
    public void Start(int first, int count)
    {
        for (int s = first; s < first + count; s++)
        {
            Task.Factory.StartNew(Spawner, s, CancellationToken.None, TaskCreationOptions.None, Program);
        }
    }

    private void Spawner(object? state)
    {
        int first = (int)state! * LeavesPerSpawner;
        for (int i = 0; i < LeavesPerSpawner; i++)
        {
            Task.Factory.StartNew(Leaf, first + i, CancellationToken.None, TaskCreationOptions.None, TaskScheduler.Current);
        }
    }

    private void Leaf(object? state)
    {
        int threadAtStart = Environment.CurrentManagedThreadId;
        int index = (int)state!;
        // Interlocked: the flag says whether some earlier run already claimed this index.
        if (Interlocked.Exchange(ref _ran[index], 1) != 0)
        {
            Interlocked.Increment(ref _duplicates);
        }

        if (SpinPerLeaf > 0)
        {
            Thread.SpinWait(SpinPerLeaf);
        }

        if (Environment.CurrentManagedThreadId != threadAtStart)
        {
            Interlocked.Increment(ref _threadChanges);
        }

        // Interlocked: the last leaf to finish completes the ledger.
        if (Interlocked.Decrement(ref _remaining) == 0)
        {
            _done.SetResult();
        }
    }
}
