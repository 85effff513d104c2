using DivCon.Schedulers;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Harness.Workload;

/// <summary>Which schedulers a scheme creates and how it lays the programs on them.</summary>
public enum SchedulerLayout
{
    /// <summary>One unpinned <see cref="WorkStealingTaskScheduler"/> per program, a worker per CPU each.</summary>
    PerProgramUnpinned,

    /// <summary>One <see cref="AffinityTaskScheduler"/> per program, each pinned to every CPU of the run.</summary>
    PerProgramPinned,

    /// <summary>One <see cref="AffinityTaskScheduler"/> (a pinned worker per CPU) shared by all programs.</summary>
    Shared,

    /// <summary><see cref="TaskScheduler.Default"/>, the .NET thread pool, for all programs; nothing is created.</summary>
    DotNetPool,

    /// <summary>
    /// The single-program baseline: one <see cref="AffinityTaskScheduler"/> on every CPU of the run (an unpinned
    /// <see cref="WorkStealingTaskScheduler"/> with the same worker count where pinning is unsupported); the
    /// experiment runs the programs on it one at a time.
    /// </summary>
    Isolated,

    /// <summary>One <see cref="MultiprogramScheduler"/> with the definition's allocation policy.</summary>
    Multiprogram,
}

/// <summary>
/// A scheme as data: its name, a one-line description, its scheduler layout and, for the multiprogram layout, its
/// allocation policy and whether the policy is re-run every rebalancing interval. <see cref="Create"/> binds it to
/// a workload as a <see cref="WorkloadScheme"/>.
/// </summary>
/// <param name="Name">The name used on the command line and in reports.</param>
/// <param name="Description">One line for --help, setup.json and the README.</param>
/// <param name="Layout">The schedulers the scheme creates.</param>
/// <param name="Policy">Creates the allocation policy (one per session); required for <see cref="SchedulerLayout.Multiprogram"/>, null otherwise.</param>
/// <param name="Repartitions">
/// Whether the policy is re-run every rebalancing interval (false: only on arrival and departure, unless the
/// workload has more programs than workers; see <see cref="WorkloadScheme.UsesIntervalDecisions"/>).
/// </param>
/// <param name="Standby">
/// For the multiprogram layout: whether a CPU moved while its worker is inside a long task hands over to a standby
/// worker (the default); false: the worker moves at its next task boundary, as with <c>--no-standby</c>.
/// </param>
/// <param name="EstimatorSampleIntervalMilliseconds">
/// For the multiprogram layout: how often the estimator samples between decisions, in milliseconds; null: the
/// scheduler's default (<see cref="MultiprogramSchedulerOptions.EstimatorSampleInterval"/>, 10 ms).
/// </param>
public sealed record SchemeDefinition(
    string Name,
    string Description,
    SchedulerLayout Layout,
    Func<IAllocationPolicy>? Policy = null,
    bool Repartitions = false,
    bool Standby = true,
    int? EstimatorSampleIntervalMilliseconds = null)
{
    /// <summary>Whether the scheme needs the programs' scalability profiles (the multiprogram layout does).</summary>
    public bool UsesProfiles => Layout == SchedulerLayout.Multiprogram;

    /// <summary>Binds the scheme to a workload.</summary>
    /// <param name="workload">The programs (at least one, names unique).</param>
    /// <param name="context">Machine, workers, profiles and the multiprogram settings.</param>
    /// <returns>The scheme.</returns>
    /// <exception cref="ArgumentException">The workload is empty or has duplicate names.</exception>
    public WorkloadScheme Create(IReadOnlyList<WorkloadProgram> workload, SchemeContext context) => new(this, workload, context);
}

