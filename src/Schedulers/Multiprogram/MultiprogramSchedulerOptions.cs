using System.Diagnostics.Metrics;
using DivCon.Schedulers.Multiprogram.Domain;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using Microsoft.Extensions.Logging;
using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>How a <see cref="MultiprogramScheduler"/> is built: which CPUs, pinning, policy and rebalancing.</summary>
/// <remarks>
/// <para>
/// <b>Pinned</b> (<see cref="Pin"/> = <see langword="true"/>, the default): one worker pinned to each CPU of
/// <see cref="CpuIds"/>; without ids, the first <see cref="WorkerCount"/> CPUs of <see cref="Topology"/> in contiguous
/// order, or all of them. The topology defaults to the detected one (the process's allowed CPUs); a topology given
/// here may describe more CPUs, but every CPU a worker is pinned to must be one the process may use (its affinity
/// mask, as <c>taskset</c> or a cpuset sets it), or the constructor throws naming the others.
/// </para>
/// <para>
/// <b>Unpinned</b> (<see cref="Pin"/> = <see langword="false"/>): <see cref="WorkerCount"/> workers (default: the
/// topology's CPU count, or <see cref="Environment.ProcessorCount"/>) left to the operating system. The rebalancer
/// still places programs on a topology: <see cref="Topology"/> when given (its CPU count must equal the worker
/// count), else a flat one with slot ids 0 to n - 1. This is how tests run more workers than the box has cores.
/// </para>
/// </remarks>
public sealed record MultiprogramSchedulerOptions
{
    /// <summary>The default interval of the periodic rebalance (the thesis's 100 ms).</summary>
    public static readonly TimeSpan DefaultRebalanceInterval = TimeSpan.FromMilliseconds(100);

    /// <summary>The machine (pinned) or the layout to place programs on (unpinned); null = detect / flat.</summary>
    public CpuTopology? Topology { get; init; }

    /// <summary>The CPUs to pin one worker each to, in worker order (pinned only); null = see remarks.</summary>
    public IReadOnlyList<int>? CpuIds { get; init; }

    /// <summary>How many workers; null = one per CPU of the topology (or of <see cref="CpuIds"/>).</summary>
    public int? WorkerCount { get; init; }

    /// <summary>Whether each worker is pinned to its CPU (default <see langword="true"/>).</summary>
    public bool Pin { get; init; } = true;

    /// <summary>The allocation policy; null = <see cref="LearnedScalabilityPolicy"/> (scalability learned while running).</summary>
    public IAllocationPolicy? Policy { get; init; }

    /// <summary>
    /// The period of the interval rebalance (default 100 ms). <see cref="Timeout.InfiniteTimeSpan"/> or
    /// <see cref="TimeSpan.Zero"/>: only on arrival, departure and explicit requests.
    /// </summary>
    public TimeSpan RebalanceInterval { get; init; } = DefaultRebalanceInterval;

    /// <summary>
    /// How often, between decisions, the rebalancer thread samples each program's running and queued tasks for its
    /// online scalability estimate (<see cref="ProgramTaskScheduler.Estimate"/>; default 10 ms: a pass over the
    /// workers under the decision lock, microseconds). <see cref="Timeout.InfiniteTimeSpan"/> or
    /// <see cref="TimeSpan.Zero"/>: only at decisions. Sampling at decisions alone aliases with programs whose runs
    /// last a multiple of the interval. In a process joined to a machine domain the domain's longer interval applies
    /// (<see cref="MachineDomainOptions.EstimatorSampleInterval"/>, 25 ms).
    /// </summary>
    public TimeSpan EstimatorSampleInterval { get; init; } = DefaultEstimatorSampleInterval;

    /// <summary>The default <see cref="EstimatorSampleInterval"/>: 10 ms.</summary>
    public static readonly TimeSpan DefaultEstimatorSampleInterval = TimeSpan.FromMilliseconds(10);

    /// <summary>
    /// Whether an idle worker (its owner has no task anywhere, after spinning) serves another program with queued
    /// tasks until its owner has work again (default <see langword="true"/>): work conservation.
    /// </summary>
    public bool EnableLending { get; init; } = true;

