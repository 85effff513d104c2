using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram.Policies;

/// <summary>What the policies that score an allocation (their public <c>Evaluate</c>) share.</summary>
internal static class AllocationScoring
{
    /// <summary>Checks the arguments of an <c>Evaluate(snapshot, cores)</c> call: both present, one count per program.</summary>
    /// <param name="snapshot">The workload.</param>
    /// <param name="cores">Cores per program, in snapshot order.</param>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="ArgumentException">The counts do not match the programs.</exception>
    public static void CheckArguments(AllocationSnapshot snapshot, IReadOnlyList<int> cores)
    {
        ArgumentNullException.ThrowIfNull(snapshot);
        ArgumentNullException.ThrowIfNull(cores);
        if (cores.Count != snapshot.Programs.Count)
        {
            throw new ArgumentException($"{cores.Count} allocations for {snapshot.Programs.Count} programs.", nameof(cores));
        }
    }
}
