using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Simulator.Machine;

namespace DivCon.Simulator;

/// <summary>
/// The simulated machine and the costs the recorded task trees do not contain. Immutable; derive variants with
/// <c>with</c>. <see cref="Validate"/> checks every value (the simulator calls it).
/// </summary>
/// <remarks>
/// The default overheads come from this repository's BenchmarkDotNet suites on the 2-CPU development machine
/// (see README.md beside this file): a task costs about 125 ns of machinery (the skeleton benchmark's continuation
/// engine, 2^17 nodes); moving a busy multiprogram worker about 5 us (<c>MultiprogramBenchmarks.MoveOneWorker</c>).
/// The steal, wake and context-switch costs are not measured here and are stated assumptions.
/// </remarks>
public sealed record SimulationOptions
{
    /// <summary>Simulated cores (at least 1).</summary>
    public int Cores { get; init; } = 64;

    /// <summary>Seed of every random choice (victims, idle workers); the same seed gives the same result.</summary>
    public int Seed { get; init; } = 1;

    /// <summary>Machinery per task (creation, queueing, dispatch), added to every task's duration, ns (default 125).</summary>
    public long TaskOverheadNs { get; init; } = 125;

    /// <summary>Extra cost of a task taken from another worker's deque in ns (assumption: 1 us).</summary>
    public long StealOverheadNs { get; init; } = 1_000;

    /// <summary>Extra cost for an idle (parked) worker to start a task in ns (assumption: 5 us; 14-55 us measured for a futex wake on a loaded VM).</summary>
    public long WakeOverheadNs { get; init; } = 5_000;

    /// <summary>Extra cost of a worker moving to another program at a task boundary, ns (measured: about 5 us).</summary>
    public long MoveOverheadNs { get; init; } = 5_000;

    /// <summary>
    /// A fixed delay from every run's end to its next root being queued, when the next run is started from outside the
    /// scheduler (every scheme but the pool model: the harness's runner resumes on a .NET pool thread and queues the
    /// next root), ns; meanwhile the worker that ran the last task looks for other work. 0 (the default): no fixed
    /// delay; the restart then follows <see cref="RestartRace"/>. A what-if: the mechanism's delay depends on where the
    /// pool thread runs, which <see cref="RestartRace"/> models.
    /// </summary>
    public long RestartDelayNs { get; init; }

    /// <summary>
    /// Whether a restart in a queue set shared by several programs (<c>shared</c>) is a race between the finishing
    /// worker and the .NET pool thread that queues the next root (on by default; without <see cref="RestartDelayNs"/>).
    /// The finishing worker wakes that pool thread as the run completes; with every other core busy the thread takes
    /// one of the machine's cores, each with the same chance. On the finishing worker's own core the root is queued
    /// before the worker looks for work (it then pays <see cref="RestartGapNs"/> before its next task); on any other
    /// core, or an idle one, the worker looks first (and steals into another program's tree if it can) and the root
    /// follows <see cref="RestartGapNs"/> later. Off: the root is queued at once, before the worker looks.
    /// </summary>
    public bool RestartRace { get; init; } = true;

    /// <summary>
    /// The pool thread's part of a restart under <see cref="RestartRace"/>: from the run's end to the next root being
    /// queued, ns (default 20 us: the harness's measured gap from a run's end to the next run's start, 15-20 us at
    /// the median on the 2-CPU development VM).
    /// </summary>
    public long RestartGapNs { get; init; } = 20_000;

    /// <summary>
    /// Under <see cref="RestartRace"/>: the chance that the pool thread queueing the next root runs on the finishing
    /// worker's own core (which it then holds for <see cref="RestartGapNs"/>, so that the root is queued before that
    /// worker looks for work). Null (the default): 1 / <see cref="Cores"/>, every core alike (the model does not follow
    /// the operating system's placement). A what-if, and for tests: 0 or 1 make the race deterministic.
    /// </summary>
    public double? RestartOnFinisherCoreChance { get; init; }

