namespace DivCon.Schedulers.Multiprogram.Policies;

/// <summary>
/// Which program an idle partitioning worker, whose own program has nothing queued, is lent to: the lending rule of
/// the multiprogram scheduler (<c>MultiprogramSchedulerOptions.LendingPreference</c>) and of the simulator, both
/// through the one pure rule (<c>LendingChoice</c>). The default, <see cref="RoundRobin"/>, is the rule the
/// mechanism has always used.
/// </summary>
/// <remarks>
/// A "run" is one divide-and-conquer execution from its root task to its last task. The simulator knows each run
/// exactly; the mechanism sees only queued and running tasks, so there a run is a program's busy period (from the
/// task that found it with nothing queued or running, to the moment it has none again) and "only a new run's root" is
/// "one task queued and none running" (the multiprogram README, "Lending").
/// </remarks>
public enum LendingPreference
{
    /// <summary>Round-robin over the programs with queued tasks, or the policy's lending order when it gives one (the mechanism's rule).</summary>
    RoundRobin = 0,

    /// <summary>
    /// Programs whose queued work belongs to a run in progress first (its root has started: the queued tasks are its
    /// splits, merges and resumptions), round-robin (or in the policy's order) among them; a program whose only
    /// queued task is a new run's root comes after every such program.
    /// </summary>
    RunsInProgress = 1,

    /// <summary>
    /// As <see cref="RunsInProgress"/>, and among the runs in progress the one started longest ago first (ties: the
    /// earlier program); programs with only a new run's root queued after them, the root queued longest ago first.
    /// This is the order in which a single work-conserving pool serves the runs: in-progress work before new roots,
    /// and the oldest runs' work spread widest. It ignores the policy's lending order.
    /// </summary>
    OldestRun = 2,
}
