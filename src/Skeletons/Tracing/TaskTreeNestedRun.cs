namespace DivCon.Skeletons.Tracing;

/// <summary>
/// A run started from inside one node's asynchronous split or merge (a nested run on the same scheduler, such as a
/// long sweep cut into parallel blocks), recorded as a subtree of that node and phase (see
/// <see cref="TaskTree.NestedRuns"/>).
/// </summary>
/// <remarks>
/// The host phase is a chain: own work, nested run, own work, nested run, ..., own work. The phase's recorded
/// duration (<see cref="TaskTreeNode.Work"/> for a split, <see cref="TaskTreeNode.MergeWork"/> for a merge) is its own
/// work only, the sum of the chain's own-work pieces; <see cref="WorkBefore"/> is the piece just before this run, and
/// the piece after the last run is what the phase's duration leaves. The phase ends when its last piece ends.
/// </remarks>
/// <param name="Node">The host node's index in the tree that holds this run (an internal node).</param>
/// <param name="Phase">The host phase: <see cref="DivideAndConquerPhase.Split"/> or <see cref="DivideAndConquerPhase.Merge"/>.</param>
/// <param name="WorkBefore">
/// The host's own work, ns, between the end of the previous nested run of the same phase (or the phase's start) and
/// this run's start.
/// </param>
/// <param name="Tree">
/// The nested run's tree; its node starts are measured from the outermost root's start (one clock for the whole
/// recording) and its workers are numbered with the outer tree's. It may hold nested runs of its own.
/// </param>
public sealed record TaskTreeNestedRun(int Node, DivideAndConquerPhase Phase, long WorkBefore, TaskTree Tree);
