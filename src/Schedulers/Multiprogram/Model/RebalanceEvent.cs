
namespace DivCon.Schedulers.Multiprogram.Model;

/// <summary>The record of one rebalancer decision: what it saw, what it chose and which workers must move.</summary>
/// <param name="Timestamp">The caller's clock reading (for example <c>Stopwatch.GetTimestamp()</c>); not interpreted.</param>
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
}