    /// <summary>
    /// Which program an idle worker lends itself to when several have queued tasks (with <see cref="EnableLending"/>).
    /// Default <see cref="LendingPreference.RoundRobin"/>: round-robin, or the last decision's lending order when the
    /// policy gives one. <see cref="LendingPreference.RunsInProgress"/> serves programs whose queued work belongs to a
    /// run under way before a program whose only queued task is a new start; <see cref="LendingPreference.OldestRun"/>
    /// also serves, among those, the program busy longest first. The scheduler sees tasks, not runs: a run is
    /// approximated by the program's busy period (since a task arrived while it had nothing queued or running) and a
    /// new start by one task queued and none running (the multiprogram README, "Lending"). The simulator runs the same
    /// rule (<c>SimulationOptions.LendingPreference</c>).
    /// </summary>
    public LendingPreference LendingPreference { get; init; } = LendingPreference.RoundRobin;

    /// <summary>The default <see cref="MoveHandoverThreshold"/>: 1 ms.</summary>
    public static readonly TimeSpan DefaultMoveHandoverThreshold = TimeSpan.FromMilliseconds(1);

    /// <summary>
    /// How long the task a CPU's worker is running must have run before a move of that CPU is handed to the CPU's
    /// standby worker (default 1 ms): the standby serves the new owner at once while the operating system
    /// time-slices it with the old worker until that task ends. <see cref="TimeSpan.Zero"/>: hand over whenever the
    /// worker is inside a task. <see cref="Timeout.InfiniteTimeSpan"/>: no standby threads; a move waits for the
    /// worker's next task boundary.
    /// </summary>
    public TimeSpan MoveHandoverThreshold { get; init; } = DefaultMoveHandoverThreshold;

    /// <summary>How many non-skipped decisions <see cref="MultiprogramScheduler.History"/> keeps (default 10,000).</summary>
    public int HistoryCapacity { get; init; } = 10_000;

    /// <summary>The clock for event timestamps (default <see cref="TimeProvider.System"/>).</summary>
    public TimeProvider? TimeProvider { get; init; }

    /// <summary>
    /// Subscribed to <see cref="MultiprogramScheduler.Rebalanced"/> before anything else happens, so it sees every
    /// decision from the first arrival on (the same as subscribing right after construction, before the first
    /// <c>Register</c>; useful where a host builds the scheduler from options). Null: none.
    /// </summary>
    public EventHandler<RebalanceEvent>? OnRebalanced { get; init; }

    /// <summary>
    /// Whether interval checks that the policy skipped (its previous decision stands) are raised too (default
    /// <see langword="false"/>: they are only counted, in <see cref="MultiprogramScheduler.SkippedDecisions"/> and the
    /// <c>divcon.multiprogram.decisions</c> counter, since one comes every interval).
    /// </summary>
    public bool RaiseSkippedDecisions { get; init; }

    /// <summary>
    /// Where the scheduler reports what it cannot throw to a caller: a <see cref="MultiprogramScheduler.Rebalanced"/>
    /// handler that threw, a failure on the rebalancer thread, a shutdown that timed out, an await resumed after its
    /// program closed; decisions at <see cref="LogLevel.Debug"/>. Null: trace warnings only, as before.
    /// </summary>
    public ILogger? Logger { get; init; }

    /// <summary>
    /// Creates the scheduler's <see cref="Meter"/> (named <c>DivCon.Schedulers</c>) when a host provides one (for
    /// example through dependency injection); null: the library's shared static meter of the same name.
    /// </summary>
    public IMeterFactory? MeterFactory { get; init; }

    /// <summary>
    /// The machine-wide arbitration domain to join (null, the default: the one named by the <c>DIVCON_DOMAIN</c>
    /// environment variable, <see cref="MachineDomainOptions.FromEnvironment()"/>, and none when it is unset: today's
    /// behaviour). Joined, the domain decides which of this process's CPUs each of its programs holds, across every
    /// joined process of the machine; CPUs it gives to no program here are withheld (their workers sleep). When the
    /// domain cannot be reached, or drops this process, the scheduler decides locally on all its CPUs, as without
    /// a domain (a trace line says why). See the multiprogram README, "Machine domain".
    /// </summary>
    public MachineDomainOptions? MachineDomain { get; init; }

    /// <summary>
    /// Creates the link to the domain (tests; null: the library's client, <see cref="CpuArbiterFactory.Create"/>).
    /// An exception it throws makes the scheduler run without a domain (a trace line), never fails construction.
    /// </summary>
    internal Func<MachineDomainOptions, ICpuArbiter>? ArbiterFactory { get; init; }

    /// <summary>
    /// Opens the guest board when <see cref="MachineDomainOptions.Guests"/> is on (tests; null: the domain directory's
    /// file, <see cref="CpuArbiterFactory.OpenGuestBoard"/>). May throw or return null: the scheduler tries again later.
    /// </summary>
    internal Func<MachineDomainOptions, IGuestBoard?>? GuestBoardFactory { get; init; }
}