/// <summary>
/// Every scheme the CLI can run, by name (case-insensitive), each declared once here as data. Adding a scheme: one
/// property and one entry in the list (a new scheduler layout also needs a case in <see cref="WorkloadScheme"/>).
/// </summary>
/// <remarks>
/// <see cref="Isolated"/> is not listed: it is the single-program baseline every experiment uses for C_SP, not a
/// multiprogramming scheme.
/// </remarks>
public static class SchemeRegistry
{
    /// <summary>"oversubscribed-free" (thesis 5.2.1): the operating system time-slices and migrates the programs' threads.</summary>
    public static SchemeDefinition OversubscribedFree { get; } =
        new("oversubscribed-free", "one unpinned work-stealing scheduler per program, a worker per CPU each", SchedulerLayout.PerProgramUnpinned);

    /// <summary>"oversubscribed-pinned" (thesis 5.2.2): each CPU carries one worker per program and no thread migrates.</summary>
    public static SchemeDefinition OversubscribedPinned { get; } =
        new("oversubscribed-pinned", "one affinity scheduler per program, pinned to every CPU", SchedulerLayout.PerProgramPinned);

    /// <summary>"shared" (thesis 5.2.3): the programs' tasks meet in the same queues and work stealing balances them.</summary>
    public static SchemeDefinition Shared { get; } =
        new("shared", "one affinity scheduler (a pinned worker per CPU) shared by all programs", SchedulerLayout.Shared);

    /// <summary>"default" (thesis 5.2.4): the .NET thread pool, unpinned and free to inject threads; the worker count does not apply.</summary>
    public static SchemeDefinition Default { get; } =
        new("default", "the .NET thread pool (TaskScheduler.Default) for all programs", SchedulerLayout.DotNetPool);

    /// <summary>
    /// "static" (thesis 5.3): <see cref="ProportionalPolicy"/>, cores in proportion to each program's whole-machine
    /// speedup, decided when the programs arrive and never repartitioned. With more programs than workers the
    /// scheduler also makes interval decisions, on which only the starvation guard's time sharing acts.
    /// </summary>
    public static SchemeDefinition Static { get; } =
        new("static", "multiprogram scheduler, cores proportional to scalability, fixed at arrival", SchedulerLayout.Multiprogram, static () => new ProportionalPolicy());

    /// <summary>
    /// "dynamic", the default policy: <see cref="LearnedScalabilityPolicy"/>, homes follow the scalability each program
    /// shows while it runs (no profile needed), moved only when the move pays; idle cores are lent.
    /// </summary>
    public static SchemeDefinition Dynamic { get; } =
        new("dynamic", "multiprogram scheduler, cores where they pay by scalability learned while running (the default policy)", SchedulerLayout.Multiprogram, static () => new LearnedScalabilityPolicy(), Repartitions: true);

    /// <summary>
    /// "task-availability" (thesis 5.3.4's dynamic policy; a variant, not in the default list):
    /// <see cref="TaskAvailabilityPolicy"/>, proportional shares capped by each program's available tasks, re-run
    /// every rebalancing interval.
    /// </summary>
    public static SchemeDefinition TaskAvailability { get; } =
        new("task-availability", "multiprogram scheduler, proportional shares repartitioned by task availability every interval (the thesis's dynamic)", SchedulerLayout.Multiprogram, static () => new TaskAvailabilityPolicy(), Repartitions: true);

    /// <summary>
    /// "hill-climbing" (after Sasaki et al.): <see cref="HillClimbingPolicy"/>, single-core moves while the ANTT
    /// predicted from the stored speedup tables improves, re-run every rebalancing interval.
    /// </summary>
    public static SchemeDefinition HillClimbing { get; } =
        new("hill-climbing", "multiprogram scheduler, hill climbing on ANTT predicted from speedup tables", SchedulerLayout.Multiprogram, static () => new HillClimbingPolicy(), Repartitions: true);

    /// <summary>
    /// "dynamic-no-standby" (a variant, not in the default list): <see cref="Dynamic"/> without the standby worker
    /// per CPU, so that the handover's cost and benefit can be measured against <see cref="Dynamic"/> in the same
    /// interleaved run.
    /// </summary>
    public static SchemeDefinition DynamicNoStandby { get; } =
        new("dynamic-no-standby", "dynamic without the standby worker per CPU: a busy worker moves at its next task boundary", SchedulerLayout.Multiprogram, static () => new LearnedScalabilityPolicy(), Repartitions: true, Standby: false);

