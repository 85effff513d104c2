using System.Collections.ObjectModel;
using System.Globalization;

namespace DivCon.Skeletons.Tracing;

/// <summary>
/// The task tree of one recorded run: every node with its parent, depth, phase durations, start times and workers,
/// plus free-form properties (program, size, workers, ...) describing how it was recorded. Immutable.
/// </summary>
/// <remarks>
/// <para>Invariants (checked by the constructor): nodes are in breadth-first order, the root is node 0, the children
/// of a node are contiguous and appear in their subproblem order, every child's <see cref="TaskTreeNode.Parent"/>
/// and <see cref="TaskTreeNode.Depth"/> agree with its parent, a leaf has no merge, times are not negative.</para>
/// <para>Runs started inside a node's split or merge are <see cref="NestedRuns"/>, trees of their own attached to that
/// node and phase (see <see cref="TaskTreeNestedRun"/>).</para>
/// <para>Create one with <see cref="TaskTreeRecorder.ToTree"/>, <see cref="TaskTreeFile.Read(string)"/>, or
/// <see cref="FromShape"/> (synthetic trees for tests and models).</para>
/// </remarks>
public sealed class TaskTree
{
    private readonly TaskTreeNode[] _nodes;

    /// <summary>Creates a tree from nodes already in breadth-first order.</summary>
    /// <param name="nodes">The nodes (at least one).</param>
    /// <param name="properties">How the tree was recorded (keys and values non-null); may be empty.</param>
    /// <exception cref="ArgumentException">The nodes break an invariant; the message names the node.</exception>
    public TaskTree(IEnumerable<TaskTreeNode> nodes, IReadOnlyDictionary<string, string>? properties = null)
    {
        ArgumentNullException.ThrowIfNull(nodes);
        _nodes = [.. nodes];
        Validate(_nodes);
        Nodes = new ReadOnlyCollection<TaskTreeNode>(_nodes);
        Properties = new ReadOnlyDictionary<string, string>(
            new SortedDictionary<string, string>(properties?.ToDictionary() ?? [], StringComparer.Ordinal));
        long end = 0;
        long work = 0;
        foreach (var node in _nodes)
        {
            end = Math.Max(end, node.IsLeaf ? node.Start + node.Work : node.MergeStart + node.MergeWork);
            work += node.Work + node.MergeWork;
        }

        Elapsed = end;
        TotalWork = work;
        WorkerCount = _nodes.Max(n => Math.Max(n.Worker, n.MergeWorker)) + 1;
        NestedRuns = [];
    }

    private TaskTree(TaskTree tree, TaskTreeNestedRun[] nestedRuns)
    {
        _nodes = tree._nodes;
        Nodes = tree.Nodes;
        Properties = tree.Properties;
        Elapsed = tree.Elapsed;
        NestedRuns = new ReadOnlyCollection<TaskTreeNestedRun>(nestedRuns);
        TotalWork = tree.TotalWork + nestedRuns.Sum(r => r.Tree.TotalWork);
        WorkerCount = Math.Max(tree.WorkerCount, nestedRuns.Length == 0 ? 0 : nestedRuns.Max(r => r.Tree.WorkerCount));
    }

    /// <summary>The nodes in breadth-first order (root first).</summary>
    public IReadOnlyList<TaskTreeNode> Nodes { get; }

    /// <summary>How the tree was recorded (sorted by key).</summary>
    public IReadOnlyDictionary<string, string> Properties { get; }

    /// <summary>From the root's start to the end of the last phase, ns: the run's recorded duration (phases only).</summary>
    public long Elapsed { get; }

    /// <summary>The sum of every phase's duration, ns: the run's work, that of its nested runs included.</summary>
    public long TotalWork { get; }

    /// <summary>The number of distinct workers the phases ran on (nested runs included).</summary>
    public int WorkerCount { get; }

    /// <summary>
    /// The runs started inside this tree's splits and merges, ordered by host node, then phase (split first), then
    /// the order they ran in; empty for a tree without any (and for every tree read from a version 1 or 2 file).
    /// </summary>
    public IReadOnlyList<TaskTreeNestedRun> NestedRuns { get; }

    /// <summary>The nodes of this tree and of all its nested runs, recursively.</summary>
    public long TotalNodeCount => _nodes.Length + NestedRuns.Sum(r => r.Tree.TotalNodeCount);

