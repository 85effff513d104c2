namespace DivCon.Schedulers.Workers;

/// <summary>
/// One request that a CPU serve a queue set: the set (the CPU's new owner) and what to report, once, when a worker of
/// that CPU first serves it. Immutable apart from the one-shot report; a newer order replaces it as a whole, so a
/// reader always sees a home together with the report that belongs to it.
/// </summary>
internal sealed class MoveOrder
{
    private Action? _onArrival;

    /// <summary>Creates an order.</summary>
    /// <param name="home">The set to serve.</param>
    /// <param name="onArrival">Called once when a worker of the CPU first serves <paramref name="home"/>; null: nothing to report.</param>
    public MoveOrder(WorkQueueSet home, Action? onArrival)
    {
        ArgumentNullException.ThrowIfNull(home);
        Home = home;
        _onArrival = onArrival;
    }

    /// <summary>The set the CPU is to serve (its owner).</summary>
    public WorkQueueSet Home { get; }

    /// <summary>Whether the arrival has not been reported yet (always false for an order without a report).</summary>
    public bool IsPending => Volatile.Read(ref _onArrival) is not null; // Volatile: cleared by whichever thread arrives.

    /// <summary>
    /// Reports the arrival if nobody has yet: called by a worker of the CPU that serves <see cref="Home"/> now.
    /// Idempotent.
    /// </summary>
    public void Arrive() =>
        // [A] Interlocked: the worker and its standby (or the mover's swap back) may all see the arrival; exactly one
        // reports it.
        Interlocked.Exchange(ref _onArrival, null)?.Invoke();
}
