using System.Diagnostics;
using DivCon.Schedulers.Multiprogram.Domain;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// The machine domain: while an arbiter is attached and holds a grant, every decision applies the grant instead of
/// the local policy (each listed program holds exactly its listed CPUs; the process's other CPUs are withheld, their
/// workers asleep at home in the idle set); without a grant the local policy decides on all own CPUs as without a
/// domain. The protocol and its invariants: the multiprogram README, "Machine domain".
/// </summary>
public sealed partial class MultiprogramScheduler
{
    /// <summary>The policy name of decisions that applied a grant.</summary>
    internal const string DomainPolicyName = "machine-domain";

    private ICpuArbiter? _arbiter;
    private GuestLending? _guests;
    private bool _domainDetached; // Under the gate: set once, at shutdown.
    private TimeSpan _joinedSampleInterval; // Set once, when the arbiter is attached (before the rebalancer starts).
    private ArbiterGrant? _lastGrantSeen; // Under the gate.
    private ArbiterGrant? _lastValidGrant; // Under the gate.
    private long _badGrants;
    private long _ignoredGrantEntries;
    private long _publishFailures;

    /// <summary>
    /// How the scheduler stands with a machine domain: null when none was asked for; otherwise whether it is attached
    /// or runs without it, and why (harness reports, diagnostics).
    /// </summary>
    internal string? DomainStatus { get; private set; }

    /// <summary>Cross-process lending (null: not asked for, or shut down): its counters for reports and tests.</summary>
    internal GuestLending? Guests => Volatile.Read(ref _guests);

    /// <summary>Whether an arbiter is attached (a domain was asked for and its client was created).</summary>
    internal bool HasArbiter => _arbiter is not null;

    /// <summary>The rebalancer's current sampling interval (tests; see <see cref="SampleIntervalFor"/>).</summary>
    internal TimeSpan SampleInterval => _rebalancer.SampleInterval;

    /// <summary>Grants refused as a whole (a CPU listed twice), each counted once.</summary>
    internal long BadGrants => Interlocked.Read(ref _badGrants); // Atomic 64-bit read on every platform.

    /// <summary>Grant entries ignored: programs unknown here and CPUs not this process's, counted once per grant.</summary>
    internal long IgnoredGrantEntries => Interlocked.Read(ref _ignoredGrantEntries); // Atomic 64-bit read.

    /// <summary>Calls of the arbiter's Publish that threw (reported, never passed on).</summary>
    internal long PublishFailures => Interlocked.Read(ref _publishFailures); // Atomic 64-bit read.

    /// <summary>
    /// The CPUs (or slots) whose home is the idle set while programs are registered: withheld by a grant. Taken under
    /// the decision lock: with the programs' <see cref="ProgramTaskScheduler.CurrentCores"/> they sum to
    /// <see cref="WorkerCount"/>.
    /// </summary>
    internal IReadOnlyList<int> WithheldCpus
    {
        get
        {
            lock (_gate)
            {
                if (_programs.Length == 0)
                {
                    return [];
                }

                var withheld = new List<int>();
                for (int i = 0; i < WorkerCount; i++)
                {
                    if (ReferenceEquals(_pool.Cpus[i].Home, _idle))
                    {
                        withheld.Add(_cpuOfWorker[i]);
                    }
                }

                return withheld;
            }
        }
    }

    /// <summary>
    /// Construction, before the rebalancer starts: creates the arbiter when a domain is asked for (the options, else
    /// <c>DIVCON_DOMAIN</c>). Never throws: a domain that cannot be joined leaves the scheduler local, with a trace line.
    /// </summary>
    /// <param name="options">The options.</param>
    private void JoinDomain(MultiprogramSchedulerOptions options)
    {
        MachineDomainOptions? domain;
        try
        {
            domain = options.MachineDomain ?? MachineDomainOptions.FromEnvironment();
        }
        catch (ArgumentException ex)
        {
            DomainStatus = $"not joined: {ex.Message}";
            Trace.TraceWarning($"MultiprogramScheduler: {DomainStatus}");
            return;
        }

        if (domain is null)
        {
            return;
        }

        ICpuArbiter arbiter;
        try
        {
            arbiter = (options.ArbiterFactory ?? CpuArbiterFactory.Create)(domain)
                ?? throw new InvalidOperationException("The arbiter factory returned null.");
        }
#pragma warning disable CA1031 // Any failure to join leaves the scheduler local; construction never fails for it.
        catch (Exception ex)
#pragma warning restore CA1031
        {
            DomainStatus = $"{domain}: not joined, the local policy decides on all own CPUs ({ex.GetType().Name}: {ex.Message})";
            Trace.TraceWarning($"MultiprogramScheduler: {DomainStatus}");
            return;
        }

        _arbiter = arbiter;
        _joinedSampleInterval = domain.EstimatorSampleInterval;
        DomainStatus = $"{domain}: attached";
        if (domain.Guests)
        {
            StartGuests(domain, options.GuestBoardFactory ?? CpuArbiterFactory.OpenGuestBoard);
        }

        arbiter.GrantChanged += OnGrantChanged;
        lock (_gate)
        {
            PublishToDomain(new AllocationSnapshot(WorkerCount, [])); // Introduces this process and its CPUs.
            UpdateSampleInterval();
        }
    }