    /// <summary>
    /// This tree with <paramref name="nestedRuns"/> attached (replacing any it had), ordered by host node and phase
    /// (runs of the same node and phase keep their order).
    /// </summary>
    /// <param name="nestedRuns">The runs; each names an internal node of this tree and its split or merge.</param>
    /// <returns>The new tree (this one is unchanged).</returns>
    /// <exception cref="ArgumentException">
    /// A run names no internal node, a phase other than split or merge, a negative <see cref="TaskTreeNestedRun.WorkBefore"/>,
    /// or the runs of one phase claim more own work before them than the phase's duration.
    /// </exception>
    public TaskTree WithNestedRuns(IEnumerable<TaskTreeNestedRun> nestedRuns)
    {
        ArgumentNullException.ThrowIfNull(nestedRuns);
        var runs = nestedRuns.Select((r, i) => (Run: r ?? throw new ArgumentException($"Nested run {i} is null.", nameof(nestedRuns)), Index: i))
            .OrderBy(x => x.Run.Node).ThenBy(x => x.Run.Phase == DivideAndConquerPhase.Merge).ThenBy(x => x.Index)
            .Select(x => x.Run).ToArray();
        var claimed = new Dictionary<(int, DivideAndConquerPhase), long>();
        foreach (var run in runs)
        {
            string where = string.Create(CultureInfo.InvariantCulture, $"The nested run of node {run.Node} ({run.Phase})");
            if (run.Node < 0 || run.Node >= _nodes.Length || _nodes[run.Node].IsLeaf)
            {
                throw new ArgumentException($"{where} names no internal node of this {_nodes.Length}-node tree.", nameof(nestedRuns));
            }

            if (run.Phase is not (DivideAndConquerPhase.Split or DivideAndConquerPhase.Merge))
            {
                throw new ArgumentException($"{where}: only a split or a merge can start nested runs.", nameof(nestedRuns));
            }

            if (run.WorkBefore < 0 || run.Tree is null)
            {
                throw new ArgumentException($"{where} has a negative work before it ({run.WorkBefore}) or no tree.", nameof(nestedRuns));
            }

            var key = (run.Node, run.Phase);
            claimed.TryGetValue(key, out long total);
            total += run.WorkBefore;
            claimed[key] = total;
            long phase = run.Phase == DivideAndConquerPhase.Split ? _nodes[run.Node].Work : _nodes[run.Node].MergeWork;
            if (total > phase)
            {
                throw new ArgumentException($"{where}: the own work before its runs ({total} ns) exceeds the phase's {phase} ns.", nameof(nestedRuns));
            }
        }

        return new TaskTree(this, runs);
    }

    /// <summary>The number of leaves.</summary>
    public int LeafCount => _nodes.Count(n => n.IsLeaf);

    /// <summary>The value of a property, or <see langword="null"/>.</summary>
    /// <param name="key">The key.</param>
    /// <returns>The value.</returns>
    public string? Property(string key) => Properties.TryGetValue(key, out string? value) ? value : null;

    /// <summary>
    /// Combines recordings of the same run repeated: every node's split / execute and merge durations become their
    /// median over <paramref name="trees"/>, which removes one-off outliers (a preempted leaf, a collection pause).
    /// Starts, workers and properties are those of the first tree.
    /// </summary>
    /// <param name="trees">Trees of identical shape (same breadth-first child counts), at least one.</param>
    /// <returns>The combined tree.</returns>
    /// <exception cref="ArgumentException">No trees, or their shapes differ (the message names the first difference).</exception>
    public static TaskTree Median(IReadOnlyList<TaskTree> trees)
    {
        ArgumentNullException.ThrowIfNull(trees);
        if (trees.Count == 0)
        {
            throw new ArgumentException("At least one tree is needed.", nameof(trees));
        }

        var first = trees[0]._nodes;
        foreach (var other in trees.Skip(1))
        {
            if (other._nodes.Length != first.Length)
            {
                throw new ArgumentException($"The trees differ in shape: {first.Length} and {other._nodes.Length} nodes.", nameof(trees));
            }

            for (int i = 0; i < first.Length; i++)
            {
                if (other._nodes[i].ChildCount != first[i].ChildCount)
                {
                    throw new ArgumentException($"The trees differ in shape at node {i}.", nameof(trees));
                }
            }
        }

        var nodes = new TaskTreeNode[first.Length];
        var work = new long[trees.Count];
        var merge = new long[trees.Count];
        for (int i = 0; i < nodes.Length; i++)
        {
            for (int t = 0; t < trees.Count; t++)
            {
                work[t] = trees[t]._nodes[i].Work;
                merge[t] = trees[t]._nodes[i].MergeWork;
            }

            Array.Sort(work);
            Array.Sort(merge);
            // The lower median for an even count: a real recorded value, never an average of two.
            nodes[i] = first[i] with { Work = work[(work.Length - 1) / 2], MergeWork = merge[(merge.Length - 1) / 2] };
        }

        var median = new TaskTree(nodes, trees[0].Properties);
        return median.WithNestedRuns(MedianNestedRuns(trees, median._nodes));
    }

