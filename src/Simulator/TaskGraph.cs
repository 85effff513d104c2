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
    /// The graph of a recorded tree, optionally made cheaper to simulate: subtrees whose total work is at most
    /// <paramref name="coarsenBelowNs"/> become one leaf with that work, and internal nodes (not the root) whose split
    /// plus merge take at most <paramref name="flattenBelowNs"/> are dissolved into their parent, whose children they
    /// then adopt and whose split and merge absorb their work. Both keep the total work; 0 turns either off.
    /// </summary>
    /// <param name="tree">The tree.</param>
    /// <param name="coarsenBelowNs">Coarsening threshold, ns (at least 0).</param>
    /// <param name="flattenBelowNs">Flattening threshold, ns (at least 0).</param>
    /// <param name="clampOutliers">
    /// 0 (off), or a factor F above 1: a duration more than F times the median of the same phase at the same depth
    /// (leaves and splits apart) is replaced by that median. A stop-the-world collection or a preemption lands inside
    /// one task of a recording and makes it look hundreds of times longer than its siblings; replayed on many cores
    /// that one task would set the critical path.
    /// </param>
    /// <returns>The graph.</returns>
    /// <exception cref="ArgumentOutOfRangeException">A threshold is negative or the factor is out of range.</exception>
    /// <remarks>
    /// Flattening trades fidelity for speed: a binary tree of trivial splits becomes one wide fan-out, so thieves
    /// take single leaves from the owner's deque instead of halves of the tree (more, smaller steals). It suits
    /// programs like sum of squares whose splits and merges are a few hundred nanoseconds.
    /// </remarks>
    public static TaskGraph FromTree(TaskTree tree, long coarsenBelowNs = 0, long flattenBelowNs = 0, double clampOutliers = 0)
    {
        ArgumentNullException.ThrowIfNull(tree);
        ArgumentOutOfRangeException.ThrowIfNegative(coarsenBelowNs);
        ArgumentOutOfRangeException.ThrowIfNegative(flattenBelowNs);
        if (!double.IsFinite(clampOutliers) || (clampOutliers != 0 && clampOutliers <= 1))
        {
            throw new ArgumentOutOfRangeException(nameof(clampOutliers), clampOutliers, "The outlier factor must be 0 (off) or a finite number above 1.");
        }

        var nodes = clampOutliers > 0 ? ClampOutliers(tree.Nodes, clampOutliers) : tree.Nodes;
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

        bool Collapsed(int i) => !nodes[i].IsLeaf && coarsenBelowNs > 0 && subtree[i] <= coarsenBelowNs;
        bool Dissolved(int i) => i != 0 && !nodes[i].IsLeaf && !Collapsed(i) && flattenBelowNs > 0 && nodes[i].Work + nodes[i].MergeWork <= flattenBelowNs;

        // Breadth-first over the simplified tree: each kept node's children are its original children, with
        // dissolved ones replaced (recursively, in order) by their own children.
        var order = new List<int> { 0 };
        var parent = new List<int> { -1 };
        var work = new List<long>();
        var merge = new List<long>();
        var childCount = new List<int>();
        var firstChild = new List<int>();
        var children = new List<int>();
        for (int k = 0; k < order.Count; k++)
        {
            int i = order[k];
            var node = nodes[i];
            if (node.IsLeaf || Collapsed(i))
            {
                work.Add(node.IsLeaf ? node.Work : subtree[i]);
                merge.Add(0);
                childCount.Add(0);
                firstChild.Add(-1);
                continue;
            }

            long split = node.Work;
            long join = node.MergeWork;
            children.Clear();
            Expand(i, ref split, ref join);
            work.Add(split);
            merge.Add(join);
            childCount.Add(children.Count);
            firstChild.Add(order.Count);
            foreach (int c in children)
            {
                order.Add(c);
                parent.Add(k);
            }
        }

        int count = order.Count;
        return new TaskGraph(
            [.. parent],
            [.. firstChild.Select(f => f < 0 ? count : f)],
            [.. childCount],
            [.. work],
            [.. merge]);

        void Expand(int i, ref long split, ref long join)
        {
            var node = nodes[i];
            for (int c = node.FirstChild; c < node.FirstChild + node.ChildCount; c++)
            {
                if (Dissolved(c))
                {
                    split += nodes[c].Work;
                    join += nodes[c].MergeWork;
                    Expand(c, ref split, ref join);
                }
                else
                {
                    children.Add(c);
                }
            }
        }
    }

    /// <summary>The nodes with outlying durations replaced by their group's median (see <see cref="FromTree"/>).</summary>
    private static TaskTreeNode[] ClampOutliers(IReadOnlyList<TaskTreeNode> nodes, double factor)
    {
        // Groups: (depth, leaf?, merge?) -> the durations of that phase at that depth.
        var groups = new Dictionary<(int Depth, bool Leaf, bool Merge), List<long>>();
        foreach (var node in nodes)
        {
            Add((node.Depth, node.IsLeaf, false), node.Work);
            if (!node.IsLeaf)
            {
                Add((node.Depth, false, true), node.MergeWork);
            }
        }

        var medians = groups.ToDictionary(g => g.Key, g =>
        {
            g.Value.Sort();
            return g.Value[(g.Value.Count - 1) / 2];
        });
        var result = new TaskTreeNode[nodes.Count];
        for (int i = 0; i < result.Length; i++)
        {
            var node = nodes[i];
            long work = Clamp(node.Work, medians[(node.Depth, node.IsLeaf, false)]);
            long merge = node.IsLeaf ? 0 : Clamp(node.MergeWork, medians[(node.Depth, false, true)]);
            result[i] = node with { Work = work, MergeWork = merge };
        }

        return result;

        void Add((int, bool, bool) key, long value)
        {
            if (!groups.TryGetValue(key, out var list))
            {
                groups[key] = list = [];
            }

            list.Add(value);
        }

        long Clamp(long value, long median) => value > factor * median ? median : value;
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
}