    /// <summary>
    /// The estimator's sampling interval between decisions: the local one (<paramref name="local"/>) unless the
    /// process is joined (<paramref name="joined"/> not null) and no early decision waits for samples, when the longer
    /// of the two. Sampling off locally stays off; sampling off in the domain means only at decisions.
    /// </summary>
    /// <param name="local">The scheduler's <see cref="MultiprogramSchedulerOptions.EstimatorSampleInterval"/>.</param>
    /// <param name="joined">The domain's <see cref="MachineDomainOptions.EstimatorSampleInterval"/>, or null when not joined.</param>
    /// <param name="earlyPending">Whether an early decision waits for a new program's first samples.</param>
    /// <returns>The interval to sample at (zero or infinite: only at decisions).</returns>
    internal static TimeSpan SampleIntervalFor(TimeSpan local, TimeSpan? joined, bool earlyPending)
    {
        if (joined is not { } domain || earlyPending || !Rebalancer.IsPeriod(local))
        {
            return local;
        }

        return !Rebalancer.IsPeriod(domain) ? Timeout.InfiniteTimeSpan : domain > local ? domain : local;
    }

    /// <summary>Under the gate: sets the rebalancer's sampling interval for the current state (<see cref="SampleIntervalFor"/>).</summary>
    private void UpdateSampleInterval()
    {
        Debug.Assert(Monitor.IsEntered(_gate), "The sampling interval follows state read under the gate.");
        bool joined = _arbiter is not null && !_domainDetached;
        _rebalancer.SampleInterval = SampleIntervalFor(_localSampleInterval, joined ? _joinedSampleInterval : null, _early is { Pending: > 0 });
    }

    /// <summary>
    /// The arbiter's thread: a new grant (or none) asks the rebalancer thread for a decision. Lock-free: the arbiter
    /// may raise this while holding its own lock, and a decision (under the decision lock) calls its Publish, so
    /// taking the decision lock here could deadlock; the arbiter may also raise it from inside Publish, on a thread
    /// that already holds the decision lock.
    /// </summary>
    private void OnGrantChanged() => _rebalancer.RequestDecision();

    /// <summary>Rebalancer thread: the decision a grant change asked for.</summary>
    private void OnDomainRequest()
    {
        lock (_gate)
        {
            if (IsDisposed || _domainDetached || _arbiter is null || _programs.Length == 0)
            {
                return;
            }

            DecideAndApply(RebalanceReason.Manual);
        }

        DispatchEvents();
    }

    /// <summary>
    /// Under the gate: the decision a grant makes, or null when the local policy decides (no arbiter, no grant, or a
    /// refused grant with no earlier valid one). A refused grant is ignored whole: the last valid grant stands.
    /// </summary>
    private RebalanceEvent? DecideByGrant(AllocationSnapshot snapshot, RebalanceReason reason, long timestamp)
    {
        Debug.Assert(Monitor.IsEntered(_gate), "Decisions run under the gate.");
        if (_arbiter is not { } arbiter || _domainDetached)
        {
            return null;
        }

        ArbiterGrant? grant = ReadGrant(arbiter);
        if (grant is null)
        {
            // Not joined or fallen back: the local policy decides on all own CPUs (withheld CPUs come back).
            _lastGrantSeen = null;
            _lastValidGrant = null;
            return null;
        }

        bool fresh = !ReferenceEquals(grant, _lastGrantSeen);
        _lastGrantSeen = grant;
        ProgramId[] live = [.. _programs.Select(p => p.ProgramId)];
        GrantResolution resolution = GrantResolution.Resolve(grant, live, _workerOfCpu.Keys);
        string note = string.Empty;
        if (!resolution.IsValid)
        {
            if (fresh)
            {
                Interlocked.Increment(ref _badGrants); // Interlocked: read lock-free by BadGrants.
                Trace.TraceWarning($"MultiprogramScheduler: bad grant ignored: {resolution.Rejection}");
            }

            note = $"; bad grant epoch {grant.Epoch} ignored ({resolution.Rejection})";
            if (_lastValidGrant is null)
            {
                return null;
            }

            grant = _lastValidGrant;
            resolution = GrantResolution.Resolve(grant, live, _workerOfCpu.Keys);
            if (!resolution.IsValid)
            {
                return null; // Unreachable: a grant valid once has no duplicate CPU later.
            }
        }
        else
        {
            _lastValidGrant = grant;
        }

        int ignored = resolution.UnknownPrograms.Count + resolution.ForeignCpus.Count;
        if (fresh && ignored > 0)
        {
            Interlocked.Add(ref _ignoredGrantEntries, ignored); // Interlocked: read lock-free.
            Trace.TraceInformation(
                $"MultiprogramScheduler: grant epoch {grant.Epoch}: ignored programs not here [{string.Join(", ", resolution.UnknownPrograms)}] and CPUs not this process's [{string.Join(", ", resolution.ForeignCpus)}]");
        }

        int withheld = resolution.Withheld(_cpuOfWorker).Count;
        string explanation = $"grant epoch {grant.Epoch}: {WorkerCount - withheld} of {WorkerCount} CPUs granted, {withheld} withheld"
            + (ignored > 0 ? $", {ignored} entries ignored" : string.Empty) + note;
        RebalanceEvent decision = _decider.Impose(
            snapshot, reason, timestamp, resolution.Assignment!, DomainPolicyName, explanation, skipIfUnchanged: reason == RebalanceReason.Interval);
        return grant.ReceivedAt == 0 ? decision : decision with { DomainGrantReceivedAt = grant.ReceivedAt };
    }

