using DivCon.Skeletons.Tracing;

namespace DivCon.Simulator;

/// <summary>
/// A task tree reduced to what the simulator replays: per node its parent, its children (contiguous) and the
/// durations of its tasks. An internal node is two tasks (the split, which spawns the children, and the merge,
/// started by the last child to finish); a leaf is one task (the execute). This is the continuation engine's
/// task graph.
/// </summary>
/// <remarks>
/// Invariants: node 0 is the root; children of node i are <c>FirstChild[i] .. FirstChild[i] + ChildCount[i] - 1</c>,
/// all with <c>Parent == i</c>; durations are non-negative nanoseconds; <see cref="Merge"/> is 0 for leaves.
/// </remarks>
public sealed class TaskGraph
{
    private TaskGraph(int[] parent, int[] firstChild, int[] childCount, long[] work, long[] merge)
    {
        Parent = parent;
        FirstChild = firstChild;
        ChildCount = childCount;
        Work = work;
        Merge = merge;
        long total = 0;
        for (int i = 0; i < work.Length; i++)
        {
            total += work[i] + merge[i];
        }

        TotalWork = total;
        TaskCount = work.Length + childCount.Count(c => c > 0);
    }

    /// <summary>Parent of each node (-1 for the root).</summary>
    internal int[] Parent { get; }

    /// <summary>First child of each node (meaningless for leaves).</summary>
    internal int[] FirstChild { get; }

    /// <summary>Children of each node (0 for leaves).</summary>
    internal int[] ChildCount { get; }

    /// <summary>Split (internal node) or execute (leaf) duration, ns.</summary>
    internal long[] Work { get; }

    /// <summary>Merge duration, ns (0 for leaves).</summary>
    internal long[] Merge { get; }

    /// <summary>The number of nodes.</summary>
    public int NodeCount => Work.Length;

    /// <summary>The number of tasks one run makes (leaves + 2 x internal nodes).</summary>
    public int TaskCount { get; }

    /// <summary>The sum of every task's duration, ns (no overheads): the work of one run.</summary>
    public long TotalWork { get; }

    /// <summary>
    /// The graph of a recorded tree; subtrees whose total work is at most <paramref name="coarsenBelowNs"/> become
    /// one leaf with that work (0: keep every node).
    /// </summary>
    /// <param name="tree">The tree.</param>
    /// <param name="coarsenBelowNs">Coarsening threshold, ns (at least 0).</param>
    /// <returns>The graph.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="coarsenBelowNs"/> is negative.</exception>
    public static TaskGraph FromTree(TaskTree tree, long coarsenBelowNs = 0)
    {
        ArgumentNullException.ThrowIfNull(tree);
        ArgumentOutOfRangeException.ThrowIfNegative(coarsenBelowNs);
        var nodes = tree.Nodes;
        int n = nodes.Count;
        // Subtree work, bottom-up: breadth-first order puts every child after its parent.
        var subtree = new long[n];
        for (int i = n - 1; i >= 0; i--)
        {
            subtree[i] += nodes[i].Work + nodes[i].MergeWork;
            if (nodes[i].Parent >= 0)
            {
                subtree[nodes[i].Parent] += subtree[i];
            }
        }

        // Marks, top-down: 0 root, -2 kept, -1 removed (below a collapsed node). A kept internal node whose subtree
        // is small enough is collapsed: its children are removed and Build gives it the subtree's work.
        var marks = new int[n];
        Array.Fill(marks, -1);
        marks[0] = 0;
        for (int i = 0; i < n; i++)
        {
            var node = nodes[i];
            if (marks[i] == -1 || node.IsLeaf || (coarsenBelowNs > 0 && subtree[i] <= coarsenBelowNs))
            {
                continue;
            }

            for (int c = node.FirstChild; c < node.FirstChild + node.ChildCount; c++)
            {
                marks[c] = -2;
            }
        }

        return Build(nodes, marks);
    }

    /// <summary>A graph from explicit arrays (tests and synthetic models).</summary>
    /// <param name="childCounts">Children per node, breadth-first.</param>
    /// <param name="work">Split or execute duration per node, ns.</param>
    /// <param name="merge">Merge duration per node, ns (ignored for leaves).</param>
    /// <returns>The graph.</returns>
    public static TaskGraph FromChildCounts(IReadOnlyList<int> childCounts, IReadOnlyList<long> work, IReadOnlyList<long> merge)
    {
        ArgumentNullException.ThrowIfNull(childCounts);
        ArgumentNullException.ThrowIfNull(work);
        ArgumentNullException.ThrowIfNull(merge);
        if (work.Count != childCounts.Count || merge.Count != childCounts.Count)
        {
            throw new ArgumentException($"{childCounts.Count} child counts need as many work and merge durations (got {work.Count} and {merge.Count}).", nameof(work));
        }

        var tree = TaskTree.FromChildCounts(childCounts, i => work[i], i => merge[i]);
        return FromTree(tree);
    }

    private static TaskGraph Build(IReadOnlyList<TaskTreeNode> nodes, int[] keepMarks)
    {
        // keepMarks: 0 for the root, -2 for kept non-root nodes, -1 for removed ones. Breadth-first order of the
        // original tree restricted to kept nodes is a breadth-first order of the coarsened tree.
        int n = nodes.Count;
        var newIndex = new int[n];
        int count = 0;
        for (int i = 0; i < n; i++)
        {
            newIndex[i] = keepMarks[i] == -1 ? -1 : count++;
        }

        var parent = new int[count];
        var firstChild = new int[count];
        var childCount = new int[count];
        var work = new long[count];
        var merge = new long[count];
        var subtree = new long[n];
        for (int i = n - 1; i >= 0; i--)
        {
            subtree[i] += nodes[i].Work + nodes[i].MergeWork;
            if (nodes[i].Parent >= 0)
            {
                subtree[nodes[i].Parent] += subtree[i];
            }
        }

        for (int i = 0; i < n; i++)
        {
            int k = newIndex[i];
            if (k < 0)
            {
                continue;
            }

            var node = nodes[i];
            parent[k] = node.Parent < 0 ? -1 : newIndex[node.Parent];
            bool keepsChildren = !node.IsLeaf && newIndex[node.FirstChild] >= 0;
            if (keepsChildren)
            {
                work[k] = node.Work;
                merge[k] = node.MergeWork;
                firstChild[k] = newIndex[node.FirstChild];
                childCount[k] = node.ChildCount;
            }
            else
            {
                // A leaf, or a collapsed subtree: one task with the whole subtree's work.
                work[k] = node.IsLeaf ? node.Work : subtree[i];
                firstChild[k] = count;
            }
        }

        return new TaskGraph(parent, firstChild, childCount, work, merge);
    }
}
