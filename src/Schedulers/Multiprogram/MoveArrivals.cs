using System.Collections.ObjectModel;
using System.Diagnostics.Metrics;
using System.Globalization;
using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// The mechanism's record of each move's arrival for one decision, behind the event's read-only
/// <see cref="RebalanceEvent.Arrivals"/>: for move <c>i</c> of <see cref="RebalanceEvent.Moves"/>, the clock reading
/// taken when a worker of that CPU started serving the new owner. Written by worker threads as the moves arrive;
/// read from any thread.
/// </summary>
/// <remarks>
/// A move has no latency (null) while it is under way, and for good when a later decision moved the same CPU again
/// before it arrived (it was superseded). Times come from the scheduler's <see cref="TimeProvider"/>.
/// </remarks>
internal sealed class MoveArrivals : IMoveArrivals
{
    private const long NotArrived = long.MinValue;
    private readonly TimeProvider _clock;
    private readonly long _decidedAt;
    private readonly long[] _arrivedAt;
    private readonly IReadOnlyList<CpuMove> _moves;
    private readonly Histogram<double>? _duration;

    /// <summary>Creates the record of a decision's moves, none arrived.</summary>
    /// <param name="clock">The scheduler's clock.</param>
    /// <param name="decidedAt">The decision's timestamp on <paramref name="clock"/>.</param>
    /// <param name="moves">The decision's moves.</param>
    /// <param name="duration">Where each arrival's latency is recorded (in seconds) while a listener is on it; null: nowhere.</param>
    internal MoveArrivals(TimeProvider clock, long decidedAt, IReadOnlyList<CpuMove> moves, Histogram<double>? duration = null)
    {
        ArgumentNullException.ThrowIfNull(clock);
        ArgumentNullException.ThrowIfNull(moves);
        _clock = clock;
        _decidedAt = decidedAt;
        _moves = moves;
        _duration = duration;
        _arrivedAt = new long[moves.Count];
        Array.Fill(_arrivedAt, NotArrived);
    }

    /// <inheritdoc />
    public int Count => _arrivedAt.Length;

    /// <inheritdoc />
    public int ArrivedCount => _arrivedAt.Count(t => Volatile.Read(ref t) != NotArrived);

    /// <inheritdoc />
    public IReadOnlyList<TimeSpan?> Latencies => new ReadOnlyCollection<TimeSpan?>([.. Enumerable.Range(0, Count).Select(LatencyOf)]);

    /// <inheritdoc />
    public TimeSpan? LatencyOf(int move)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(move);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(move, Count);
        long arrived = Volatile.Read(ref _arrivedAt[move]); // Volatile: written once by a worker thread.
        return arrived == NotArrived ? null : _clock.GetElapsedTime(_decidedAt, arrived);
    }

    /// <inheritdoc />
    public override string ToString()
    {
        TimeSpan[] done = [.. Latencies.OfType<TimeSpan>()];
        return done.Length == 0
            ? string.Create(CultureInfo.InvariantCulture, $"{Count} moves, none arrived")
            : string.Create(CultureInfo.InvariantCulture, $"{done.Length}/{Count} moves arrived, slowest {done.Max().TotalMilliseconds:0.###} ms");
    }

    /// <summary>Worker thread: move <paramref name="move"/> has arrived now (only the first report counts).</summary>
    /// <param name="move">The move's index.</param>
    internal void Arrive(int move)
    {
        long now = _clock.GetTimestamp();
        // Interlocked: a worker and its standby may both report one move; the first time stands.
        if (Interlocked.CompareExchange(ref _arrivedAt[move], now, NotArrived) != NotArrived)
        {
            return;
        }

        // Observers (checked first: an unobserved arrival costs two reads). The first report only.
        bool traced = Instrumentation.EventsEnabled && MultiprogramEventSource.Log.IsEnabled();
        if (traced || _duration?.Enabled == true)
        {
            TimeSpan latency = _clock.GetElapsedTime(_decidedAt, now);
            string to = _moves[move].To?.ToString() ?? "none";
            _duration?.Record(latency.TotalSeconds, new KeyValuePair<string, object?>("divcon.program.name", to));
            if (traced)
            {
                MultiprogramEventSource.Log.MoveArrived(_moves[move].CpuId, to, latency.TotalMilliseconds);
            }
        }
    }
}