    /// <summary>Interval of the partitioning schemes' decisions (the mechanism's default, 100 ms).</summary>
    public TimeSpan RebalanceInterval { get; init; } = TimeSpan.FromMilliseconds(100);

    /// <summary>What the dynamic scheme's policy reads as each program's available tasks (default: queued tasks, as the mechanism does).</summary>
    public AvailabilitySignal Availability { get; init; } = AvailabilitySignal.Queued;

    /// <summary>
    /// The dynamic scheme's policy (pure, so one instance serves every simulation); null: the default
    /// <see cref="DivCon.Schedulers.Multiprogram.Policies.LearnedScalabilityPolicy"/>.
    /// </summary>
    public DivCon.Schedulers.Multiprogram.Policies.LearnedScalabilityPolicy? DynamicPolicy { get; init; }

    /// <summary>
    /// Whether the dynamic scheme's estimators start from the same offline speedup tables the other partitioning schemes
    /// decide by, as priors (the mechanism's estimator does so with a registered profile). Off by default: the dynamic
    /// scheme learns every program while it runs, as with no profile file present.
    /// </summary>
    public bool DynamicPriors { get; init; }

    /// <summary>
    /// Whether every program states its expected lifetime to the dynamic scheme
    /// (<see cref="DivCon.Schedulers.Multiprogram.Model.ProgramState.ExpectedLifetime"/>), as a program that knows how
    /// long it will stay would (<see cref="DivCon.Schedulers.Multiprogram.ProgramTaskScheduler.ExpectedLifetime"/>): its
    /// time from arrival to departure (or to the test's time limit), or, for a program that makes a fixed number of
    /// runs, that number times twice its run's time alone on the machine (what its user knows: how long a run takes),
    /// if shorter. Off by default: no program states one, and the default policy weighs youth by observed age.
    /// </summary>
    public bool LifetimeHints { get; init; }

    /// <summary>
    /// How far off the stated lifetimes of <see cref="LifetimeHints"/> are: each program's is multiplied by a factor
    /// drawn log-uniformly from [1 / e, e] for this value e (fixed per program name and <see cref="Seed"/>, not drawn
    /// from the simulation's random stream); 1 (the default): exact. At least 1.
    /// </summary>
    public double LifetimeHintError { get; init; } = 1;

    /// <summary>Whether idle partitioning workers lend themselves to programs with queued tasks (the mechanism's default).</summary>
    public bool Lending { get; init; } = true;

    /// <summary>
    /// With <see cref="Lending"/>: which program with queued tasks an idle worker is lent to (default
    /// <see cref="LendingPreference.RoundRobin"/>, the mechanism's rule).
    /// </summary>
    public LendingPreference LendingPreference { get; init; } = LendingPreference.RoundRobin;

    /// <summary>
    /// Standby handover for partitioning schemes (on by default, as in the mechanism): each core has a second thread
    /// slot; when a decision moves a core whose serving thread is inside a task that has run for
    /// <see cref="HandoverThreshold"/>, the standby takes over and serves the new owner at once (after a wake), the
    /// two threads time-sharing the core (processor sharing) until the old task ends and its thread parks. A core
    /// whose two threads are both inside tasks takes a further move only when one of them ends. Off: a busy worker
    /// moves at its next task boundary (the mechanism with <c>--no-standby</c>).
    /// </summary>
    public bool StandbyHandover { get; init; } = true;

    /// <summary>
    /// How long the serving thread must have been inside its task before the standby takes over (the mechanism's
    /// <c>MultiprogramSchedulerOptions.MoveHandoverThreshold</c>, 1 ms); zero hands over at once.
    /// </summary>
    public TimeSpan HandoverThreshold { get; init; } = DivCon.Schedulers.Multiprogram.MultiprogramSchedulerOptions.DefaultMoveHandoverThreshold;

