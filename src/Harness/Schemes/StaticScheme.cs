using DivCon.Harness.Wiring;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Harness.Schemes;

/// <summary>
/// "static" (thesis 5.3, static partitioning): the multiprogram scheduler with <see cref="ProportionalPolicy"/>,
/// cores in proportion to each program's whole-machine speedup, decided when the programs arrive and never
/// repartitioned.
/// </summary>
/// <remarks>
/// With more programs than workers a fixed partition would leave some program without a core for good, so the
/// scheduler then also makes interval decisions; the policy's answer does not change, and only the starvation
/// guard's time sharing acts on them (see <see cref="MultiprogramScheme"/>).
/// </remarks>
public sealed class StaticScheme(IReadOnlyList<WorkloadMember> workload, SchemeContext context) : MultiprogramScheme(workload, context)
{
    /// <summary>The registry name.</summary>
    public const string SchemeName = "static";

    /// <inheritdoc/>
    public override string Name => SchemeName;

    /// <inheritdoc/>
    protected override bool Repartitions => false;

    /// <inheritdoc/>
    protected override IAllocationPolicy CreatePolicy() => new ProportionalPolicy();
}