    /// <summary>
    /// "dynamic-sampled-25ms" (a variant, not in the default list): <see cref="Dynamic"/> with its estimator sampling
    /// every 25 ms instead of 10 ms, as a process joined to a machine domain does, so that the sampling thread's
    /// wake-ups can be measured against <see cref="Dynamic"/> in the same interleaved run.
    /// </summary>
    public static SchemeDefinition DynamicSampled25 { get; } =
        new("dynamic-sampled-25ms", "dynamic with the estimator sampling every 25 ms instead of 10 ms", SchedulerLayout.Multiprogram, static () => new LearnedScalabilityPolicy(), Repartitions: true, EstimatorSampleIntervalMilliseconds: 25);

    /// <summary>
    /// "dynamic-no-long-runs" (a variant, not in the default list): <see cref="Dynamic"/> with
    /// <see cref="LearnedScalabilityPolicy.LongRunsFirst"/> off, so that the rule's effect on programs that report
    /// their runs (the harness's do) can be measured against <see cref="Dynamic"/> in the same interleaved run.
    /// </summary>
    public static SchemeDefinition DynamicNoLongRuns { get; } =
        new("dynamic-no-long-runs", "dynamic without long runs first: a run far longer than another program's runs gets no priority", SchedulerLayout.Multiprogram, static () => new LearnedScalabilityPolicy { LongRunsFirst = 0 }, Repartitions: true);

    /// <summary>
    /// "isolated" (not selectable): the single-program baseline (C_SP), each program alone with the whole machine.
    /// The affinity scheduler, not the .NET pool, so that every scheme is normalised against the same baseline, the
    /// thesis's stand-alone configuration.
    /// </summary>
    public static SchemeDefinition Isolated { get; } =
        new("isolated", "each program alone on one affinity scheduler over every CPU of the run", SchedulerLayout.Isolated);

    private static readonly SchemeDefinition[] s_schemes = [OversubscribedFree, OversubscribedPinned, Shared, Default, Static, Dynamic, HillClimbing];

    private static readonly SchemeDefinition[] s_variants = [TaskAvailability, DynamicNoStandby, DynamicSampled25, DynamicNoLongRuns];

    /// <summary>Every scheme of the comparison (the default of <c>--schemes</c>), in a fixed order.</summary>
    public static IReadOnlyList<SchemeDefinition> Schemes => s_schemes;

    /// <summary>The scheme names, in registry order.</summary>
    public static IReadOnlyList<string> Names { get; } = Array.ConvertAll(s_schemes, static s => s.Name);

    /// <summary>Selectable variants of the schemes for diagnosis, never run unless named (e.g. "dynamic-no-standby").</summary>
    public static IReadOnlyList<SchemeDefinition> Variants => s_variants;

    /// <summary>Every selectable name: <see cref="Names"/>, then the variants'.</summary>
    public static IReadOnlyList<string> SelectableNames { get; } = [.. s_schemes.Concat(s_variants).Select(static s => s.Name)];

    /// <summary>Finds a scheme by name (case-insensitive).</summary>
    /// <param name="name">The name.</param>
    /// <param name="scheme">The scheme, when found.</param>
    /// <returns>Whether it was found.</returns>
    public static bool TryFind(string? name, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out SchemeDefinition? scheme)
    {
        scheme = s_schemes.Concat(s_variants).FirstOrDefault(s => string.Equals(s.Name, name?.Trim(), StringComparison.OrdinalIgnoreCase));
        return scheme is not null;
    }

    /// <summary>Finds a scheme by name.</summary>
    /// <param name="name">The name.</param>
    /// <returns>The scheme.</returns>
    /// <exception cref="ArgumentException">Unknown name (the message lists the known ones).</exception>
    public static SchemeDefinition Find(string name) =>
        TryFind(name, out SchemeDefinition? scheme)
            ? scheme
            : throw new ArgumentException($"Unknown scheme '{name}'. Known: {string.Join(", ", SelectableNames)}.", nameof(name));
}
