using DivCon.Skeletons;
using DivCon.Skeletons.Tracing;

namespace DivCon.Simulator;

/// <summary>
/// A task tree reduced to what the simulator replays: per node its parent, its children (contiguous) and the
/// durations of its tasks. An internal node is two tasks (the split, which spawns the children, and the merge,
/// started by the last child to finish); a leaf is one task (the execute). This is the continuation engine's
/// task graph.
/// </summary>
/// <remarks>
/// <para>Invariants (on <see cref="Nodes"/>): node 0 is the root; children of node i are <c>FirstChild .. FirstChild +
/// ChildCount - 1</c>, all with <c>Parent == i</c>; durations are non-negative nanoseconds; <c>Merge</c> is 0 for
/// leaves.</para>
/// <para>Nested runs (<see cref="TaskTree.NestedRuns"/>) are appended after the tree that holds them, each a tree of
/// its own (root with parent -1 and a <see cref="HostNode"/>). A phase with k nested runs is k + 1 tasks of own work
/// (<see cref="PieceWork"/>): piece j &lt; k ends by pushing run j's root; run j's root, when done, pushes piece j + 1
/// of its host; the last piece ends the phase as a plain split or merge ends. The pieces of one phase sum to its
/// duration.</para>
/// </remarks>
public sealed class TaskGraph
{
    private TaskGraph(Builder b)
    {
        int count = b.Parent.Count;
        HostNode = [.. b.HostNode];
        HostMerge = [.. b.HostMerge];
        HostIndex = [.. b.HostIndex];
        SplitNested = new NestedRun[]?[count];
        MergeNested = new NestedRun[]?[count];
        int nestedRuns = 0;
        foreach (var ((node, merge), runs) in b.Nested)
        {
            (merge ? MergeNested : SplitNested)[node] = [.. runs];
            nestedRuns += runs.Count;
        }

        long total = 0;
        int internalNodes = 0;
        Nodes = new Node[count];
        for (int i = 0; i < count; i++)
        {
            total += b.Work[i] + b.Merge[i];
            internalNodes += b.ChildCount[i] > 0 ? 1 : 0;
            // A leaf's first child is the node count (never read: it has no children).
            int first = b.FirstChild[i] < 0 ? count : b.FirstChild[i];
            Nodes[i] = new Node(b.Work[i], b.Merge[i], b.Parent[i], first, b.ChildCount[i], SplitNested[i] is not null || MergeNested[i] is not null);
        }

        TotalWork = total;
        NestedRunCount = nestedRuns;
        // Every nested run adds one own-work piece (the one after it) to its host phase.
        TaskCount = count + internalNodes + nestedRuns;
    }

    /// <summary>
    /// Per node, the facts every task reads, in one 32-byte record (the simulator's hot path reads them together: one
    /// cache line instead of one per array; the nested-run facts, read at runs' roots only, are in their own arrays).
    /// </summary>
    internal Node[] Nodes { get; }

    /// <summary>For the root of a nested run: the host node whose phase continues when the run ends; -1 otherwise.</summary>
    internal int[] HostNode { get; }

    /// <summary>For the root of a nested run: whether its host phase is the merge (else the split).</summary>
    internal bool[] HostMerge { get; }

    /// <summary>For the root of a nested run: its position among its host phase's nested runs (0 = first).</summary>
    internal int[] HostIndex { get; }

    /// <summary>Per node: the nested runs of its split, in order, or null (most nodes).</summary>
    internal NestedRun[]?[] SplitNested { get; }

    /// <summary>Per node: the nested runs of its merge, in order, or null.</summary>
    internal NestedRun[]?[] MergeNested { get; }

    /// <summary>The number of nested runs one run of the graph starts.</summary>
    public int NestedRunCount { get; }

    /// <summary>
    /// The duration of piece <paramref name="segment"/> of a phase, ns: a phase with k nested runs is k + 1 pieces of own
    /// work (piece j &lt; k is the work before run j; piece k the rest), a plain phase one piece.
    /// </summary>
    internal long PieceWork(int node, bool merge, int segment)
    {
        var runs = merge ? MergeNested[node] : SplitNested[node];
        long total = merge ? Nodes[node].Merge : Nodes[node].Work;
        if (runs is null)
        {
            return total;
        }

        if (segment < runs.Length)
        {
            return runs[segment].WorkBefore;
        }

        foreach (var run in runs)
        {
            total -= run.WorkBefore;
        }

        return total;
    }

    /// <summary>The number of nodes.</summary>
    public int NodeCount => Nodes.Length;

    /// <summary>The number of tasks one run makes (leaves + 2 x internal nodes + one per nested run), nested runs' nodes included.</summary>
    public int TaskCount { get; }

    /// <summary>The sum of every task's duration, ns (no overheads): the work of one run, nested runs included.</summary>
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

