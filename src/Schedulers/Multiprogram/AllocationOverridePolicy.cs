using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// The policy a <see cref="MultiprogramScheduler"/> hands its decider: the user's policy, unless an explicit
/// allocation was set with <see cref="MultiprogramScheduler.SetAllocation"/>, which then stands until it is cleared
/// or the set of programs changes. Not thread-safe: used under the scheduler's decision lock.
/// </summary>
internal sealed class AllocationOverridePolicy : IAllocationPolicy
{
    /// <summary>The <see cref="Name"/> while an override stands.</summary>
    public const string OverrideName = StarvationGuard.ExplicitPolicyName;

    private Dictionary<ProgramId, int>? _override;

    public AllocationOverridePolicy(IAllocationPolicy inner) => Inner = inner;

    /// <summary>The user's policy.</summary>
    public IAllocationPolicy Inner { get; }

    /// <inheritdoc />
    public string Name => _override is null ? Inner.Name : OverrideName;

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

        int[] cores = [.. snapshot.Programs.Select(p => _override.GetValueOrDefault(p.Id))];
        return new AllocationDecision(OverrideName, snapshot, cores, usedFastPath: false, "allocation set explicitly");
    }

    /// <inheritdoc />
    /// <remarks>
    /// With an override: valid when the previous decision was made under it for the same programs in the same order
    /// (the override is cleared whenever programs arrive or leave, so Allocate would repeat it exactly).
    /// </remarks>
    public bool IsStillValid(AllocationSnapshot current, AllocationDecision previous)
    {
        if (_override is null)
        {
            return previous.Policy != OverrideName && Inner.IsStillValid(current, previous);
        }

        IReadOnlyList<ProgramState> before = previous.Snapshot.Programs;
        if (previous.Policy != OverrideName || before.Count != current.Programs.Count)
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
}
