namespace DivCon.Simulator;

/// <summary>
/// Which program an idle partitioning worker, whose own program has nothing queued, is lent to (a what-if switch for
/// the lending rule; the mechanism's director lends round-robin, or in the policy's lending order).
/// </summary>
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