        var builder = new Builder();
        Append(builder, tree, coarsenBelowNs, flattenBelowNs, clampOutliers);
        return new TaskGraph(builder);
    }

    /// <summary>
    /// Appends <paramref name="tree"/> (simplified as <see cref="FromTree"/> says) to the builder, then its nested runs
    /// (recursively) after it; returns the index of its root.
    /// </summary>
    private static int Append(Builder b, TaskTree tree, long coarsenBelowNs, long flattenBelowNs, double clampOutliers)
    {
        var nodes = clampOutliers > 0 ? ClampOutliers(tree.Nodes, clampOutliers) : tree.Nodes;
        int n = nodes.Count;
        // Nested work per host node (a collapsed subtree absorbs its nested runs; a host is never dissolved).
        var nestedWork = new long[n];
        foreach (var run in tree.NestedRuns)
        {
            nestedWork[run.Node] += run.Tree.TotalWork;
        }

        // Subtree work, bottom-up: breadth-first order puts every child after its parent.
        var subtree = new long[n];
        for (int i = n - 1; i >= 0; i--)
        {
            subtree[i] += nodes[i].Work + nodes[i].MergeWork + nestedWork[i];
            if (nodes[i].Parent >= 0)
            {
                subtree[nodes[i].Parent] += subtree[i];
            }
        }

        bool Collapsed(int i) => !nodes[i].IsLeaf && coarsenBelowNs > 0 && subtree[i] <= coarsenBelowNs;
        bool Dissolved(int i) => i != 0 && !nodes[i].IsLeaf && !Collapsed(i) && nestedWork[i] == 0 && flattenBelowNs > 0 && nodes[i].Work + nodes[i].MergeWork <= flattenBelowNs;

        // Breadth-first over the simplified tree: each kept node's children are its original children, with
        // dissolved ones replaced (recursively, in order) by their own children.
        int offset = b.Parent.Count;
        var order = new List<int> { 0 };
        var kept = new Dictionary<int, int>();
        b.Parent.Add(-1);
        var children = new List<int>();
        for (int k = 0; k < order.Count; k++)
        {
            int i = order[k];
            var node = nodes[i];
            b.HostNode.Add(-1);
            b.HostMerge.Add(false);
            b.HostIndex.Add(-1);
            if (node.IsLeaf || Collapsed(i))
            {
                b.Work.Add(node.IsLeaf ? node.Work : subtree[i]);
                b.Merge.Add(0);
                b.ChildCount.Add(0);
                b.FirstChild.Add(-1);
                continue;
            }

            kept[i] = offset + k;
            long split = node.Work;
            long join = node.MergeWork;
            children.Clear();
            Expand(i, ref split, ref join);
            b.Work.Add(split);
            b.Merge.Add(join);
            b.ChildCount.Add(children.Count);
            b.FirstChild.Add(offset + order.Count);
            foreach (int c in children)
            {
                order.Add(c);
                b.Parent.Add(offset + k);
            }
        }

        // The nested runs of kept internal nodes, appended after this tree (their hosts' indexes are final).
        foreach (var run in tree.NestedRuns)
        {
            if (!kept.TryGetValue(run.Node, out int host))
            {
                continue; // Inside a collapsed subtree: its work is in the subtree's leaf.
            }

            bool merge = run.Phase == DivideAndConquerPhase.Merge;
            if (!b.Nested.TryGetValue((host, merge), out var runs))
            {
                b.Nested[(host, merge)] = runs = [];
            }

            // Clamping may have shortened the host phase: the pieces before the runs never exceed it.
            long phase = merge ? b.Merge[host] : b.Work[host];
            long claimed = runs.Sum(r => r.WorkBefore);
            long before = Math.Min(run.WorkBefore, phase - claimed);
            int root = Append(b, run.Tree, coarsenBelowNs, flattenBelowNs, clampOutliers);
            b.HostNode[root] = host;
            b.HostMerge[root] = merge;
            b.HostIndex[root] = runs.Count;
            runs.Add(new NestedRun(before, root));
        }

        return offset;

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

    /// <summary>
    /// Which phase each node's durations belong to: 0 for the main tree's own nodes (a split, a merge or a leaf by
    /// itself), 1 for every task of a nested run started by a split, 2 by a merge (a run nested in a nested run
    /// belongs where its host does).
    /// </summary>
    private byte[] PhaseOwners()
    {
        var owner = new byte[Nodes.Length];
        for (int i = 1; i < Nodes.Length; i++)
        {
            // Parents and hosts come before their children and nested runs (breadth-first, runs appended after).
            int parent = Nodes[i].Parent;
            if (parent >= 0)
            {
                owner[i] = owner[parent];
            }
            else
            {
                int host = HostNode[i];
                owner[i] = host < 0 ? (byte)0 : owner[host] != 0 ? owner[host] : HostMerge[i] ? (byte)2 : (byte)1;
            }
        }

        return owner;
    }

    /// <summary>
    /// The main tree's leaf count and the work of its leaves, its splits and its merges, ns; a nested run's work counts
    /// with the phase that started it.
    /// </summary>
    internal (int Leaves, long LeafWork, long SplitWork, long MergeWork) PhaseWork()
    {
        var owner = PhaseOwners();
        int leaves = 0;
        long leaf = 0, split = 0, merge = 0;
        for (int i = 0; i < Nodes.Length; i++)
        {
            var node = Nodes[i];
            switch (owner[i])
            {
                case 0 when node.ChildCount == 0:
                    leaves++;
                    leaf += node.Work;
                    break;
                case 0:
                    split += node.Work;
                    merge += node.Merge;
                    break;
                case 1:
                    split += node.Work + node.Merge;
                    break;
                default:
                    merge += node.Work + node.Merge;
                    break;
            }
        }

        return (leaves, leaf, split, merge);
    }

    /// <summary>
    /// A copy with every split phase's durations multiplied by <paramref name="splitFactor"/> and every merge phase's by
    /// <paramref name="mergeFactor"/> (nested runs with the phase that started them; the main tree's leaves kept),
    /// rounded to the nanosecond; a phase's pieces before its nested runs are rounded on their running sum, so they
    /// never exceed the scaled phase.
    /// </summary>
    internal TaskGraph ScalePhases(double splitFactor, double mergeFactor)
    {
        if (!double.IsFinite(splitFactor) || splitFactor < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(splitFactor), splitFactor, "A phase factor must be a finite number >= 0.");
        }

        if (!double.IsFinite(mergeFactor) || mergeFactor < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(mergeFactor), mergeFactor, "A phase factor must be a finite number >= 0.");
        }

        var owner = PhaseOwners();
        var b = new Builder();
        for (int i = 0; i < Nodes.Length; i++)
        {
            var node = Nodes[i];
            (double work, double merge) = owner[i] switch
            {
                0 when node.ChildCount == 0 => (1.0, 1.0),
                0 => (splitFactor, mergeFactor),
                1 => (splitFactor, splitFactor),
                _ => (mergeFactor, mergeFactor),
            };
            b.Parent.Add(node.Parent);
            b.FirstChild.Add(node.ChildCount == 0 ? -1 : node.FirstChild);
            b.ChildCount.Add(node.ChildCount);
            b.Work.Add(Scale(node.Work, work));
            b.Merge.Add(Scale(node.Merge, merge));
            b.HostNode.Add(HostNode[i]);
            b.HostMerge.Add(HostMerge[i]);
            b.HostIndex.Add(HostIndex[i]);
        }

        for (int i = 0; i < Nodes.Length; i++)
        {
            AddRuns(i, merge: false, SplitNested[i]);
            AddRuns(i, merge: true, MergeNested[i]);
        }

        return new TaskGraph(b);

        void AddRuns(int host, bool merge, NestedRun[]? runs)
        {
            if (runs is null)
            {
                return;
            }

            double factor = owner[host] switch
            {
                0 => merge ? mergeFactor : splitFactor,
                1 => splitFactor,
                _ => mergeFactor,
            };
            var scaled = new List<NestedRun>(runs.Length);
            long before = 0, placed = 0;
            foreach (var run in runs)
            {
                before += run.WorkBefore;
                long upTo = Scale(before, factor);
                scaled.Add(run with { WorkBefore = upTo - placed });
                placed = upTo;
            }

            b.Nested[(host, merge)] = scaled;
        }

        static long Scale(long duration, double factor) => factor == 1 ? duration : (long)Math.Round(duration * factor);
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

    /// <summary>One nested run of a phase: the host's own work before it, and its root's node index.</summary>
    internal readonly record struct NestedRun(long WorkBefore, int Root);

    /// <summary>
    /// A node: <paramref name="Work"/>, the split (internal node) or execute (leaf) duration, and <paramref name="Merge"/>
    /// (0 for leaves), ns, each the phase's own work with nested runs excluded; <paramref name="Parent"/> (-1 for the root
    /// and for the root of every nested run); <paramref name="FirstChild"/> and <paramref name="ChildCount"/> (0 for
    /// leaves); <paramref name="Nested"/>: its split or merge starts nested runs.
    /// </summary>
    internal readonly record struct Node(long Work, long Merge, int Parent, int FirstChild, int ChildCount, bool Nested);

    /// <summary>The graph's arrays while <see cref="FromTree"/> builds them (a tree, then its nested runs).</summary>
    private sealed class Builder
    {
        public List<int> Parent { get; } = [];

        public List<int> FirstChild { get; } = [];

        public List<int> ChildCount { get; } = [];

        public List<long> Work { get; } = [];

        public List<long> Merge { get; } = [];

        public List<int> HostNode { get; } = [];

        public List<bool> HostMerge { get; } = [];

        public List<int> HostIndex { get; } = [];

        public Dictionary<(int Node, bool Merge), List<NestedRun>> Nested { get; } = [];
    }
}
