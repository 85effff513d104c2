namespace DivCon.Skeletons.Tracing;

/// <summary>
/// One node of a recorded task tree (see <see cref="TaskTree"/>): where it sits in the tree, what its phases cost
/// and where they ran. Times are nanoseconds; starts are measured from the start of the run's root.
/// </summary>
/// <param name="Parent">Index of the parent node, or -1 for the root.</param>
/// <param name="FirstChild">Index of the first child (children are contiguous); equals the node count for a leaf.</param>
/// <param name="ChildCount">Number of children; 0 for a leaf.</param>
/// <param name="Depth">Depth of the node (root 0).</param>
/// <param name="Start">When the node's split (internal node) or execute (leaf) began, ns from the root's start.</param>
/// <param name="Work">Duration of the split (internal node) or execute (leaf), ns.</param>
/// <param name="MergeStart">When the merge began, ns from the root's start; -1 for a leaf.</param>
/// <param name="MergeWork">Duration of the merge, ns; 0 for a leaf.</param>
/// <param name="Worker">The worker (a dense thread index, 0 = first thread seen) that ran the split or execute.</param>
/// <param name="MergeWorker">The worker that ran the merge; -1 for a leaf.</param>
/// <param name="Cpu">The CPU the split or execute finished on, as the OS reported it; -1 when unknown.</param>
/// <param name="MergeCpu">The CPU the merge finished on; -1 for a leaf or when unknown.</param>
public readonly record struct TaskTreeNode(
    int Parent,
    int FirstChild,
    int ChildCount,
    int Depth,
    long Start,
    long Work,
    long MergeStart,
    long MergeWork,
    int Worker,
    int MergeWorker,
    int Cpu = -1,
    int MergeCpu = -1)
{
    /// <summary>Whether the node is a leaf (it executed its problem instead of splitting it).</summary>
    public bool IsLeaf => ChildCount == 0;
}
