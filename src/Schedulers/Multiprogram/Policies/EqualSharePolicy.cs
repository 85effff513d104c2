using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram.Policies;

/// <summary>
/// Splits the cores evenly, ignoring scalability and available tasks: every program gets
/// floor(cores / programs), and the remaining cores go one each to the earliest programs in snapshot order.
/// </summary>
/// <remarks>
/// Example: 64 cores, 3 programs -> 22, 21, 21. With more programs than cores the first programs get one core and
/// the rest none (always the same ones: a starvation risk this policy does not address).
/// </remarks>
public sealed class EqualSharePolicy : IAllocationPolicy
{
    /// <inheritdoc />
    public string Name => "equal";

    /// <inheritdoc />
    public AllocationDecision Allocate(AllocationSnapshot snapshot)
    {
        ArgumentNullException.ThrowIfNull(snapshot);
        int m = snapshot.Programs.Count;
        var cores = new int[m];
        if (m > 0)
        {
            int each = snapshot.CoreCount / m;
            int extra = snapshot.CoreCount % m;
            for (int i = 0; i < m; i++)
            {
                cores[i] = each + (i < extra ? 1 : 0);
            }
        }

        return new AllocationDecision(Name, snapshot, cores, usedFastPath: false, "equal split, remainder to the earliest programs");
    }

    /// <inheritdoc />
    public bool IsStillValid(AllocationSnapshot current, AllocationDecision previous)
    {
        ArgumentNullException.ThrowIfNull(current);
        ArgumentNullException.ThrowIfNull(previous);
        return ProportionalShares.SamePrograms(current, previous.Snapshot);
    }
}