    /// <summary>The OS time slice for oversubscribed threads (default 4 ms).</summary>
    public TimeSpan Quantum { get; init; } = TimeSpan.FromMilliseconds(4);

    /// <summary>Cost of one context switch between time-shared threads, ns (assumption: 5 us, cache refill included).</summary>
    public long ContextSwitchNs { get; init; } = 5_000;

    /// <summary>
    /// Threads the .NET pool model (<c>default</c>) adds to its minimum of one per core (the runtime's minimum worker
    /// threads is the processor count; this is as if the program raised it with <c>ThreadPool.SetMinThreads</c>);
    /// default 0. Above the minimum, hill climbing's wave (<see cref="ThreadPoolWaveMagnitude"/>) and starvation
    /// injection (<see cref="ThreadPoolStarvationInjection"/>) add threads.
    /// </summary>
    public int ThreadPoolExtraThreads { get; init; }

    /// <summary>
    /// The .NET pool model's starvation injection (on by default, as in the runtime): every
    /// <see cref="ThreadPoolGateInterval"/> the pool's gate thread adds a thread when work is queued and no worker has
    /// entered the pool's dispatch loop (woken from idle, or started) for longer than the thread-count goal times
    /// <see cref="ThreadPoolStarvationDelayPerThread"/> (the gate interval itself while the CPUs are less than 80% busy).
    /// Off: no injection; the goal is the minimum plus hill climbing's wave (<see cref="ThreadPoolWaveMagnitude"/>).
    /// </summary>
    public bool ThreadPoolStarvationInjection { get; init; } = true;

    /// <summary>Period of the .NET pool's gate thread, which checks for starvation (the runtime's 500 ms).</summary>
    public TimeSpan ThreadPoolGateInterval { get; init; } = TimeSpan.FromMilliseconds(500);

    /// <summary>
    /// Per thread of the pool, how long no worker may have entered the dispatch loop before the gate injects a thread
    /// while the CPUs are busy (the runtime's 1 s, twice its gate period).
    /// </summary>
    public TimeSpan ThreadPoolStarvationDelayPerThread { get; init; } = TimeSpan.FromSeconds(1);

    /// <summary>Most threads the .NET pool model runs (the runtime's default maximum on 64-bit, 32,767).</summary>
    public int ThreadPoolMaxThreads { get; init; } = short.MaxValue;

    /// <summary>
    /// The .NET pool model's hill-climbing wave: every other pair of samples the pool's thread-count goal is this
    /// many threads above its control setting (0: no wave). The runtime's magnitude follows its throughput noise,
    /// at least 1 and at most 20; the default is the value measured for the cyclic workloads here (see README.md).
    /// </summary>
    public int ThreadPoolWaveMagnitude { get; init; } = 1;

    /// <summary>Shortest hill-climbing sample of the .NET pool model (the runtime's 10 ms); whole milliseconds.</summary>
    public TimeSpan ThreadPoolSampleIntervalLow { get; init; } = TimeSpan.FromMilliseconds(10);

    /// <summary>Longest hill-climbing sample of the .NET pool model (the runtime's 200 ms); whole milliseconds.</summary>
    public TimeSpan ThreadPoolSampleIntervalHigh { get; init; } = TimeSpan.FromMilliseconds(200);

    /// <summary>Packages of the simulated machine's topology (cores split evenly), used by the placement step.</summary>
    public int Packages { get; init; } = 1;

    /// <summary>The memory-bandwidth / work-inflation knob (off by default; see <see cref="WorkInflation"/>).</summary>
    public WorkInflation Inflation { get; init; } = WorkInflation.None;

    /// <summary>
    /// The machine and the costs the traces lack (memory bandwidth per die and package, oversubscription and handover,
    /// modules sharing an FPU and L2), at one calibration and placement; null (the default): none of them, and the
    /// context switch is <see cref="ContextSwitchNs"/>. With a machine, its context switch replaces that option. See
    /// <see cref="MachineModel"/> and machines/README.md.
    /// </summary>
    public MachineModel? Machine { get; init; }

