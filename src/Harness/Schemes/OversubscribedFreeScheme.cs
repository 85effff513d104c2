using DivCon.Harness.Wiring;
using DivCon.Schedulers;

namespace DivCon.Harness.Schemes;

/// <summary>
/// "oversubscribed-free" (thesis 5.2.1): one unpinned <see cref="WorkStealingTaskScheduler"/> per program, each with
/// a worker per CPU; the operating system time-slices and migrates the programs' threads.
/// </summary>
public sealed class OversubscribedFreeScheme(IReadOnlyList<WorkloadMember> workload, SchemeContext context) : WorkloadScheme(workload, context)
{
    /// <summary>The registry name.</summary>
    public const string SchemeName = "oversubscribed-free";

    /// <inheritdoc/>
    public override string Name => SchemeName;

    /// <inheritdoc/>
    protected override SchemeSession Open() => OpenOwning(owned =>
        new SchemeSession(Workload.Select(m =>
        {
            var scheduler = new WorkStealingTaskScheduler(Context.Workers);
            owned.Add(scheduler);
            return Bind(m, scheduler);
        }).ToArray(), owned));
}
