using System.Collections.ObjectModel;
using DivCon.Schedulers.Multiprogram.Decisions;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Multiprogram.Profiles;
using DivCon.Schedulers.Platform;
using DivCon.Schedulers.Topology;
using DivCon.Schedulers.Workers;
using Microsoft.Extensions.Logging;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// One pool of workers (one serving worker per CPU, pinned by default, plus a parked standby per CPU unless
/// <see cref="MultiprogramSchedulerOptions.MoveHandoverThreshold"/> is infinite) shared by several concurrently
/// running programs. Each
/// program registers and gets its own <see cref="ProgramTaskScheduler"/>; a rebalancer decides how many workers
/// each program owns and moves workers between programs in user space.
/// </summary>
/// <remarks>
/// <para>
/// <b>Idea.</b> Instead of every program having its own threads and the operating system time-slicing them, the
/// process has one serving worker per core (a second thread per core stands by, parked, and serves only while the
/// worker it replaced finishes one long task), and a worker serves exactly one program at a time. The
/// <see cref="IAllocationPolicy"/> (default <see cref="LearnedScalabilityPolicy"/>) decides the split; the mechanism
/// here applies it.
/// </para>
/// <para>
/// <b>Moves.</b> A decision changes some CPUs' owner (one interlocked store of the CPU's move order); the CPU's
/// server finishes the task it is running (a started task never changes thread), pushes the tasks left in its deque
/// back to the old program's global queue, switches to the new program's queues and takes work there, at its next
/// task boundary. No thread is created and the switch itself makes no system call (the worker stays pinned to its
/// CPU); waking a parked worker to move, a sleeper of the old program for the handed-back tasks, or the standby when
/// the server is inside a task, costs a futex wake-up each. When that task has run for
/// <see cref="MultiprogramSchedulerOptions.MoveHandoverThreshold"/>, the standby takes the CPU over and serves the
/// new owner while the old task finishes (the protocol: <c>src/Schedulers/Workers/README.md</c>).
/// </para>
/// <para>
/// <b>Lending (work conservation).</b> With <see cref="MultiprogramSchedulerOptions.EnableLending"/> (default), a
/// worker whose owner has no queued task anywhere, after spinning, serves another program that has queued tasks,
/// and goes home as soon as its owner has work again (checked at every task boundary) or the borrower runs dry.
/// Allocations and events count ownership, never lending.
/// </para>
/// <para>
/// <b>Rebalancing.</b> On every arrival and departure, on request (<see cref="Rebalance"/>,
/// <see cref="SetAllocation"/>), and every <see cref="MultiprogramSchedulerOptions.RebalanceInterval"/> on a
/// dedicated thread (skipped cheaply when the policy says its last decision stands). Every decision is a
/// <see cref="RebalanceEvent"/>: raised by <see cref="Rebalanced"/>, kept in <see cref="History"/>.
/// </para>
/// <example>
/// <code>
/// using var scheduler = new MultiprogramScheduler(new MultiprogramSchedulerOptions());
/// using var sort = scheduler.Register("mergesort", speedup: 5.1);
/// using var fft = scheduler.Register("fft", speedup: 3.2);
/// var a = Task.Factory.StartNew(SortAll, CancellationToken.None, TaskCreationOptions.None, sort);
/// var b = Task.Factory.StartNew(TransformAll, CancellationToken.None, TaskCreationOptions.None, fft);
/// await Task.WhenAll(a, b);
/// </code>
/// </example>
/// <para>
/// <b>Warnings.</b> A task that blocks holds its worker (there is no thread injection). Always dispose: the workers
/// are dedicated threads. <see cref="Rebalanced"/> handlers run on a deciding thread, outside the decision lock but
/// one at a time: keep them short (a slow handler delays the next decision's event, and the rebalancer thread's next
/// interval when it raised the event).
/// </para>
/// </remarks>
public sealed partial class MultiprogramScheduler : IDisposable, IAsyncDisposable
{
    /// <summary>How long <see cref="Dispose"/> and <see cref="ProgramTaskScheduler.Dispose"/> wait.</summary>
    public static readonly TimeSpan DefaultShutdownTimeout = TimeSpan.FromSeconds(30);

