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
    /// <param name="running">Optional: the program whose task each busy CPU runs now (<see cref="CpuPlacement.Place"/>).</param>
    public RebalanceEvent Decide(AllocationSnapshot snapshot, RebalanceReason reason, long timestamp, IReadOnlyDictionary<int, ProgramId>? running = null)
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
        var placed = _placement.Place(Placement, after, running);
        _last = policyDecision;
        _lastApplied = decision;
        Placement = placed.Assignment;
        return new RebalanceEvent(timestamp, reason, Skipped: false, Policy.Name,
            $"{decision.Explanation}; placement {placed.Strategy}, {placed.Moves.Count} moves",
            before, after, placed.Moves, placed.Assignment);
    }

    /// <summary>
    /// Adopts a placement decided elsewhere (a machine domain's grant) instead of running the policy: the event's
    /// moves are the CPUs whose owner differs from the current placement (to or from no program: CPUs the placement
    /// leaves unassigned are withheld), its counts those of the placement. The policy's last decision is forgotten,
    /// so the next local decision runs the policy in full instead of being skipped.
    /// </summary>
    /// <param name="snapshot">The workload now; its core count must equal the topology's CPU count.</param>
    /// <param name="reason">Why a decision is asked for.</param>
    /// <param name="timestamp">The caller's clock reading, copied into the event.</param>
    /// <param name="assignment">The CPU sets to adopt: programs of the snapshot only, CPUs of the topology only; CPUs
    /// it does not list are unassigned.</param>
    /// <param name="source">The name the event gives as its policy.</param>
    /// <param name="explanation">How the placement was reached.</param>
    /// <param name="skipIfUnchanged">Whether a placement equal to the current one is reported as a skipped decision.</param>
    /// <returns>The event describing the decision.</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="ArgumentException">The snapshot does not fit the topology, or the assignment names a
    /// program outside the snapshot or a CPU outside the topology.</exception>
    public RebalanceEvent Impose(
        AllocationSnapshot snapshot, RebalanceReason reason, long timestamp, CpuAssignment assignment, string source, string explanation, bool skipIfUnchanged)
    {
        ArgumentNullException.ThrowIfNull(snapshot);
        ArgumentNullException.ThrowIfNull(assignment);
        ArgumentNullException.ThrowIfNull(source);
        ArgumentNullException.ThrowIfNull(explanation);
        if (snapshot.CoreCount != _placement.Topology.Count)
        {
            throw new ArgumentException(
                $"Snapshot has {snapshot.CoreCount} cores but the topology has {_placement.Topology.Count} CPUs.", nameof(snapshot));
        }

        var ids = new HashSet<int>(_placement.Topology.CpuIds);
        foreach (ProgramId program in assignment.Programs)
        {
            if (snapshot.IndexOf(program) < 0)
            {
                throw new ArgumentException($"Program {program} is not in the snapshot.", nameof(assignment));
            }

            foreach (int cpu in assignment.CpusOf(program))
            {
                if (!ids.Contains(cpu))
                {
                    throw new ArgumentException($"CPU {cpu} of {program} is not in the topology.", nameof(assignment));
                }
            }
        }

        var before = snapshot.Programs.Select(p => new ProgramAllocation(p.Id, p.CurrentCores)).ToArray();
        var after = snapshot.Programs.Select(p => new ProgramAllocation(p.Id, assignment.CpusOf(p.Id).Count)).ToArray();
        var moves = new List<CpuMove>();
        foreach (int cpu in _placement.Topology.CpuIds)
        {
            ProgramId? from = Placement.OwnerOf(cpu);
            ProgramId? to = assignment.OwnerOf(cpu);
            if (from != to)
            {
                moves.Add(new CpuMove(cpu, from, to));
            }
        }

        if (moves.Count == 0 && skipIfUnchanged)
        {
            return new RebalanceEvent(timestamp, reason, Skipped: true, source, $"{explanation}; unchanged", before, after, [], Placement);
        }

        _last = null;
        _lastApplied = null;
        Placement = assignment;
        return new RebalanceEvent(timestamp, reason, Skipped: false, source, $"{explanation}; {moves.Count} moves",
            before, after, moves, assignment);
    }
}