    /// <summary>
    /// The nested runs of repeated recordings combined: when every tree has the same runs (hosts, phases and shapes),
    /// each run's work before it and tree become their medians; otherwise those of the first tree. The host phases'
    /// durations are medians on their own, so a combination that claims more work before the runs than the median
    /// phase has is cut to fit.
    /// </summary>
    private static List<TaskTreeNestedRun> MedianNestedRuns(IReadOnlyList<TaskTree> trees, TaskTreeNode[] nodes)
    {
        var first = trees[0].NestedRuns;
        bool same = trees.All(t => t.NestedRuns.Count == first.Count
            && t.NestedRuns.Select((r, i) => r.Node == first[i].Node && r.Phase == first[i].Phase).All(x => x));
        var result = new List<TaskTreeNestedRun>(first.Count);
        var left = new Dictionary<(int, DivideAndConquerPhase), long>();
        for (int i = 0; i < first.Count; i++)
        {
            var run = first[i];
            if (same)
            {
                try
                {
                    var befores = trees.Select(t => t.NestedRuns[i].WorkBefore).OrderBy(w => w).ToArray();
                    run = run with { WorkBefore = befores[(befores.Length - 1) / 2], Tree = Median([.. trees.Select(t => t.NestedRuns[i].Tree)]) };
                }
                catch (ArgumentException)
                {
                    // The nested trees differ in shape: keep the first recording's run.
                }
            }

            var key = (run.Node, run.Phase);
            if (!left.TryGetValue(key, out long remaining))
            {
                remaining = run.Phase == DivideAndConquerPhase.Split ? nodes[run.Node].Work : nodes[run.Node].MergeWork;
            }

            long before = Math.Min(run.WorkBefore, remaining);
            left[key] = remaining - before;
            result.Add(run with { WorkBefore = before });
        }

        return result;
    }

    /// <summary>
    /// A synthetic tree: every internal node splits into <paramref name="branching"/> children down to
    /// <paramref name="depth"/>, with the given phase durations (all on worker 0, started back to back as one worker
    /// would run them depth-first). For tests and analytic models.
    /// </summary>
    /// <param name="branching">Children per internal node, at least 1.</param>
    /// <param name="depth">Depth of the leaves, at least 0.</param>
    /// <param name="execute">Leaf duration, ns (at least 0).</param>
    /// <param name="split">Split duration, ns (at least 0).</param>
    /// <param name="merge">Merge duration, ns (at least 0).</param>
    /// <returns>The tree.</returns>
    /// <exception cref="ArgumentOutOfRangeException">An argument is out of range.</exception>
    public static TaskTree FromShape(int branching, int depth, long execute, long split = 0, long merge = 0)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(branching, 1);
        ArgumentOutOfRangeException.ThrowIfNegative(depth);
        ArgumentOutOfRangeException.ThrowIfNegative(execute);
        ArgumentOutOfRangeException.ThrowIfNegative(split);
        ArgumentOutOfRangeException.ThrowIfNegative(merge);
        if (Math.Pow(branching, depth + 1) > 1 << 24)
        {
            throw new ArgumentOutOfRangeException(nameof(depth), depth, $"A {branching}-ary tree of depth {depth} is too large for a synthetic tree.");
        }

        var shape = new List<(int Parent, int Depth)> { (-1, 0) };
        var childCounts = new List<int>();
        for (int i = 0; i < shape.Count; i++)
        {
            int d = shape[i].Depth;
            int children = d < depth ? branching : 0;
            childCounts.Add(children);
            for (int c = 0; c < children; c++)
            {
                shape.Add((i, d + 1));
            }
        }

