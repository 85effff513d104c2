using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Schedulers.Multiprogram.Decisions;

/// <summary>
/// The policy a <see cref="MultiprogramScheduler"/> hands its decider: the user's policy, unless an explicit
/// allocation was set with <see cref="MultiprogramScheduler.SetAllocation"/>, which then stands until it is cleared,
/// the set of programs changes, or it would starve a program. Not thread-safe: used under the scheduler's decision
/// lock.
/// </summary>
/// <remarks>
/// Explicit decisions are marked <see cref="AllocationDecision.IsExplicit"/> (the starvation guard leaves them alone),
/// never recognised by their name. An explicit allocation never starves a program: <c>SetAllocation</c> refuses to
/// give no worker to a program with queued tasks, and if a program it gave none receives tasks later, the next
/// decision drops the allocation and lets the user's policy decide (the explanation says so).
/// </remarks>
internal sealed class AllocationOverridePolicy : IAllocationPolicy
{
    /// <summary>The <see cref="Name"/> while an override stands (for reports only).</summary>
    public const string OverrideName = "override";

    private Dictionary<ProgramId, int>? _override;

    public AllocationOverridePolicy(IAllocationPolicy inner) => Inner = inner;

    /// <summary>The user's policy.</summary>
    public IAllocationPolicy Inner { get; }

    /// <inheritdoc />
    public string Name => _override is null ? Inner.Name : OverrideName;

    /// <summary>Whether an explicit allocation stands.</summary>
    public bool HasOverride => _override is not null;

    /// <summary>Sets (or, with null, clears) the explicit allocation.</summary>
    /// <param name="cores">Cores per program.</param>
    public void Set(Dictionary<ProgramId, int>? cores) => _override = cores;

    /// <inheritdoc />
    public AllocationDecision Allocate(AllocationSnapshot snapshot)
    {
        if (_override is null)
        {
            return Inner.Allocate(snapshot);
        }

        if (StarvedBy(_override, snapshot) is { } starved)
        {
            // The explicit allocation gives no worker to a program that now has tasks: it no longer stands.
            _override = null;
            AllocationDecision decision = Inner.Allocate(snapshot);
            return new AllocationDecision(
                decision.Policy, snapshot, decision.Cores, decision.UsedFastPath,
                $"explicit allocation dropped ({starved} has tasks and no worker); {decision.Explanation}")
            {
                LendingOrder = decision.LendingOrder,
                BurstRoles = decision.BurstRoles,
            };
        }

        int[] cores = [.. snapshot.Programs.Select(p => _override.GetValueOrDefault(p.Id))];
        return new AllocationDecision(OverrideName, snapshot, cores, usedFastPath: false, "allocation set explicitly") { IsExplicit = true };
    }

    /// <inheritdoc />
    /// <remarks>
    /// With an override: valid when the previous decision was made under it for the same programs in the same order
    /// (the override is cleared whenever programs arrive or leave, so Allocate would repeat it exactly) and it starves
    /// no program.
    /// </remarks>
    public bool IsStillValid(AllocationSnapshot current, AllocationDecision previous)
    {
        if (_override is null)
        {
            return !previous.IsExplicit && Inner.IsStillValid(current, previous);
        }

        IReadOnlyList<ProgramState> before = previous.Snapshot.Programs;
        if (!previous.IsExplicit || before.Count != current.Programs.Count || StarvedBy(_override, current) is not null)
        {
            return false;
        }

        for (int i = 0; i < before.Count; i++)
        {
            ProgramId id = current.Programs[i].Id;
            if (before[i].Id != id || previous.Cores[i] != _override.GetValueOrDefault(id))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>The first program the allocation gives no core although it has available tasks, if any.</summary>
    private static ProgramId? StarvedBy(Dictionary<ProgramId, int> cores, AllocationSnapshot snapshot)
    {
        foreach (ProgramState p in snapshot.Programs)
        {
            if (p.AvailableTasks > 0 && cores.GetValueOrDefault(p.Id) == 0)
            {
                return p.Id;
            }
        }

        return null;
    }
}
