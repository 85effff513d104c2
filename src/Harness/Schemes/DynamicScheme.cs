using DivCon.Harness.Wiring;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Harness.Schemes;

/// <summary>
/// "dynamic" (thesis 5.3.4, dynamic repartitioning): the multiprogram scheduler with
/// <see cref="TaskAvailabilityPolicy"/>, proportional shares capped by each program's available tasks, re-run every
/// rebalancing interval.
/// </summary>
public sealed class DynamicScheme(IReadOnlyList<WorkloadMember> workload, SchemeContext context) : MultiprogramScheme(workload, context)
{
    /// <summary>The registry name.</summary>
    public const string SchemeName = "dynamic";

    /// <inheritdoc/>
    public override string Name => SchemeName;

    /// <inheritdoc/>
    protected override bool Repartitions => true;

    /// <inheritdoc/>
    protected override IAllocationPolicy CreatePolicy() => new TaskAvailabilityPolicy();
}