        return FromChildCounts(childCounts, i => childCounts[i] == 0 ? execute : split, i => childCounts[i] == 0 ? 0 : merge, new Dictionary<string, string>
        {
            ["program"] = string.Create(CultureInfo.InvariantCulture, $"synthetic-{branching}^{depth}"),
        });
    }

    /// <summary>
    /// Builds a tree from breadth-first child counts and per-node durations; starts are those of one worker running
    /// the tree depth-first (children in order), which is what a one-worker LIFO scheduler does.
    /// </summary>
    /// <param name="childCounts">Child count per node, breadth-first.</param>
    /// <param name="work">Split (internal) or execute (leaf) duration of node i, ns.</param>
    /// <param name="merge">Merge duration of node i, ns (ignored for leaves).</param>
    /// <param name="properties">Properties.</param>
    /// <returns>The tree.</returns>
    /// <exception cref="ArgumentException">The counts do not describe one tree.</exception>
    public static TaskTree FromChildCounts(IReadOnlyList<int> childCounts, Func<int, long> work, Func<int, long> merge, IReadOnlyDictionary<string, string>? properties = null)
    {
        ArgumentNullException.ThrowIfNull(childCounts);
        ArgumentNullException.ThrowIfNull(work);
        ArgumentNullException.ThrowIfNull(merge);
        var nodes = Structure(childCounts);
        // One worker, depth-first: a node's split, then each child's subtree in order, then its merge.
        long clock = 0;
        Visit(0);
        return new TaskTree(nodes, properties);

        void Visit(int i)
        {
            var n = nodes[i];
            long w = work(i);
            n = n with { Start = clock, Work = w };
            clock += w;
            for (int c = 0; c < n.ChildCount; c++)
            {
                Visit(n.FirstChild + c);
            }

            if (!n.IsLeaf)
            {
                long m = merge(i);
                n = n with { MergeStart = clock, MergeWork = m, MergeWorker = 0 };
                clock += m;
            }

            nodes[i] = n;
        }
    }

    /// <summary>Parents, depths and child ranges from breadth-first child counts (times zero, worker 0).</summary>
    /// <param name="childCounts">Child count per node.</param>
    /// <returns>The nodes.</returns>
    /// <exception cref="ArgumentException">The counts do not describe one tree.</exception>
    internal static TaskTreeNode[] Structure(IReadOnlyList<int> childCounts)
    {
        int n = childCounts.Count;
        if (n == 0)
        {
            throw new ArgumentException("A task tree has at least one node.", nameof(childCounts));
        }

        var nodes = new TaskTreeNode[n];
        nodes[0] = new TaskTreeNode(-1, 0, 0, 0, 0, 0, -1, 0, 0, -1);
        int next = 1;
        for (int i = 0; i < n; i++)
        {
            int count = childCounts[i];
            if (count < 0 || count > n - next)
            {
                throw new ArgumentException($"Node {i} claims {count} children but only {n - next} nodes remain.", nameof(childCounts));
            }

            if (i >= next)
            {
                throw new ArgumentException($"Node {i} is not the child of any earlier node.", nameof(childCounts));
            }

            nodes[i] = nodes[i] with { FirstChild = count == 0 ? n : next, ChildCount = count, MergeStart = count == 0 ? -1 : 0, MergeWorker = count == 0 ? -1 : 0 };
            for (int c = 0; c < count; c++)
            {
                nodes[next + c] = new TaskTreeNode(i, 0, 0, nodes[i].Depth + 1, 0, 0, -1, 0, 0, -1);
            }

            next += count;
        }

        if (next != n)
        {
            throw new ArgumentException($"The child counts describe {next} nodes, not {n}.", nameof(childCounts));
        }

        return nodes;
    }

    private static void Validate(TaskTreeNode[] nodes)
    {
        if (nodes.Length == 0)
        {
            throw new ArgumentException("A task tree has at least one node.", nameof(nodes));
        }

        if (nodes[0].Parent != -1 || nodes[0].Depth != 0)
        {
            throw new ArgumentException("Node 0 must be the root (parent -1, depth 0).", nameof(nodes));
        }

        int next = 1;
        for (int i = 0; i < nodes.Length; i++)
        {
            var node = nodes[i];
            string where = string.Create(CultureInfo.InvariantCulture, $"Node {i}");
            if (node.Start < 0 || node.Work < 0 || node.MergeWork < 0 || node.Worker < 0 || node.Cpu < -1 || node.MergeCpu < -1)
            {
                throw new ArgumentException($"{where} has a negative time, worker or CPU.", nameof(nodes));
            }

            if (node.IsLeaf)
            {
                if (node.MergeStart != -1 || node.MergeWork != 0 || node.MergeWorker != -1 || node.MergeCpu != -1)
                {
                    throw new ArgumentException($"{where} is a leaf but has a merge.", nameof(nodes));
                }

                continue;
            }

            if (node.FirstChild != next || node.ChildCount > nodes.Length - next)
            {
                throw new ArgumentException($"{where}: children must follow breadth-first at {next}, found {node.FirstChild} (+{node.ChildCount}).", nameof(nodes));
            }

            if (node.MergeStart < 0 || node.MergeWorker < 0)
            {
                throw new ArgumentException($"{where} is internal but has no merge.", nameof(nodes));
            }

            for (int c = next; c < next + node.ChildCount; c++)
            {
                if (nodes[c].Parent != i || nodes[c].Depth != node.Depth + 1)
                {
                    throw new ArgumentException($"Node {c} must be a child of node {i} at depth {node.Depth + 1}.", nameof(nodes));
                }
            }

            next += node.ChildCount;
        }

        if (next != nodes.Length)
        {
            throw new ArgumentException($"Only {next} of {nodes.Length} nodes are reachable from the root.", nameof(nodes));
        }
    }
}
