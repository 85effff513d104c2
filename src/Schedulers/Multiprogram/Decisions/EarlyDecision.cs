using DivCon.Schedulers.Multiprogram.Estimation;
using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram.Decisions;

/// <summary>
/// When to decide again soon after a program arrives: the decision at its registration knows nothing about it (no
/// work observed yet), and a short program, or a mix whose outcome is settled in its first runs, may be over before
/// the next interval decision. Once a program has been present for <see cref="Earliest"/> and its estimator has seen
/// it work (<see cref="ScalabilityEstimate.ObservedCoreSeconds"/> above 0), one decision is due; a program that shows
/// no work by <see cref="Latest"/> is given up on (the interval decisions cover it). Any decision made once a
/// program is at least <see cref="Earliest"/> old counts as its early decision.
/// </summary>
/// <remarks>
/// Pure: no clock, no threads. The caller passes its time (the mechanism's elapsed time since its creation, the
/// simulator's simulated time), reports arrivals, departures and every decision it makes, and asks
/// <see cref="IsDue"/> at each estimator sample (every 10 ms in the mechanism and in the simulator alike, so the early
/// decision falls 10-20 ms after the arrival). Not thread-safe: one caller (under the scheduler's decision lock, or
/// the simulator).
/// </remarks>
internal sealed class EarlyDecision
{
    private readonly List<(ProgramId Id, TimeSpan ArrivedAt)> _pending = [];

    /// <summary>Creates the rule.</summary>
    /// <param name="earliest">How long a program must have been present (default 10 ms: one estimator sample).</param>
    /// <param name="latest">How long a program without observed work stays pending (default 20 ms); at least <paramref name="earliest"/>.</param>
    /// <exception cref="ArgumentOutOfRangeException">A delay is negative, or <paramref name="latest"/> is below <paramref name="earliest"/>.</exception>
    public EarlyDecision(TimeSpan? earliest = null, TimeSpan? latest = null)
    {
        Earliest = earliest ?? TimeSpan.FromMilliseconds(10);
        Latest = latest ?? TimeSpan.FromMilliseconds(20);
        if (Earliest < TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(earliest), Earliest, "The earliest delay must be at least 0.");
        }

        if (Latest < Earliest)
        {
            throw new ArgumentOutOfRangeException(nameof(latest), Latest, $"The latest delay must be at least the earliest ({Earliest}).");
        }
    }

    /// <summary>How long a program must have been present before its early decision.</summary>
    public TimeSpan Earliest { get; }

    /// <summary>How long a program that shows no work stays pending.</summary>
    public TimeSpan Latest { get; }

    /// <summary>Programs still waiting for their early decision.</summary>
    public int Pending => _pending.Count;

    /// <summary>A program registered at <paramref name="now"/>.</summary>
    /// <param name="id">The program.</param>
    /// <param name="now">The caller's time.</param>
    public void Arrived(ProgramId id, TimeSpan now)
    {
        _pending.RemoveAll(p => p.Id == id);
        _pending.Add((id, now));
    }

    /// <summary>A program left: it needs no early decision any more.</summary>
    /// <param name="id">The program.</param>
    public void Departed(ProgramId id) => _pending.RemoveAll(p => p.Id == id);

    /// <summary>
    /// Whether an early decision is due at <paramref name="now"/>: some pending program has been present for at least
    /// <see cref="Earliest"/> and its estimate shows observed work. Programs pending past <see cref="Latest"/> without
    /// work are dropped.
    /// </summary>
    /// <param name="now">The caller's time.</param>
    /// <param name="estimateOf">The latest estimate of a program (null: none, e.g. it has left).</param>
    /// <returns>Whether to decide now.</returns>
    public bool IsDue(TimeSpan now, Func<ProgramId, ScalabilityEstimate?> estimateOf)
    {
        ArgumentNullException.ThrowIfNull(estimateOf);
        bool due = false;
        for (int i = _pending.Count - 1; i >= 0; i--)
        {
            var (id, arrivedAt) = _pending[i];
            TimeSpan age = now - arrivedAt;
            if (age < Earliest)
            {
                continue;
            }

            if (estimateOf(id) is { ObservedCoreSeconds: > 0 })
            {
                due = true;
            }
            else if (age >= Latest)
            {
                _pending.RemoveAt(i); // no work to learn from: the interval decisions will see it when it has some
            }
        }

        return due;
    }

    /// <summary>
    /// A decision was made at <paramref name="now"/> (any reason, skipped ones included: the policy saw the
    /// estimates): every pending program present for at least <see cref="Earliest"/> has had its early decision.
    /// </summary>
    /// <param name="now">The caller's time.</param>
    public void Decided(TimeSpan now) => _pending.RemoveAll(p => now - p.ArrivedAt >= Earliest);
}