    /// <summary>
    /// Construction, after the arbiter is attached: starts lending across processes (the watcher opens the board in
    /// the background and retries while it cannot).
    /// </summary>
    private void StartGuests(MachineDomainOptions domain, Func<MachineDomainOptions, IGuestBoard?> open)
    {
        _guests = new GuestLending(
            _pool,
            _idle,
            _cpuOfWorker,
            () => open(domain),
            AnyProgramHasWork,
            message => Trace.TraceWarning($"MultiprogramScheduler {domain}: {message}"));
        _director.Guests = _guests;
    }

    /// <summary>Lock-free: whether some live program has queued tasks (the guest watcher's question).</summary>
    private bool AnyProgramHasWork()
    {
        foreach (WorkQueueSet set in _director.Sets)
        {
            if (!set.LooksEmpty())
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>The arbiter's latest grant; an arbiter that throws counts as having none.</summary>
    private ArbiterGrant? ReadGrant(ICpuArbiter arbiter)
    {
        try
        {
            return arbiter.LatestGrant;
        }
#pragma warning disable CA1031 // A failing arbiter must not fail a decision: the local policy decides.
        catch (Exception ex)
#pragma warning restore CA1031
        {
            ReportFailure("The machine domain's grant could not be read", ex, _ => { });
            return null;
        }
    }

    /// <summary>Under the gate: hands the arbiter the local view (the snapshot of this decision, the programs' names).</summary>
    /// <param name="snapshot">The snapshot.</param>
    private void PublishToDomain(AllocationSnapshot snapshot)
    {
        if (_arbiter is not { } arbiter || _domainDetached)
        {
            return;
        }

        var names = _programs.ToDictionary(p => p.ProgramId, p => p.Name);
        try
        {
            arbiter.Publish(snapshot, _cpuOfWorker, names);
        }
#pragma warning disable CA1031 // A failing arbiter must not fail a decision (nor a Register).
        catch (Exception ex)
#pragma warning restore CA1031
        {
            // Interlocked: read lock-free; only the first failure is reported, the count tells the rest.
            if (Interlocked.Increment(ref _publishFailures) == 1)
            {
                ReportFailure("Publishing to the machine domain failed", ex, _ => { });
            }
        }
    }

    /// <summary>
    /// Shutdown, before the programs close: stops following grants and lets the local policy decide on all own CPUs,
    /// so that every program's queued work runs whatever the last grant gave it (none is stranded on a withheld CPU).
    /// </summary>
    private void LeaveDomainForShutdown()
    {
        ICpuArbiter? arbiter;
        lock (_gate)
        {
            arbiter = _arbiter;
            if (arbiter is null || _domainDetached)
            {
                return;
            }

            _domainDetached = true;
            UpdateSampleInterval();
            if (_programs.Length > 0)
            {
                DecideAndApply(RebalanceReason.Manual);
            }
        }

        arbiter.GrantChanged -= OnGrantChanged;
        DispatchEvents();
    }

    /// <summary>Shutdown, last: leaves the domain (the arbiter's own disposal tells the domain this process left).</summary>
    private void DisposeArbiter()
    {
        // Guests first: the board's row is freed while this process is still a member (its CPUs are local by now).
        _director.Guests = null;
        Interlocked.Exchange(ref _guests, null)?.Dispose();
        ICpuArbiter? arbiter = Interlocked.Exchange(ref _arbiter, null);
        if (arbiter is null)
        {
            return;
        }

        try
        {
            arbiter.Dispose();
        }
#pragma warning disable CA1031 // Disposal never throws.
        catch (Exception ex)
#pragma warning restore CA1031
        {
            ReportFailure("Leaving the machine domain failed", ex, _ => { });
        }
    }
}