    /// <summary>
    /// Coarsening for speed: subtrees whose total work is at most this much are simulated as one leaf of that
    /// duration (zero: off). Changes results only for subtrees finer than the threshold. Applied by callers that
    /// build graphs from trees (<see cref="TaskGraph.FromTree"/>), as the harness does.
    /// </summary>
    public TimeSpan CoarsenBelow { get; init; } = TimeSpan.Zero;

    /// <summary>
    /// Flattening for speed: internal nodes whose split plus merge take at most this many ns are dissolved into their
    /// parent (see <see cref="TaskGraph.FromTree"/>); 0: off. Applied by callers that build graphs from trees.
    /// </summary>
    public long FlattenBelowNs { get; init; }

    /// <summary>
    /// Outlier clamping when building graphs from trees (see <see cref="TaskGraph.FromTree"/>): 0 off, else the factor
    /// above the median of the same phase and depth beyond which a duration is replaced by that median.
    /// </summary>
    public double ClampOutliers { get; init; }

    /// <summary>Alone runs per program for C_SP (each with its own random stream).</summary>
    public int IsolatedRuns { get; init; } = 3;

    /// <summary>Checks every value.</summary>
    /// <exception cref="ArgumentOutOfRangeException">A value is out of range; the message names it and its value.</exception>
    public void Validate()
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(Cores, 1, nameof(Cores));
        ArgumentOutOfRangeException.ThrowIfGreaterThan(Cores, 4096, nameof(Cores));
        ArgumentOutOfRangeException.ThrowIfNegative(TaskOverheadNs, nameof(TaskOverheadNs));
        ArgumentOutOfRangeException.ThrowIfNegative(StealOverheadNs, nameof(StealOverheadNs));
        ArgumentOutOfRangeException.ThrowIfNegative(WakeOverheadNs, nameof(WakeOverheadNs));
        ArgumentOutOfRangeException.ThrowIfNegative(MoveOverheadNs, nameof(MoveOverheadNs));
        ArgumentOutOfRangeException.ThrowIfNegative(RestartDelayNs, nameof(RestartDelayNs));
        ArgumentOutOfRangeException.ThrowIfNegative(RestartGapNs, nameof(RestartGapNs));
        if (RestartOnFinisherCoreChance is double chance && !(chance >= 0 && chance <= 1))
        {
            throw new ArgumentOutOfRangeException(nameof(RestartOnFinisherCoreChance), chance, "RestartOnFinisherCoreChance must lie in [0, 1].");
        }

        ArgumentOutOfRangeException.ThrowIfNegative(ContextSwitchNs, nameof(ContextSwitchNs));
        NotNegative(CoarsenBelow, nameof(CoarsenBelow));
        NotNegative(HandoverThreshold, nameof(HandoverThreshold));
        ArgumentOutOfRangeException.ThrowIfNegative(FlattenBelowNs, nameof(FlattenBelowNs));
        if (!(LifetimeHintError >= 1) || !double.IsFinite(LifetimeHintError))
        {
            throw new ArgumentOutOfRangeException(nameof(LifetimeHintError), LifetimeHintError, "LifetimeHintError must be a finite factor of at least 1.");
        }

        if (!double.IsFinite(ClampOutliers) || (ClampOutliers != 0 && ClampOutliers <= 1))
        {
            throw new ArgumentOutOfRangeException(nameof(ClampOutliers), ClampOutliers, "ClampOutliers must be 0 (off) or a finite factor above 1.");
        }

        if (!Enum.IsDefined(Availability))
        {
            throw new ArgumentOutOfRangeException(nameof(Availability), Availability, "Not a defined AvailabilitySignal.");
        }

        if (!Enum.IsDefined(LendingPreference))
        {
            throw new ArgumentOutOfRangeException(nameof(LendingPreference), LendingPreference, "Not a defined LendingPreference.");
        }