    private readonly object _gate = new();
    private readonly WorkerPool _pool;
    private readonly WorkerDirector _director;
    private readonly WorkQueueSet _idle;
    private readonly int[] _cpuOfWorker;
    private readonly Dictionary<int, int> _workerOfCpu;
    private readonly int[][][] _victims;
    private readonly RebalanceDecider _decider;
    private readonly AllocationOverridePolicy _policy;
    private readonly Rebalancer _rebalancer;
    private readonly Queue<RebalanceEvent> _history = new();
    private readonly int _historyCapacity;
    private ProgramTaskScheduler[] _programs = [];
    private int _nextProgramId;
    private long _skippedDecisions;
    private long _decisions;
    private long _lateResumptions;
    private int _disposeState;
    private bool _workersExited;
    private readonly ILogger? _logger;
    private readonly bool _raiseSkipped;
    private readonly MultiprogramMetrics? _metrics; // Null: the instrumentation is off (see Instrumentation).
    private readonly long _createdAt;
    private readonly TimeSpan _localSampleInterval; // options.EstimatorSampleInterval (see UpdateSampleInterval).
    private readonly EarlyDecision? _early; // Null: the policy does not decide early, or nothing samples between decisions.

    /// <summary>Whether this scheduler makes early decisions after arrivals (tests; see <see cref="EarlyDecision"/>).</summary>
    internal bool DecidesEarly => _early is not null;

    /// <summary>Creates the pool (starting and, by default, pinning its workers) and the rebalancer.</summary>
    /// <param name="options">CPUs, pinning, policy, interval; null = all allowed CPUs, pinned, defaults.</param>
    /// <exception cref="ArgumentException">The options do not fit (unknown or repeated CPU ids, counts that disagree, or
    /// pinned CPUs outside the ones the process may use, which are named).</exception>
    /// <exception cref="ArgumentOutOfRangeException">A count or the interval is out of range.</exception>
    /// <exception cref="PlatformNotSupportedException">Pinning was asked for and is not supported here.</exception>
    /// <exception cref="ThreadAffinityException">The operating system refused to pin a worker.</exception>
    public MultiprogramScheduler(MultiprogramSchedulerOptions? options = null)
    {
        options ??= new MultiprogramSchedulerOptions();
        if (options.EstimatorSampleInterval < TimeSpan.Zero && options.EstimatorSampleInterval != Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.EstimatorSampleInterval, "EstimatorSampleInterval must be positive, zero or infinite.");
        }

