using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Placement;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Multiprogram.Decisions;

/// <summary>
/// The decision half of the rebalancer: given a snapshot, decide whether a policy run is needed, run it, place the
/// result on CPUs and describe the moves. No threads and no clock: the threaded rebalancer supplies the snapshot,
/// the reason and a timestamp, and applies <see cref="RebalanceEvent.Moves"/>.
/// </summary>
/// <remarks>
/// <para>
/// Skip rule (the thesis's O(m) check): an <see cref="RebalanceReason.Interval"/> decision is skipped when the
/// policy says its previous decision still stands (<see cref="IAllocationPolicy.IsStillValid"/>). Arrivals,
/// departures and manual requests always run the policy; a changed program set or scalability always does too.
/// </para>
/// <para>
/// State: the last decision and the current placement. Not thread-safe: one caller (the rebalancer thread) at a
/// time.
/// </para>
/// </remarks>
internal sealed class RebalanceDecider
{
    private readonly CpuPlacement _placement;
    private readonly StarvationGuard _guard = new();
    private AllocationDecision? _last;
    private AllocationDecision? _lastApplied;

    /// <summary>Creates a decider.</summary>
    /// <param name="policy">The allocation policy.</param>
    /// <param name="topology">The CPUs shared by the programs.</param>
    /// <param name="contiguityWorth">Passed to <see cref="CpuPlacement"/>.</param>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    public RebalanceDecider(IAllocationPolicy policy, CpuTopology topology, int contiguityWorth = 2)
    {
        ArgumentNullException.ThrowIfNull(policy);
        ArgumentNullException.ThrowIfNull(topology);
        Policy = policy;
        _placement = new CpuPlacement(topology, contiguityWorth);
    }

    /// <summary>The policy.</summary>
    public IAllocationPolicy Policy { get; }

    /// <summary>The CPU sets as of the last decision.</summary>
    public CpuAssignment Placement { get; private set; } = CpuAssignment.Empty;

    /// <summary>The last decision the policy made (not updated by skipped decisions), before the starvation guard.</summary>
    public AllocationDecision? LastDecision => _last;

    /// <summary>The last allocation placed: <see cref="LastDecision"/> after the starvation guard.</summary>
    public AllocationDecision? LastAppliedDecision => _lastApplied;

    /// <summary>Decides, places and reports.</summary>
    /// <param name="snapshot">The workload now; its core count must equal the topology's CPU count.</param>
    /// <param name="reason">Why a decision is asked for.</param>
    /// <param name="timestamp">The caller's clock reading, copied into the event.</param>
    /// <returns>The event describing the decision.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="snapshot"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="reason"/> is undefined.</exception>
    /// <exception cref="ArgumentException">The snapshot's core count differs from the topology's.</exception>
    public RebalanceEvent Decide(AllocationSnapshot snapshot, RebalanceReason reason, long timestamp)
    {
        ArgumentNullException.ThrowIfNull(snapshot);
        if (!Enum.IsDefined(reason))
        {
            throw new ArgumentOutOfRangeException(nameof(reason), reason, "Unknown rebalance reason.");
        }

        if (snapshot.CoreCount != _placement.Topology.Count)
        {
            throw new ArgumentException(
                $"Snapshot has {snapshot.CoreCount} cores but the topology has {_placement.Topology.Count} CPUs.", nameof(snapshot));
        }

        var before = snapshot.Programs.Select(p => new ProgramAllocation(p.Id, p.CurrentCores)).ToArray();
        if (reason == RebalanceReason.Interval && _last is not null && _lastApplied is not null
            && !StarvationGuard.MayAct(snapshot) && Policy.IsStillValid(snapshot, _last))
        {
            return new RebalanceEvent(timestamp, reason, Skipped: true, Policy.Name, "previous decision still stands",
                before, [.. _lastApplied.Allocations], [], Placement);
        }

        var policyDecision = Policy.Allocate(snapshot);
        var decision = _guard.Apply(policyDecision);
        var after = decision.Allocations.ToArray();
        var placed = _placement.Place(Placement, after);
        _last = policyDecision;
        _lastApplied = decision;
        Placement = placed.Assignment;
        return new RebalanceEvent(timestamp, reason, Skipped: false, Policy.Name,
            $"{decision.Explanation}; placement {placed.Strategy}, {placed.Moves.Count} moves",
            before, after, placed.Moves, placed.Assignment);
    }
}
