namespace DivCon.Skeletons.Engines;

/// <summary>
/// Where a node sits in its run's tree, as the observer sees it: the node's number, its parent's number and its place
/// among the parent's children (numbers are -1 unless the observer numbers nodes, see
/// <see cref="RunContext{TProblem, TResult}.NewNodeId"/>; the root's parent is -1), and its depth.
/// </summary>
internal readonly record struct NodePosition(int Id, int ParentId, int IndexInParent, int Depth)
{
    /// <summary>The position of this node's child number <paramref name="index"/>, numbered <paramref name="childId"/>.</summary>
    public NodePosition Child(int childId, int index) => new(childId, Id, index, Depth + 1);
}

/// <summary>
/// A phase being timed for the observer: which phase, of which node, since when (<see cref="StartTimestamp"/> is a
/// <see cref="System.Diagnostics.Stopwatch"/> timestamp, or 0 when the run has no observer and the clock was not read).
/// Made by <see cref="RunContext{TProblem, TResult}.StartPhase"/>, reported by
/// <see cref="RunContext{TProblem, TResult}.EndPhase"/>.
/// </summary>
internal readonly record struct MeasuredPhase(DivideAndConquerPhase Phase, NodePosition Node, long StartTimestamp);
