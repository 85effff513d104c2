using DivCon.Harness.Wiring;
using DivCon.Schedulers;

namespace DivCon.Harness.Schemes;

/// <summary>
/// "shared" (thesis 5.2.3): a single <see cref="AffinityTaskScheduler"/> (one pinned worker per CPU) for all
/// programs; their tasks meet in the same queues and work stealing balances them.
/// </summary>
public sealed class SharedScheme(IReadOnlyList<WorkloadMember> workload, SchemeContext context) : WorkloadScheme(workload, context)
{
    /// <summary>The registry name.</summary>
    public const string SchemeName = "shared";

    /// <inheritdoc/>
    public override string Name => SchemeName;

    /// <inheritdoc/>
    protected override SchemeSession Open()
    {
        Context.RequirePinning(Name);
        return OpenOwning(owned =>
        {
            var scheduler = new AffinityTaskScheduler(Context.Machine.Topology, Context.Cpus);
            owned.Add(scheduler);
            return new SchemeSession(Workload.Select(m => Bind(m, scheduler)).ToArray(), owned);
        });
    }
}
