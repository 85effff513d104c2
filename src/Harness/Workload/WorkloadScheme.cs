using DivCon.Schedulers;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Multiprogram.Profiles;

namespace DivCon.Harness.Workload;

/// <summary>
/// A scheme (<see cref="SchemeDefinition"/>, data) bound to a workload of initialised programs: at each
/// <see cref="OpenAsync"/> it creates the schedulers of the definition's <see cref="SchedulerLayout"/> and binds
/// every program to the one its tasks go to. The only scheme class: every scheme differs only in its definition.
/// </summary>
/// <remarks>
/// <para>The multiprogram layout: one <see cref="MultiprogramScheduler"/> (a pinned worker per CPU, shared by all
/// programs, each worker serving one program at a time) with the definition's policy; every program registers with
/// its scalability profile (speedup 1 without one). Applied allocations are recorded into the session's
/// <see cref="AllocationTrace"/> from the scheduler's <see cref="RebalanceEvent"/>s. Idle workers are lent to
/// programs with queued tasks unless <see cref="SchemeContext.Lending"/> is off; allocations count ownership, never
/// lending. Without lending, a workload with more programs than workers would leave some program without a core for
/// good, so that combination is refused.</para>
/// <para>If opening throws after creating schedulers, the schedulers created so far are disposed before the
/// exception propagates.</para>
/// </remarks>
public sealed class WorkloadScheme : IWorkloadScheme
{
    private readonly IReadOnlyList<WorkloadProgram> _workload;
    private readonly SchemeContext _context;

    /// <summary>Binds a scheme to a workload.</summary>
    /// <param name="definition">The scheme.</param>
    /// <param name="workload">The programs (at least one, names unique).</param>
    /// <param name="context">Machine, workers, profiles and the multiprogram settings.</param>
    /// <exception cref="ArgumentException">The workload is empty or has duplicate names, or a multiprogram definition has no policy.</exception>
    public WorkloadScheme(SchemeDefinition definition, IReadOnlyList<WorkloadProgram> workload, SchemeContext context)
    {
        ArgumentNullException.ThrowIfNull(definition);
        ArgumentNullException.ThrowIfNull(workload);
        ArgumentNullException.ThrowIfNull(context);
        if (workload.Count == 0 || workload.Select(m => m.Name).Distinct(StringComparer.Ordinal).Count() != workload.Count)
        {
            throw new ArgumentException("A workload needs at least one program and unique names.", nameof(workload));
        }

        if (definition.Layout == SchedulerLayout.Multiprogram && definition.Policy is null)
        {
            throw new ArgumentException($"Scheme '{definition.Name}' has the multiprogram layout but no policy.", nameof(definition));
        }

        Definition = definition;
        _workload = workload;
        _context = context;
    }

    /// <summary>The scheme's definition.</summary>
    public SchemeDefinition Definition { get; }

    /// <inheritdoc/>
    public string Name => Definition.Name;

    /// <summary>
    /// Whether a multiprogram scheduler gets a rebalancing interval: when the policy repartitions, and always when the
    /// workload has more programs than workers, because then only interval decisions let the starvation guard
    /// time-share the cores (a decision at arrival alone would leave the programs beyond the core count without one
    /// for good). False for the other layouts.
    /// </summary>
    public bool UsesIntervalDecisions =>
        Definition.Layout == SchedulerLayout.Multiprogram && (Definition.Repartitions || _workload.Count > _context.Workers);

    /// <inheritdoc/>
    public ValueTask<IWorkloadSession> OpenAsync(CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        return ValueTask.FromResult<IWorkloadSession>(Open());
    }

