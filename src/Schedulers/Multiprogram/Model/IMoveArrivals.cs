namespace DivCon.Schedulers.Multiprogram.Model;

/// <summary>
/// A read-only view of the practical latency of each move of one decision: for move <c>i</c> of
/// <see cref="RebalanceEvent.Moves"/>, the time from the decision (<see cref="RebalanceEvent.Timestamp"/>) to the
/// moment a worker of that CPU started serving the new owner.
/// </summary>
/// <remarks>
/// The mechanism that applied the decision fills it in as the moves arrive, so it grows after the event was raised;
/// read it whenever, from any thread. A move has no latency (null) while it is under way, and for good when a later
/// decision moved the same CPU again before it arrived (it was superseded).
/// </remarks>
public interface IMoveArrivals
{
    /// <summary>The number of moves (equal to the decision's <see cref="RebalanceEvent.Moves"/> count).</summary>
    int Count { get; }

    /// <summary>How many moves have arrived so far.</summary>
    int ArrivedCount { get; }

    /// <summary>Each move's latency so far, in move order (null: not arrived, or superseded).</summary>
    IReadOnlyList<TimeSpan?> Latencies { get; }

    /// <summary>The latency of move <paramref name="move"/>, or null while it has not arrived.</summary>
    /// <param name="move">An index into the decision's moves.</param>
    /// <returns>The time from the decision to the arrival.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="move"/> is not a move index.</exception>
    TimeSpan? LatencyOf(int move);
}

/// <summary>The arrivals of a decision without moves: of a skipped decision, or of one no mechanism applied.</summary>
internal sealed class NoMoveArrivals : IMoveArrivals
{
    private NoMoveArrivals()
    {
    }

    public static NoMoveArrivals Instance { get; } = new();

    public int Count => 0;

    public int ArrivedCount => 0;

    public IReadOnlyList<TimeSpan?> Latencies => [];

    public TimeSpan? LatencyOf(int move) =>
        throw new ArgumentOutOfRangeException(nameof(move), move, "A decision without moves has no move index.");

    public override string ToString() => "0 moves, none arrived";
}
