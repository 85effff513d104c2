using System.Collections.ObjectModel;

namespace DivCon.Schedulers.Multiprogram.Model;

/// <summary>The output of an allocation policy: cores per program, in the snapshot's program order.</summary>
/// <remarks>
/// The constructor enforces the policy contract (see <c>IAllocationPolicy</c>): one entry per program,
/// none negative, and the sum equal to the core count whenever a program exists. A policy that breaks the
/// contract therefore fails loudly at the point of the decision, not later in the mechanism.
/// </remarks>
public sealed class AllocationDecision
{
    private readonly int[] _cores;

    /// <summary>Creates a decision.</summary>
    /// <param name="policy">The name of the policy that made it.</param>
    /// <param name="snapshot">The snapshot it was made from.</param>
    /// <param name="cores">Cores per program, in <paramref name="snapshot"/>'s order.</param>
    /// <param name="usedFastPath">Whether the policy returned its base allocation without further work.</param>
    /// <param name="explanation">One line saying how the decision was reached.</param>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="ArgumentException">The allocation breaks the policy contract.</exception>
    public AllocationDecision(string policy, AllocationSnapshot snapshot, IReadOnlyList<int> cores, bool usedFastPath, string explanation)
    {
        ArgumentNullException.ThrowIfNull(policy);
        ArgumentNullException.ThrowIfNull(snapshot);
        ArgumentNullException.ThrowIfNull(cores);
        ArgumentNullException.ThrowIfNull(explanation);
        if (cores.Count != snapshot.Programs.Count)
        {
            throw new ArgumentException(
                $"{cores.Count} allocations for {snapshot.Programs.Count} programs.", nameof(cores));
        }

        _cores = [.. cores];
        long sum = 0;
        foreach (int c in _cores)
        {
            if (c < 0)
            {
                throw new ArgumentException($"Allocation {c} is negative.", nameof(cores));
            }

            sum += c;
        }

        if (_cores.Length > 0 && sum != snapshot.CoreCount)
        {
            throw new ArgumentException(
                $"Allocations sum to {sum}, not to the {snapshot.CoreCount} cores.", nameof(cores));
        }

        Policy = policy;
        Snapshot = snapshot;
        Cores = new ReadOnlyCollection<int>(_cores);
        UsedFastPath = usedFastPath;
        Explanation = explanation;
    }

    /// <summary>The policy that made the decision (a name for reports; nothing depends on it).</summary>
    public string Policy { get; }

    /// <summary>
    /// Whether the allocation was set by hand rather than computed by a policy (the multiprogram scheduler's
    /// <c>SetAllocation</c>). The starvation guard leaves such a decision exactly as it is. Policies leave
    /// it <see langword="false"/> (the default).
    /// </summary>
    public bool IsExplicit { get; init; }

    /// <summary>The snapshot the decision was made from.</summary>
    public AllocationSnapshot Snapshot { get; }

    /// <summary>
    /// The order in which idle cores are lent until the next decision, as indices into
    /// <see cref="AllocationSnapshot.Programs"/>, the first preferred (a lent core goes to the first listed program with
    /// queued tasks); <see langword="null"/>: no preference (the mechanism spreads lent cores round-robin).
    /// </summary>
    public IReadOnlyList<int>? LendingOrder { get; init; }

    /// <summary>
    /// Each program's part in "bursts first" until the next decision, in <see cref="AllocationSnapshot.Programs"/>
    /// order: a worker serving a <see cref="BurstRole.Yields"/> program serves a <see cref="BurstRole.Bursty"/> one
    /// with queued tasks from its next task boundary, and idle cores are lent to bursty programs first;
    /// <see langword="null"/>: no program has a part (every worker serves its home, then lends round-robin).
    /// </summary>
    public IReadOnlyList<BurstRole>? BurstRoles { get; init; }

    /// <summary>Cores per program, in <see cref="AllocationSnapshot.Programs"/> order.</summary>
    public IReadOnlyList<int> Cores { get; }

    /// <summary>Whether the policy stopped at its base allocation (the thesis's O(m) check).</summary>
    public bool UsedFastPath { get; }

    /// <summary>How the decision was reached, in one line.</summary>
    public string Explanation { get; }

    /// <summary>The allocations paired with their program ids.</summary>
    public IEnumerable<ProgramAllocation> Allocations =>
        Snapshot.Programs.Select((p, i) => new ProgramAllocation(p.Id, _cores[i]));

    /// <summary>Cores given to one program.</summary>
    /// <param name="id">A program in the snapshot.</param>
    /// <returns>Its cores.</returns>
    /// <exception cref="ArgumentException">The program is not in the snapshot.</exception>
    public int CoresFor(ProgramId id)
    {
        int index = Snapshot.IndexOf(id);
        return index >= 0
            ? _cores[index]
            : throw new ArgumentException($"Program {id} is not in this decision.", nameof(id));
    }

    /// <inheritdoc />
    public override string ToString() =>
        $"{Policy}: {string.Join(", ", Allocations.Select(a => $"{a.Id}={a.Cores}"))}";
}

/// <summary>A program's part in "bursts first" (<see cref="AllocationDecision.BurstRoles"/>).</summary>
public enum BurstRole
{
    /// <summary>Neither: its workers serve it, and are lent, as usual.</summary>
    None = 0,

    /// <summary>
    /// Wide only now and then (its wide phases take a small share of its time): while it has queued tasks, workers
    /// serving a <see cref="Yields"/> program serve it instead, and idle cores are lent to it first.
    /// </summary>
    Bursty = 1,

    /// <summary>
    /// Wide nearly all the time, and not far behind the other programs' progress: its workers serve a
    /// <see cref="Bursty"/> program's queued tasks before its own; it gets the cores back when the burst is done.
    /// </summary>
    Yields = 2,
}

/// <summary>The number of cores a decision gives one program.</summary>
/// <param name="Id">The program.</param>
/// <param name="Cores">Its cores (at least 0).</param>
public readonly record struct ProgramAllocation(ProgramId Id, int Cores)
{
    /// <summary>The program's name, or <c>P</c> and its number when it has none (see <see cref="ProgramId.Name"/>).</summary>
    public string Name => Id.ToString();

    /// <inheritdoc />
    /// <remarks>For example <c>mergesort: 2 cores</c>.</remarks>
    public override string ToString() => $"{Id}: {Cores} {(Cores == 1 ? "core" : "cores")}";
}
