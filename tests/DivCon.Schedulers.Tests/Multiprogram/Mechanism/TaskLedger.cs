using System.Collections.Concurrent;
using System.Diagnostics;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>
/// One program's workload for the invariant tests: spawner tasks queued from outside, each queuing its leaves from its
/// worker (so they sit in local deques that moves drain). Every leaf claims a flag (exactly once), records its thread
/// at start and end (never changes thread) and whether it ran on a worker of the program's pool. By default
/// <see cref="Spawners"/> spawners of <see cref="LeavesPerSpawner"/> short leaves; optionally every
/// <c>longLeafEvery</c>-th leaf spins for <see cref="LongLeaf"/> instead (long tasks that meet moves).
/// </summary>
internal sealed class TaskLedger
{
    public const int Spawners = 100;
    public const int LeavesPerSpawner = 1000;
    public const int Leaves = Spawners * LeavesPerSpawner;

    /// <summary>How long a long leaf spins.</summary>
    public static readonly TimeSpan LongLeaf = TimeSpan.FromMilliseconds(10);

    private readonly int[] _ran;
    private readonly int _leavesPerSpawner;
    private readonly int _longLeafEvery;
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _duplicates;
    private int _threadChanges;
    private int _remaining;

    /// <summary>Creates a ledger (nothing is queued before <see cref="Start()"/>).</summary>
    /// <param name="program">The program the spawners are queued on.</param>
    /// <param name="spinPerLeaf">SpinWait iterations of a short leaf (0: none).</param>
    /// <param name="spawners">Spawner tasks.</param>
    /// <param name="leavesPerSpawner">Leaves each spawner queues.</param>
    /// <param name="longLeafEvery">Every leaf whose index is a multiple of this spins for <see cref="LongLeaf"/>
    /// (0: no long leaf).</param>
    public TaskLedger(ProgramTaskScheduler program, int spinPerLeaf = 0, int spawners = Spawners, int leavesPerSpawner = LeavesPerSpawner, int longLeafEvery = 0)
    {
        Program = program;
        SpinPerLeaf = spinPerLeaf;
        SpawnerCount = spawners;
        _leavesPerSpawner = leavesPerSpawner;
        _longLeafEvery = longLeafEvery;
        LeafCount = spawners * leavesPerSpawner;
        _ran = new int[LeafCount];
        _remaining = LeafCount;
    }

    public ProgramTaskScheduler Program { get; }

    public int SpinPerLeaf { get; }

    public int SpawnerCount { get; }

    /// <summary>How many leaves the ledger runs in all.</summary>
    public int LeafCount { get; }

    public Task Done => _done.Task;

    public int Duplicates => Volatile.Read(ref _duplicates);

    public int ThreadChanges => Volatile.Read(ref _threadChanges);

    public int RanCount => _ran.Count(r => Volatile.Read(ref r) == 1);

    /// <summary>Names of threads outside the program's pool that ran a leaf (none expected).</summary>
    public ConcurrentBag<string> ForeignThreads { get; } = [];

    /// <summary>Queues every spawner from the calling (non-worker) thread.</summary>
    public void Start() => Start(0, SpawnerCount);

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
        int first = (int)state! * _leavesPerSpawner;
        for (int i = 0; i < _leavesPerSpawner; i++)
        {
            Task.Factory.StartNew(Leaf, first + i, CancellationToken.None, TaskCreationOptions.None, TaskScheduler.Current);
        }
    }

    private void Leaf(object? state)
    {
        int threadAtStart = Environment.CurrentManagedThreadId;
        int index = (int)state!;
        if (Worker.Current is not { } worker || !Program.Scheduler.OwnsPool(worker.Pool))
        {
            ForeignThreads.Add(Thread.CurrentThread.Name ?? $"thread {threadAtStart}");
        }

        // Interlocked: the flag says whether some earlier run already claimed this index.
        if (Interlocked.Exchange(ref _ran[index], 1) != 0)
        {
            Interlocked.Increment(ref _duplicates);
        }

        if (_longLeafEvery > 0 && index % _longLeafEvery == 0)
        {
            var spin = Stopwatch.StartNew();
            while (spin.Elapsed < LongLeaf)
            {
                Thread.SpinWait(50);
            }
        }
        else if (SpinPerLeaf > 0)
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
