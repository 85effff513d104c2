using DivCon.Harness.Cyclic;
using DivCon.Harness.Wiring;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Multiprogram.Profiles;
using DivCon.Schedulers.Multiprogram;

namespace DivCon.Harness.Schemes;

/// <summary>
/// Base of the partitioning schemes: one <see cref="MultiprogramScheduler"/> (a pinned worker per CPU, shared by all
/// programs, each worker serving one program at a time) with a scheme-specific <see cref="IAllocationPolicy"/>; every
/// program registers with its scalability profile (speedup 1 without one). Applied allocations are recorded into the
/// session's <see cref="AllocationTrace"/> from the scheduler's <see cref="RebalanceEvent"/>s.
/// </summary>
/// <remarks>
/// Idle workers are lent to programs with queued tasks (the scheduler's work conservation) unless
/// <see cref="SchemeContext.Lending"/> is off; allocations count ownership, never lending. Without lending, a
/// workload with more programs than workers would leave some program without a core for good, so that combination
/// is refused.
/// </remarks>
public abstract class MultiprogramScheme(IReadOnlyList<WorkloadMember> workload, SchemeContext context) : WorkloadScheme(workload, context)
{
    /// <summary>
    /// Whether the policy is re-run every <see cref="SchemeContext.RebalanceInterval"/> (false: only on arrival and
    /// departure, unless the workload has more programs than workers; see <see cref="UsesIntervalDecisions"/>).
    /// </summary>
    protected abstract bool Repartitions { get; }

    /// <summary>
    /// Whether the scheduler gets a rebalancing interval: when the policy repartitions, and always when the workload
    /// has more programs than workers, because then only interval decisions let the starvation guard time-share the
    /// cores (a decision at arrival alone would leave the programs beyond the core count without one for good).
    /// </summary>
    public bool UsesIntervalDecisions => Repartitions || Workload.Count > Context.Workers;

    /// <summary>Creates the scheme's policy.</summary>
    /// <returns>The policy.</returns>
    protected abstract IAllocationPolicy CreatePolicy();

    /// <inheritdoc/>
    protected override SchemeSession Open()
    {
        if (!Context.Lending && Workload.Count > Context.Workers)
        {
            throw new ArgumentException(
                $"Scheme '{Name}' without lending cannot run {Workload.Count} programs on {Context.Workers} workers: some program would never get a core.");
        }

        return OpenOwning(owned =>
        {
            IReadOnlyList<int> cpus = Context.Cpus;
            var scheduler = new MultiprogramScheduler(new MultiprogramSchedulerOptions
            {
                Topology = Context.Machine.PinningSupported ? Context.Machine.Topology : Context.Machine.Topology.Subset(cpus),
                CpuIds = Context.Machine.PinningSupported ? cpus : null,
                WorkerCount = cpus.Count,
                Pin = Context.Machine.PinningSupported,
                Policy = CreatePolicy(),
                RebalanceInterval = UsesIntervalDecisions ? Context.RebalanceInterval : Timeout.InfiniteTimeSpan,
                EnableLending = Context.Lending,
                MoveHandoverThreshold = Context.Standby ? MultiprogramSchedulerOptions.DefaultMoveHandoverThreshold : Timeout.InfiniteTimeSpan,
                TimeProvider = Context.Time,
            });
            owned.Add(scheduler);
            var programs = new List<IWorkloadProgram>(Workload.Count);
            var index = new Dictionary<ProgramId, int>();
            foreach (WorkloadMember member in Workload)
            {
                ProgramTaskScheduler program = Context.Profiles.TryGetValue(member.Name, out ScalabilityProfile? profile) && profile is not null
                    ? scheduler.Register(member.Name, profile)
                    : scheduler.Register(member.Name, 1.0);
                owned.Add(program);
                index[program.ProgramId] = programs.Count;
                programs.Add(Bind(member, program));
            }

            var trace = new AllocationTrace(Workload.Select(m => m.Name).ToArray(), Context.Time);
            var recorder = new AllocationRecorder(scheduler, trace, index);
            owned.Add(recorder); // disposed first: no recording while the programs depart
            return new SchemeSession(programs, owned, trace);
        });
    }

    /// <summary>Subscribes to a scheduler's decisions and records each applied allocation in workload order.</summary>
    private sealed class AllocationRecorder : IDisposable
    {
        private readonly MultiprogramScheduler _scheduler;
        private readonly AllocationTrace _trace;
        private readonly IReadOnlyDictionary<ProgramId, int> _index;

        public AllocationRecorder(MultiprogramScheduler scheduler, AllocationTrace trace, IReadOnlyDictionary<ProgramId, int> index)
        {
            _scheduler = scheduler;
            _trace = trace;
            _index = index;
            _scheduler.Rebalanced += OnRebalanced;
            // The arrivals were decided before the subscription: record the allocation they left.
            Record(_scheduler.CurrentAllocation);
        }

        public void Dispose() => _scheduler.Rebalanced -= OnRebalanced;

        private void OnRebalanced(object? sender, RebalanceEvent decision)
        {
            if (!decision.Skipped)
            {
                Record(decision.After);
                if (decision.Moves.Count > 0)
                {
                    _trace.RecordMoves(decision.Arrivals, [.. decision.Moves.Select(m => $"cpu {m.CpuId}: {NameOf(m.From)} -> {NameOf(m.To)}")]);
                }
            }
        }

        private string NameOf(ProgramId? program) =>
            program is { } id && _index.TryGetValue(id, out int i) ? _trace.Programs[i] : "none";

        private void Record(IReadOnlyList<ProgramAllocation> allocation)
        {
            var cores = new int[_index.Count];
            foreach (ProgramAllocation entry in allocation)
            {
                if (_index.TryGetValue(entry.Id, out int i))
                {
                    cores[i] = entry.Cores;
                }
            }

            _trace.Record(cores);
        }
    }
}