        if (options.RebalanceInterval < TimeSpan.Zero && options.RebalanceInterval != Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.RebalanceInterval, "RebalanceInterval must be positive, zero or infinite.");
        }

        ArgumentOutOfRangeException.ThrowIfLessThan(options.HistoryCapacity, 0, nameof(options));
        if (options.LendingPreference is < LendingPreference.RoundRobin or > LendingPreference.OldestRun)
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.LendingPreference, "LendingPreference is not a defined LendingPreference.");
        }

        IReadOnlyList<LogicalCpu> slots = ResolveSlots(options);
        IsPinned = options.Pin;
        Topology = new CpuTopology(slots);
        _cpuOfWorker = [.. slots.Select(c => c.Id)];
        _workerOfCpu = [];
        for (int i = 0; i < _cpuOfWorker.Length; i++)
        {
            _workerOfCpu[_cpuOfWorker[i]] = i;
        }

        if (options.MoveHandoverThreshold < TimeSpan.Zero && options.MoveHandoverThreshold != Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.MoveHandoverThreshold, "MoveHandoverThreshold must be zero, positive or infinite.");
        }

        // With standbys every set has a second slot per CPU (index + CPU count) for the CPU's standby worker.
        TimeSpan? handover = options.MoveHandoverThreshold == Timeout.InfiniteTimeSpan ? null : options.MoveHandoverThreshold;
        IReadOnlyList<LogicalCpu> slotCpus = handover is null ? slots : [.. slots, .. slots];
        _victims = IsPinned ? VictimOrder.ByTopology(slotCpus) : VictimOrder.Flat(slotCpus.Count);
        TimeProvider = options.TimeProvider ?? TimeProvider.System;
        _createdAt = TimeProvider.GetTimestamp();
        _logger = options.Logger;
        _raiseSkipped = options.RaiseSkippedDecisions;
        _metrics = Instrumentation.MetricsEnabled ? MultiprogramMetrics.For(options.MeterFactory) : null;
        Rebalanced += options.OnRebalanced;
        RebalanceInterval = options.RebalanceInterval;
        _historyCapacity = options.HistoryCapacity;
        _policy = new AllocationOverridePolicy(options.Policy ?? new LearnedScalabilityPolicy());
        _decider = new RebalanceDecider(_policy, Topology);
        _localSampleInterval = options.EstimatorSampleInterval;
        // The early decision is asked for at the estimator's samples, which are taken only between periodic decisions.
        _early = Rebalancer.SamplesBetween(RebalanceInterval, options.EstimatorSampleInterval) && _policy.Inner is LearnedScalabilityPolicy { DecidesEarly: true } ? new EarlyDecision() : null;
        _idle = new WorkQueueSet(new IdleTaskScheduler(), _ => false, _victims);
        _idle.Close();
        LendingPreference = options.LendingPreference;
        _director = new WorkerDirector(options.EnableLending, _idle, LendingPreference);
        int[] pins = _cpuOfWorker;
        _pool = new WorkerPool(
            slots.Count, _idle, IsPinned ? worker => ThreadAffinity.PinCurrentThread(pins[worker.Cpu.Index]) : null, _director, handover);
        _director.Attach(_pool);
        _rebalancer = new Rebalancer(Depart, OnInterval, RebalanceInterval, OnRebalancerFailure, OnSample, options.EstimatorSampleInterval)
        {
            OnRequest = OnDomainRequest,
        };

        IReadOnlyList<Exception> failures;
        try
        {
            failures = _pool.Start(DefaultShutdownTimeout);
        }
        catch (TimeoutException)
        {
            StopWorkers(TimeSpan.Zero);
            throw;
        }

        if (failures.Count > 0)
        {
            StopWorkers(DefaultShutdownTimeout);
            throw failures.Count == 1
                ? failures[0]
                : new AggregateException($"{failures.Count} workers failed to start.", failures);
        }

        JoinDomain(options);
        _rebalancer.Start();
        _metrics?.Add(this);
    }

    /// <summary>The number of workers (fixed).</summary>
    public int WorkerCount => _cpuOfWorker.Length;

    /// <summary>Whether each worker is pinned to its CPU.</summary>
    public bool IsPinned { get; }

    /// <summary>The CPUs (pinned) or slots (unpinned) programs are placed on, one per worker.</summary>
    public CpuTopology Topology { get; }

    /// <summary>The allocation policy (as given in the options).</summary>
    public IAllocationPolicy Policy => _policy.Inner;

    /// <summary>The interval of the periodic rebalance (zero or infinite: none).</summary>
    public TimeSpan RebalanceInterval { get; }

    /// <summary>Which program an idle worker lends itself to (as given in the options).</summary>
    public LendingPreference LendingPreference { get; }

    /// <summary>The clock of <see cref="RebalanceEvent.Timestamp"/> and <see cref="RebalanceEvent.Time"/>.</summary>
    public TimeProvider TimeProvider { get; }

    /// <summary>The registered programs that have not left yet, in registration order.</summary>
    public IReadOnlyList<ProgramTaskScheduler> Programs =>
        new ReadOnlyCollection<ProgramTaskScheduler>(Volatile.Read(ref _programs)); // Acquire: a fully built array.

    /// <summary>Whether <see cref="Dispose"/> (or <see cref="Shutdown"/>) was called.</summary>
    public bool IsDisposed => Volatile.Read(ref _disposeState) != 0; // Volatile: set by whichever thread disposes.

    /// <summary>After disposal: whether the workers did not all exit in time.</summary>
    public bool ShutdownTimedOut => IsDisposed && !Volatile.Read(ref _workersExited); // Volatile: set by the disposer.

    /// <summary>Registers a program whose whole-machine speedup is <paramref name="speedup"/> (1 = unknown: equal weight).</summary>
    /// <param name="name">A name for reports (need not be unique).</param>
    /// <param name="speedup">Speedup on the whole machine; positive and finite.</param>
    /// <returns>The program's task scheduler; dispose it when the program is done.</returns>
    /// <exception cref="ArgumentException"><paramref name="name"/> is empty.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="speedup"/> is not positive and finite.</exception>
    /// <exception cref="ObjectDisposedException">The scheduler was disposed.</exception>
    public ProgramTaskScheduler Register(string name, double speedup = 1.0)
    {
        if (!double.IsFinite(speedup) || speedup <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(speedup), speedup, "Speedup must be a positive finite number.");
        }

        return RegisterCore(name, speedup, null);
    }

    /// <summary>Registers a program with a measured speedup table (policies that search core counts use it).</summary>
    /// <param name="name">A name for reports.</param>
    /// <param name="scalability">Speedup by core count; the whole-machine speedup is read at <see cref="WorkerCount"/>.</param>
    /// <returns>The program's task scheduler.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="scalability"/> is null.</exception>
    /// <exception cref="ObjectDisposedException">The scheduler was disposed.</exception>
    public ProgramTaskScheduler Register(string name, ScalabilityTable scalability)
    {
        ArgumentNullException.ThrowIfNull(scalability);
        double speedup = scalability.SpeedupAt(WorkerCount);
        return RegisterCore(name, double.IsFinite(speedup) && speedup > 0 ? speedup : 1.0, scalability);
    }

    /// <summary>Registers a program with a stored scalability profile.</summary>
    /// <param name="name">A name for reports.</param>
    /// <param name="profile">The profile; its speedup table is used.</param>
    /// <returns>The program's task scheduler.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="profile"/> is null.</exception>
    /// <exception cref="ObjectDisposedException">The scheduler was disposed.</exception>
    public ProgramTaskScheduler Register(string name, ScalabilityProfile profile)
    {
        ArgumentNullException.ThrowIfNull(profile);
        return Register(name, profile.Speedups);
    }

    /// <summary>
    /// A program leaves: the same as <see cref="ProgramTaskScheduler.Shutdown"/> (it stops accepting tasks from
    /// outside, its accepted tasks finish, then a <see cref="RebalanceReason.Departure"/> decision redistributes its
    /// workers).
    /// </summary>
    /// <param name="program">A program registered here.</param>
    /// <param name="timeout">How long to wait for it to leave; null = <see cref="DefaultShutdownTimeout"/>.</param>
    /// <returns>Whether it has left within the timeout (called from a worker, it does not wait: whether it has left already).</returns>
    /// <exception cref="ArgumentNullException"><paramref name="program"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="program"/> belongs to another scheduler.</exception>
    public bool Unregister(ProgramTaskScheduler program, TimeSpan? timeout = null)
    {
        ArgumentNullException.ThrowIfNull(program);
        if (!ReferenceEquals(program.Scheduler, this))
        {
            throw new ArgumentException($"Program {program} belongs to another multiprogram scheduler.", nameof(program));
        }

        return program.Shutdown(timeout ?? DefaultShutdownTimeout);
    }

    /// <summary>Where every worker stands, taken under the decision lock (owners match the allocations).</summary>
    /// <returns>One entry per worker, by index.</returns>
    public IReadOnlyList<WorkerAssignment> GetWorkerAssignments()
    {
        lock (_gate)
        {
            var result = new WorkerAssignment[WorkerCount];
            for (int i = 0; i < result.Length; i++)
            {
                CpuSlot cpu = _pool.Cpus[i];
                result[i] = new WorkerAssignment(i, _cpuOfWorker[i], ProgramOf(cpu.Home), ProgramOf(cpu.Queues));
            }

            return new ReadOnlyCollection<WorkerAssignment>(result);
        }
    }

    /// <inheritdoc />
    public override string ToString() =>
        $"{WorkerCount} workers ({(IsPinned ? "pinned" : "unpinned")}), {Volatile.Read(ref _programs).Length} programs, policy {Policy.Name}";

    /// <summary>The CPU (or slot) of a worker.</summary>
    /// <param name="workerIndex">The worker.</param>
    /// <returns>Its CPU id.</returns>
    internal int CpuOfWorker(int workerIndex) => _cpuOfWorker[workerIndex];

    /// <summary>Whether <paramref name="pool"/> is this scheduler's pool.</summary>
    /// <param name="pool">A pool.</param>
    /// <returns><see langword="true"/> when it is.</returns>
    internal bool OwnsPool(WorkerPool pool) => ReferenceEquals(pool, _pool);

    /// <summary>The pool (tests).</summary>
    internal WorkerPool Pool => _pool;

    /// <summary>
    /// CPUs whose serving worker serves <paramref name="queues"/> now (racy). An old server still finishing a task
    /// after a standby handover is not counted: each CPU counts once, for the program its server takes tasks from.
    /// </summary>
    /// <param name="queues">A program's queues.</param>
    /// <returns>The count.</returns>
    internal int CountServing(WorkQueueSet queues)
    {
        int count = 0;
        foreach (CpuSlot cpu in _pool.Cpus)
        {
            count += ReferenceEquals(cpu.Queues, queues) ? 1 : 0;
        }

        return count;
    }

    /// <summary>Handovers to a standby worker so far, over all CPUs (tests and diagnostics).</summary>
    internal long Handovers => _pool.Handovers;

    private static IReadOnlyList<LogicalCpu> ResolveSlots(MultiprogramSchedulerOptions options) =>
        ResolveSlots(options, ThreadAffinity.GetProcessAllowedCpus);

    /// <summary>The CPUs (pinned) or slots (unpinned) of the workers, checked against the options and the allowed CPUs.</summary>
    /// <param name="options">The options.</param>
    /// <param name="allowedCpus">The CPUs the process may use (read only when pinning).</param>
    /// <returns>One CPU per worker.</returns>
    internal static IReadOnlyList<LogicalCpu> ResolveSlots(MultiprogramSchedulerOptions options, Func<IReadOnlyList<int>> allowedCpus)
    {
        if (options.WorkerCount is { } requested)
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(requested, 1, nameof(options));
        }

        if (!options.Pin)
        {
            if (options.CpuIds is not null)
            {
                throw new ArgumentException("CpuIds applies only to pinned workers (Pin = true).", nameof(options));
            }

            int count = options.WorkerCount ?? options.Topology?.Count ?? Environment.ProcessorCount;
            CpuTopology layout = options.Topology ?? CpuTopology.Uniform(1, count);
            if (layout.Count != count)
            {
                throw new ArgumentException(
                    $"WorkerCount {count} differs from the topology's {layout.Count} CPUs.", nameof(options));
            }

            return layout.Cpus;
        }

        if (!ThreadAffinity.IsSupported)
        {
            throw new PlatformNotSupportedException("Pinning threads is not supported on this operating system; use Pin = false.");
        }

        CpuTopology topology = options.Topology ?? CpuTopologyDetector.Detect();
        IReadOnlyList<int> ids = options.CpuIds is { } given
            ? CpuAllocation.Validate(topology, given)
            : CpuAllocation.Contiguous(topology, options.WorkerCount ?? topology.Count);
        if (options.WorkerCount is { } workers && workers != ids.Count)
        {
            throw new ArgumentException($"WorkerCount {workers} differs from the {ids.Count} CPU ids given.", nameof(options));
        }

        // A topology given in the options may name CPUs outside the process's affinity mask: refuse before pinning.
        CpuAllocation.RequireAllowed(ids, allowedCpus(), nameof(options));

        return [.. ids.Select(id => topology[id])];
    }

    private ProgramTaskScheduler RegisterCore(string name, double speedup, ScalabilityTable? table)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        ProgramTaskScheduler program;
        try
        {
            lock (_gate)
            {
                ObjectDisposedException.ThrowIf(IsDisposed, this);
                program = new ProgramTaskScheduler(
                    this, new ProgramId(_nextProgramId++, name), name, speedup, table, _victims, _pool, _rebalancer.RequestDeparture);
                ProgramTaskScheduler[] programs = [.. _programs, program];
                Volatile.Write(ref _programs, programs); // Release: a fully built array for lock-free readers.
                _director.Sets = [.. programs.Select(p => p.Queues)];
                _policy.Set(null); // An explicit allocation does not name the newcomer: the policy decides again.
                if (Instrumentation.EventsEnabled && MultiprogramEventSource.Log.IsEnabled())
                {
                    MultiprogramEventSource.Log.ProgramRegistered(program.ProgramId.Value, name);
                }

                _early?.Arrived(program.ProgramId, TimeProvider.GetElapsedTime(_createdAt));
                DecideAndApply(RebalanceReason.Arrival);
            }
        }
        finally
        {
            DispatchEvents();
        }

        return program;
    }

    private static ProgramId? ProgramOf(WorkQueueSet set) =>
        set.Owner is ProgramTaskScheduler program ? program.ProgramId : null;
}