        if (RebalanceInterval <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(RebalanceInterval), RebalanceInterval, "The rebalance interval must be positive.");
        }

        if (Quantum <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(Quantum), Quantum, "The quantum must be positive.");
        }

        ArgumentOutOfRangeException.ThrowIfNegative(ThreadPoolExtraThreads, nameof(ThreadPoolExtraThreads));
        if (ThreadPoolGateInterval <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(ThreadPoolGateInterval), ThreadPoolGateInterval, "The thread pool's gate interval must be positive.");
        }

        NotNegative(ThreadPoolStarvationDelayPerThread, nameof(ThreadPoolStarvationDelayPerThread));
        ArgumentOutOfRangeException.ThrowIfNegative(ThreadPoolWaveMagnitude, nameof(ThreadPoolWaveMagnitude));
        ArgumentOutOfRangeException.ThrowIfGreaterThan(ThreadPoolWaveMagnitude, 20, nameof(ThreadPoolWaveMagnitude));
        if (ThreadPoolSampleIntervalLow < TimeSpan.FromMilliseconds(1) || ThreadPoolSampleIntervalLow.Ticks % TimeSpan.TicksPerMillisecond != 0)
        {
            throw new ArgumentOutOfRangeException(nameof(ThreadPoolSampleIntervalLow), ThreadPoolSampleIntervalLow, "The shortest hill-climbing sample must be a whole number of milliseconds, at least 1.");
        }

        if (ThreadPoolSampleIntervalHigh < ThreadPoolSampleIntervalLow || ThreadPoolSampleIntervalHigh.Ticks % TimeSpan.TicksPerMillisecond != 0
            || ThreadPoolSampleIntervalHigh > TimeSpan.FromMilliseconds(int.MaxValue - 1))
        {
            throw new ArgumentOutOfRangeException(nameof(ThreadPoolSampleIntervalHigh), ThreadPoolSampleIntervalHigh,
                $"The longest hill-climbing sample must be a whole number of milliseconds, at least ThreadPoolSampleIntervalLow ({ThreadPoolSampleIntervalLow.TotalMilliseconds} ms).");
        }
        if (ThreadPoolMaxThreads < (long)Cores + ThreadPoolExtraThreads)
        {
            throw new ArgumentOutOfRangeException(nameof(ThreadPoolMaxThreads), ThreadPoolMaxThreads,
                $"ThreadPoolMaxThreads must be at least Cores + ThreadPoolExtraThreads ({(long)Cores + ThreadPoolExtraThreads}): the pool starts with that many threads.");
        }
        ArgumentOutOfRangeException.ThrowIfLessThan(Packages, 1, nameof(Packages));
        if (Cores % Packages != 0)
        {
            throw new ArgumentOutOfRangeException(nameof(Packages), Packages, $"{Cores} cores do not split evenly into {Packages} packages.");
        }

        ArgumentOutOfRangeException.ThrowIfLessThan(IsolatedRuns, 1, nameof(IsolatedRuns));
        ArgumentNullException.ThrowIfNull(Inflation, nameof(Inflation));
        Inflation.Validate();
        if (Machine is { } machine)
        {
            machine.Validate();
            if (Cores > machine.Cores)
            {
                throw new ArgumentOutOfRangeException(nameof(Cores), Cores, $"The machine '{machine.Name}' has {machine.Cores} cores, fewer than the {Cores} simulated.");
            }
        }
    }

    /// <summary>A time span as whole nanoseconds (the simulator's clock unit).</summary>
    /// <param name="span">The span.</param>
    /// <returns>Nanoseconds.</returns>
    internal static long Nanoseconds(TimeSpan span) => span.Ticks * 100;

    private static void NotNegative(TimeSpan value, string name)
    {
        if (value < TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(name, value, $"{name} must not be negative.");
        }
    }
}