    private SchemeSession Open()
    {
        SchedulerLayout layout = Definition.Layout;
        if (layout is SchedulerLayout.PerProgramPinned or SchedulerLayout.Shared)
        {
            _context.RequirePinning(Name);
        }

        if (layout == SchedulerLayout.Multiprogram && !_context.Lending && _workload.Count > _context.Workers)
        {
            throw new ArgumentException(
                $"Scheme '{Name}' without lending cannot run {_workload.Count} programs on {_context.Workers} workers: some program would never get a core.");
        }

        var owned = new List<IDisposable>();
        try
        {
            switch (layout)
            {
                case SchedulerLayout.DotNetPool:
                    return new SchemeSession(Bind(_ => TaskScheduler.Default), owned);
                case SchedulerLayout.PerProgramUnpinned:
                    return new SchemeSession(Bind(_ => Own(owned, new WorkStealingTaskScheduler(_context.Workers))), owned);
                case SchedulerLayout.PerProgramPinned:
                    return new SchemeSession(Bind(_ => Own(owned, new AffinityTaskScheduler(_context.Machine.Topology, _context.Cpus))), owned);
                case SchedulerLayout.Shared:
                {
                    var shared = Own(owned, new AffinityTaskScheduler(_context.Machine.Topology, _context.Cpus));
                    return new SchemeSession(Bind(_ => shared), owned);
                }

                case SchedulerLayout.Isolated:
                {
                    WorkerPoolTaskScheduler whole = _context.Machine.PinningSupported
                        ? new AffinityTaskScheduler(_context.Machine.Topology, _context.Cpus)
                        : new WorkStealingTaskScheduler(_context.Workers);
                    Own(owned, whole);
                    return new SchemeSession(Bind(_ => whole), owned);
                }

                case SchedulerLayout.Multiprogram:
                    return OpenMultiprogram(owned);
                default:
                    throw new InvalidOperationException($"Scheme '{Name}' has an unknown layout {layout}.");
            }
        }
        catch
        {
            SchemeSession.DisposeAll(owned);
            throw;
        }
    }

    private SchemeSession OpenMultiprogram(List<IDisposable> owned)
    {
        IReadOnlyList<int> cpus = _context.Cpus;
        bool pin = _context.Machine.PinningSupported;
        var scheduler = Own(owned, new MultiprogramScheduler(new MultiprogramSchedulerOptions
        {
            Topology = pin ? _context.Machine.Topology : _context.Machine.Topology.Subset(cpus),
            CpuIds = pin ? cpus : null,
            WorkerCount = cpus.Count,
            Pin = pin,
            Policy = Definition.Policy!(),
            RebalanceInterval = UsesIntervalDecisions ? _context.RebalanceInterval : Timeout.InfiniteTimeSpan,
            EnableLending = _context.Lending,
            LendingPreference = _context.LendingPreference,
            MoveHandoverThreshold = _context.Standby && Definition.Standby ? MultiprogramSchedulerOptions.DefaultMoveHandoverThreshold : Timeout.InfiniteTimeSpan,
            EstimatorSampleInterval = Definition.EstimatorSampleIntervalMilliseconds is { } ms
                ? TimeSpan.FromMilliseconds(ms)
                : MultiprogramSchedulerOptions.DefaultEstimatorSampleInterval,
            TimeProvider = _context.Time,
        }));
        var index = new Dictionary<ProgramId, int>();
        WorkloadProgram[] programs = Bind(member =>
        {
            ProgramTaskScheduler program = Own(owned, _context.Profiles.TryGetValue(member.Name, out ScalabilityProfile? profile) && profile is not null
                ? scheduler.Register(member.Name, profile)
                : scheduler.Register(member.Name, 1.0));
            index[program.ProgramId] = index.Count;
            return program;
        });

        var trace = new AllocationTrace(_workload.Select(m => m.Name).ToArray(), _context.Time);
        owned.Add(new AllocationRecorder(scheduler, trace, index)); // disposed first: no recording while the programs depart
        return new SchemeSession(programs, owned, trace);
    }

    /// <summary>Binds every program, in workload order, to the scheduler <paramref name="schedulerFor"/> gives it.</summary>
    private WorkloadProgram[] Bind(Func<WorkloadProgram, TaskScheduler> schedulerFor) =>
        _workload.Select(m => m.On(schedulerFor(m))).ToArray();

    private static T Own<T>(List<IDisposable> owned, T item)
        where T : IDisposable
    {
        owned.Add(item);
        return item;
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
