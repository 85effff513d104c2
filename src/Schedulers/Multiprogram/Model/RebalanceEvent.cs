using System.Globalization;
using System.Text;

namespace DivCon.Schedulers.Multiprogram.Model;

/// <summary>The record of one rebalancer decision: what it saw, what it chose and which workers must move.</summary>
/// <param name="Timestamp">The caller's clock reading (for example <c>Stopwatch.GetTimestamp()</c>); not interpreted.
/// The multiprogram scheduler's events also carry it as a <see cref="TimeSpan"/>: <see cref="Time"/>.</param>
/// <param name="Reason">Why the decision was asked for.</param>
/// <param name="Skipped">
/// Whether the policy run was skipped because the previous decision still stands (then <see cref="After"/> is the
/// previous allocation and <see cref="Moves"/> is empty).
/// </param>
/// <param name="Policy">The policy's name.</param>
/// <param name="Explanation">How the decision was reached (or why it was skipped).</param>
/// <param name="Before">Cores per program as the snapshot reported them.</param>
/// <param name="After">Cores per program decided.</param>
/// <param name="Moves">CPUs whose worker changes program, for the mechanism to apply.</param>
/// <param name="Placement">The CPU sets after this decision.</param>
public sealed record RebalanceEvent(
    long Timestamp,
    RebalanceReason Reason,
    bool Skipped,
    string Policy,
    string Explanation,
    IReadOnlyList<ProgramAllocation> Before,
    IReadOnlyList<ProgramAllocation> After,
    IReadOnlyList<CpuMove> Moves,
    CpuAssignment Placement)
{
    /// <summary>The arrivals of a decision without moves (the default of <see cref="Arrivals"/>).</summary>
    public static IMoveArrivals NoArrivals => NoMoveArrivals.Instance;

    /// <summary>
    /// The practical latency of each of <see cref="Moves"/> (same order): filled in by the mechanism as workers start
    /// serving their new owners, so read it after the moves had time to happen. <see cref="NoArrivals"/> for skipped
    /// decisions and decisions made by a decider alone (no mechanism applied them).
    /// </summary>
    public IMoveArrivals Arrivals { get; init; } = NoMoveArrivals.Instance;

    /// <summary>
    /// When the decision was made, as the time since its scheduler was created (on the scheduler's
    /// <see cref="TimeProvider"/>); <see cref="TimeSpan.Zero"/> for a decision made by a decider alone.
    /// </summary>
    public TimeSpan Time { get; init; }

    /// <summary>
    /// For a decision that applied a machine domain's grant: when the grant was received (the scheduler's
    /// <c>Stopwatch</c> clock), the start of a cross-process move; null otherwise.
    /// </summary>
    internal long? DomainGrantReceivedAt { get; init; }

    /// <summary>One line a person can read: time, reason, policy, cores per program (before and after), moves, explanation.</summary>
    /// <returns>For example <c>+1.200 s Interval, task-availability: mergesort 2 -> 1, fft 2 -> 3; cpu 3: mergesort -> fft (0.041 ms); ...</c>.</returns>
    public override string ToString()
    {
        var text = new StringBuilder();
        text.Append(string.Create(CultureInfo.InvariantCulture, $"+{Time.TotalSeconds:0.000} s {Reason}"));
        text.Append(Skipped ? " (skipped)" : string.Empty).Append(", ").Append(Policy).Append(": ");
        if (After.Count == 0)
        {
            text.Append("no programs");
        }

        for (int i = 0; i < After.Count; i++)
        {
            ProgramAllocation after = After[i];
            int? before = null;
            foreach (ProgramAllocation b in Before)
            {
                before = b.Id == after.Id ? b.Cores : before;
            }

            text.Append(i > 0 ? ", " : string.Empty).Append(after.Id).Append(' ');
            text.Append(before is { } was && was != after.Cores
                ? string.Create(CultureInfo.InvariantCulture, $"{was} -> {after.Cores}")
                : after.Cores.ToString(CultureInfo.InvariantCulture));
        }

        for (int m = 0; m < Moves.Count; m++)
        {
            text.Append(m == 0 ? "; " : ", ").Append(Moves[m]);
            if (m < Arrivals.Count && Arrivals.LatencyOf(m) is { } latency)
            {
                text.Append(string.Create(CultureInfo.InvariantCulture, $" ({latency.TotalMilliseconds:0.###} ms)"));
            }
        }

        return text.Append("; ").Append(Explanation).ToString();
    }
}

/// <summary>Why the rebalancer was asked for a decision.</summary>
public enum RebalanceReason
{
    /// <summary>The periodic timer (100 ms by default); may be skipped when nothing relevant changed.</summary>
    Interval,

    /// <summary>A program registered.</summary>
    Arrival,

    /// <summary>A program finished or unregistered.</summary>
    Departure,

    /// <summary>Someone asked explicitly; never skipped.</summary>
    Manual,

    /// <summary>
    /// A program that registered 10-20 ms ago has shown its first work: the learned policy decides again with what its
    /// estimator has seen (when <see cref="Policies.LearnedScalabilityPolicy.DecidesEarly"/>); never skipped.
    /// </summary>
    FirstSignal,
}
