using DivCon.Harness.Wiring;
using DivCon.Schedulers;

namespace DivCon.Harness.Schemes;

/// <summary>
/// "isolated": the single-program baseline (C_SP). One <see cref="AffinityTaskScheduler"/> pinned to every CPU of
/// the run; the experiment runs the programs on it one at a time, so each has the whole machine. Where pinning is
/// unsupported it falls back to an unpinned <see cref="WorkStealingTaskScheduler"/> with the same worker count.
/// </summary>
/// <remarks>The affinity scheduler (not the .NET pool) so that every scheme is normalised against the same
/// baseline, the thesis's stand-alone configuration.</remarks>
public sealed class IsolatedScheme(IReadOnlyList<WorkloadMember> workload, SchemeContext context) : WorkloadScheme(workload, context)
{
    /// <summary>The registry name.</summary>
    public const string SchemeName = "isolated";

    /// <inheritdoc/>
    public override string Name => SchemeName;

    /// <inheritdoc/>
    protected override SchemeSession Open() => OpenOwning(owned =>
    {
        WorkerPoolTaskScheduler scheduler = Context.Machine.PinningSupported
            ? new AffinityTaskScheduler(Context.Machine.Topology, Context.Cpus)
            : new WorkStealingTaskScheduler(Context.Workers);
        owned.Add(scheduler);
        return new SchemeSession(Workload.Select(m => Bind(m, scheduler)).ToArray(), owned);
    });
}
