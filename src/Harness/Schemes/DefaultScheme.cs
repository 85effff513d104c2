using DivCon.Harness.Wiring;

namespace DivCon.Harness.Schemes;

/// <summary>
/// "default" (thesis 5.2.4): every program on <see cref="TaskScheduler.Default"/>, the .NET thread pool (unpinned,
/// free to inject threads). Nothing to create or dispose; the worker count option does not apply to it.
/// </summary>
public sealed class DefaultScheme(IReadOnlyList<WorkloadMember> workload, SchemeContext context) : WorkloadScheme(workload, context)
{
    /// <summary>The registry name.</summary>
    public const string SchemeName = "default";

    /// <inheritdoc/>
    public override string Name => SchemeName;

    /// <inheritdoc/>
    protected override SchemeSession Open() =>
        new(Workload.Select(m => Bind(m, TaskScheduler.Default)).ToArray(), []);
}
