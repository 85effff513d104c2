using DivCon.Harness.Wiring;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Harness.Schemes;

/// <summary>
/// "hill-climbing" (after Sasaki et al.): the multiprogram scheduler with <see cref="HillClimbingPolicy"/>, single-core
/// moves while the ANTT predicted from the stored speedup tables improves, re-run every rebalancing interval.
/// </summary>
public sealed class HillClimbingScheme(IReadOnlyList<WorkloadMember> workload, SchemeContext context) : MultiprogramScheme(workload, context)
{
    /// <summary>The registry name.</summary>
    public const string SchemeName = "hill-climbing";

    /// <inheritdoc/>
    public override string Name => SchemeName;

    /// <inheritdoc/>
    protected override bool Repartitions => true;

    /// <inheritdoc/>
    protected override IAllocationPolicy CreatePolicy() => new HillClimbingPolicy();
}
