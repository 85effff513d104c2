namespace DivCon.Simulator;

/// <summary>One finished run of one program in a simulated cyclic test (same meaning as the harness's run record).</summary>
/// <param name="Program">Program name.</param>
/// <param name="RunIndex">0-based index of the run among the program's runs.</param>
/// <param name="Start">Simulated time the run started.</param>
/// <param name="End">Simulated time the run finished.</param>
/// <param name="Counted">False when the run ended after the time limit.</param>
public sealed record SimulatedRun(string Program, int RunIndex, TimeSpan Start, TimeSpan End, bool Counted);

/// <summary>The allocation a partitioning scheme applied at a simulated time.</summary>
/// <param name="Time">When.</param>
/// <param name="Cores">Cores owned per program, in workload order.</param>
public sealed record SimulatedAllocation(TimeSpan Time, IReadOnlyList<int> Cores);

/// <summary>Counters of one simulation, for reports and for checking the simulator's own speed.</summary>
/// <param name="Events">Events processed.</param>
/// <param name="Tasks">Tasks executed.</param>
/// <param name="Steals">Tasks taken from another worker's deque.</param>
/// <param name="Moves">Worker moves between programs (partitioning schemes).</param>
/// <param name="Decisions">Rebalance decisions asked for (skipped ones included).</param>
/// <param name="Lends">Times an idle worker served another program (partitioning schemes with lending).</param>
public sealed record SimulationCounters(long Events, long Tasks, long Steals, long Moves, long Decisions, long Lends)
{
    /// <summary>Moves carried out by a standby taking over its core (a subset of <see cref="Moves"/>).</summary>
    public long Handovers { get; init; }

    /// <summary>
    /// The .NET pool model (<c>default</c>): threads the pool created (its minimum plus those its goal needed later;
    /// the model's idle threads never time out), 0 under the other schemes.
    /// </summary>
    public int PoolThreads { get; init; }

    /// <summary>The .NET pool model: threads its gate added by starvation injection.</summary>
    public long PoolInjections { get; init; }
}

/// <summary>
/// One core that a partitioning decision moved from one program to another, and its practical latency: from the
/// decision to the first moment a thread of that core served the new owner (the mechanism's <c>MoveArrivals</c>).
/// </summary>
/// <param name="DecidedAt">Simulated time of the decision.</param>
/// <param name="Cpu">The core.</param>
/// <param name="From">Index of the program that owned the core (workload order).</param>
/// <param name="To">Index of the program that owns it now.</param>
/// <param name="Latency">
/// Decision to arrival, the wake and move costs paid before the new owner's first task included: an idle worker
/// moves at once (a wake), a busy one at its task boundary (the move cost) or by a standby handover (a wake, at the
/// earliest when the old task has run <see cref="SimulationOptions.HandoverThreshold"/>). Null when a later decision
/// superseded the move before it arrived, or the test ended first.
/// </param>
public sealed record SimulatedMove(TimeSpan DecidedAt, int Cpu, int From, int To, TimeSpan? Latency);

/// <summary>What a simulated cyclic test produced.</summary>
/// <param name="Scheme">The scheme.</param>
/// <param name="Programs">Program names in workload order.</param>
/// <param name="Runs">Every finished run in completion order.</param>
/// <param name="Allocations">Applied allocations (partitioning schemes; empty otherwise).</param>
/// <param name="TimeLimit">The time limit.</param>
/// <param name="Elapsed">Simulated time until the last in-flight run finished.</param>
/// <param name="Counters">Counters.</param>
public sealed record SimulatedCyclicTest(
    SimulatedScheme Scheme,
    IReadOnlyList<string> Programs,
    IReadOnlyList<SimulatedRun> Runs,
    IReadOnlyList<SimulatedAllocation> Allocations,
    TimeSpan TimeLimit,
    TimeSpan Elapsed,
    SimulationCounters Counters)
{
    /// <summary>Every core moved between programs by a decision (partitioning schemes), in decision order.</summary>
    public IReadOnlyList<SimulatedMove> Moves { get; init; } = [];

    /// <summary>
    /// What the online estimator believed of each program at each decision (<see cref="SimulatedScheme.Dynamic"/>
    /// only; empty otherwise), in decision order.
    /// </summary>
    public IReadOnlyList<SimulatedEstimate> Estimates { get; init; } = [];

    /// <summary>
    /// The lifetime each program stated to the dynamic scheme (<see cref="SimulationOptions.LifetimeHints"/>), in workload
    /// order; empty when none stated one.
    /// </summary>
    public IReadOnlyList<TimeSpan> StatedLifetimes { get; init; } = [];
}

/// <summary>One program's online scalability estimate at one decision (the default policy's input).</summary>
/// <param name="Time">Simulated time of the decision.</param>
/// <param name="Program">Index of the program (workload order).</param>
/// <param name="HeldCores">Cores the program held before the decision.</param>
/// <param name="SpeedupAtHeld">Estimated speedup alone on <paramref name="HeldCores"/> cores (0 when it held none).</param>
/// <param name="SpeedupAtAll">Estimated speedup alone on every core.</param>
/// <param name="ObservedCoreSeconds">Work observed so far, core-seconds.</param>
public sealed record SimulatedEstimate(TimeSpan Time, int Program, int HeldCores, double SpeedupAtHeld, double SpeedupAtAll, double ObservedCoreSeconds);
