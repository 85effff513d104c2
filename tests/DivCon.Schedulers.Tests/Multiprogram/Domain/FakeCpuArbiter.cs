using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Domain;
using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Tests.Multiprogram.Domain;

/// <summary>
/// An in-memory machine domain for one process: the test sets the grants; <see cref="GrantChanged"/> is raised on the
/// thread that sets one (the arbiter's thread, from the scheduler's point of view), outside the arbiter's lock.
/// Records every <see cref="Publish"/>. Optionally raises <see cref="GrantChanged"/> from inside Publish (which the
/// scheduler calls under its decision lock) to check that it never decides on that thread.
/// </summary>
internal sealed class FakeCpuArbiter : ICpuArbiter
{
    private readonly object _lock = new();
    private ArbiterGrant? _grant;
    private long _epoch;
    private int _publishes;
    private int _disposed;
    private (AllocationSnapshot Local, IReadOnlyList<int> OwnCpus, IReadOnlyDictionary<ProgramId, string> Names)? _last;

    /// <inheritdoc />
    public event Action? GrantChanged;

    /// <inheritdoc />
    public ArbiterGrant? LatestGrant => Volatile.Read(ref _grant);

    /// <summary>Raise <see cref="GrantChanged"/> from inside <see cref="Publish"/> as well.</summary>
    public bool RaiseInsidePublish { get; set; }

    public int Publishes => Volatile.Read(ref _publishes);

    public bool IsDisposed => Volatile.Read(ref _disposed) != 0;

    /// <summary>The last view published.</summary>
    public (AllocationSnapshot Local, IReadOnlyList<int> OwnCpus, IReadOnlyDictionary<ProgramId, string> Names)? Last
    {
        get
        {
            lock (_lock)
            {
                return _last;
            }
        }
    }

    /// <summary>The receipt timestamp the next grants carry (0: unknown, as a grant not from a socket).</summary>
    public long ReceivedAt { get; set; }

    /// <summary>Grants the given CPU sets under a new epoch and raises <see cref="GrantChanged"/>.</summary>
    /// <returns>The epoch.</returns>
    public long Grant(params (ProgramTaskScheduler Program, int[] Cpus)[] sets) =>
        Set(sets.ToDictionary(s => s.Program.ProgramId, s => (IReadOnlyList<int>)s.Cpus));

    /// <summary>Sets any map, well formed or not, under a new epoch, and raises <see cref="GrantChanged"/>.</summary>
    /// <returns>The epoch.</returns>
    public long Set(IReadOnlyDictionary<ProgramId, IReadOnlyList<int>> map)
    {
        long epoch = Interlocked.Increment(ref _epoch);
        Volatile.Write(ref _grant, new ArbiterGrant(epoch, map) { ReceivedAt = ReceivedAt });
        GrantChanged?.Invoke();
        return epoch;
    }

    /// <summary>Falls back: no grant.</summary>
    public void Withdraw()
    {
        Volatile.Write(ref _grant, null);
        GrantChanged?.Invoke();
    }

    /// <inheritdoc />
    public void Publish(AllocationSnapshot local, IReadOnlyList<int> ownCpus, IReadOnlyDictionary<ProgramId, string> names)
    {
        lock (_lock)
        {
            _last = (local, [.. ownCpus], names.ToDictionary(kv => kv.Key, kv => kv.Value));
            _publishes++;
        }

        if (RaiseInsidePublish)
        {
            GrantChanged?.Invoke();
        }
    }

    /// <inheritdoc />
    public void Dispose() => Interlocked.Exchange(ref _disposed, 1);
}
