using DivCon.Harness.Wiring;
using DivCon.Schedulers;

namespace DivCon.Harness.Schemes;

/// <summary>
/// "oversubscribed-pinned" (thesis 5.2.2): one <see cref="AffinityTaskScheduler"/> per program, each pinned to every
/// CPU of the run, so each CPU carries one worker per program and no thread migrates.
/// </summary>
public sealed class OversubscribedPinnedScheme(IReadOnlyList<WorkloadMember> workload, SchemeContext context) : WorkloadScheme(workload, context)
{
    /// <summary>The registry name.</summary>
    public const string SchemeName = "oversubscribed-pinned";

    /// <inheritdoc/>
    public override string Name => SchemeName;

    /// <inheritdoc/>
    protected override SchemeSession Open()
    {
        Context.RequirePinning(Name);
        return OpenOwning(owned =>
            new SchemeSession(Workload.Select(m =>
            {
                var scheduler = new AffinityTaskScheduler(Context.Machine.Topology, Context.Cpus);
                owned.Add(scheduler);
                return Bind(m, scheduler);
            }).ToArray(), owned));
    }
}
