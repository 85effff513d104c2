using System.Globalization;
using DivCon.Skeletons.Tracing;

namespace DivCon.Simulator.Workloads;

/// <summary>
/// A smaller problem of a recorded program: the subtree of its recorded divide-and-conquer tree below one node. A
/// divide-and-conquer program's subtree is that same program solving one of its subproblems (the recursive call on
/// it), with the same code, cut-off and granularity, so replaying it is replaying the program on a smaller input.
/// </summary>
/// <remarks>
/// <para>A node is named by a <i>path</i>: one number in [0, 1) per level, which picks child
/// <c>floor(u x childCount)</c> of the node reached so far (a leaf ends the walk early). The same path names
/// corresponding subproblems in the trees recorded for different core counts (their upper levels are the same
/// recursion), so a generated mix means the same programs at 16 and at 64 cores.</para>
/// <para>What a depth means: at depth d the subproblem is about 1/2^d of the input for the binary programs (sum of
/// squares and pi: a range of n/2^d; mergesort: an array of n/2^d; quicksort: the subarray its pivots left there,
/// n/2^d on average) and, for Strassen, one of the 7^d products of matrices of side n/2^d (about 1/7^d of the
/// work). Against a real run on that smaller input, one thing differs: the recorded granularity was sized for the
/// whole input (at least 4 leaves per core), so a subtree has 1/2^d (1/7^d) of the leaves a fresh run on the small
/// input would cut; it is the small problem with the large problem's leaves, which understates its parallelism on
/// many cores. Nested runs (the sweeps of the sorts' and Strassen's splits and merges) below the node go with it.</para>
/// </remarks>
public static class Subproblem
{
    /// <summary>The node a path leads to, and how many levels it went down.</summary>
    /// <param name="tree">The tree.</param>
    /// <param name="path">One number in [0, 1) per level.</param>
    /// <returns>The node index and the depth reached (less than the path's length when a leaf came first).</returns>
    /// <exception cref="ArgumentOutOfRangeException">A number of the path is outside [0, 1).</exception>
    public static (int Node, int Depth) Find(TaskTree tree, IReadOnlyList<double> path)
    {
        ArgumentNullException.ThrowIfNull(tree);
        ArgumentNullException.ThrowIfNull(path);
        int node = 0;
        int depth = 0;
        foreach (double u in path)
        {
            if (!(u >= 0 && u < 1))
            {
                throw new ArgumentOutOfRangeException(nameof(path), u, "Every step of a path must be in [0, 1).");
            }

            var n = tree.Nodes[node];
            if (n.IsLeaf)
            {
                break;
            }

            node = n.FirstChild + Math.Min(n.ChildCount - 1, (int)(u * n.ChildCount));
            depth++;
        }

        return (node, depth);
    }

    /// <summary>The subtree a path leads to, as a tree of its own (the whole tree for an empty path).</summary>
    /// <param name="tree">The tree.</param>
    /// <param name="path">One number in [0, 1) per level.</param>
    /// <returns>The subtree, with its nested runs; its properties add <c>subproblem</c> (the node) and <c>subproblem-depth</c>.</returns>
    public static TaskTree Of(TaskTree tree, IReadOnlyList<double> path)
    {
        var (root, depth) = Find(tree, path);
        return root == 0 ? tree : Below(tree, root, depth);
    }

    /// <summary>The subtree rooted at <paramref name="root"/>, renumbered breadth-first, with the nested runs of its nodes.</summary>
    private static TaskTree Below(TaskTree tree, int root, int depth)
    {
        var nodes = tree.Nodes;
        // Breadth-first from the root: a node's children are contiguous in the old order and stay so in the new.
        var order = new List<int> { root };
        var index = new Dictionary<int, int> { [root] = 0 };
        for (int i = 0; i < order.Count; i++)
        {
            var n = nodes[order[i]];
            for (int c = 0; c < n.ChildCount; c++)
            {
                index[n.FirstChild + c] = order.Count;
                order.Add(n.FirstChild + c);
            }
        }

        int baseDepth = nodes[root].Depth;
        var result = new TaskTreeNode[order.Count];
        for (int i = 0; i < order.Count; i++)
        {
            var n = nodes[order[i]];
            result[i] = n with
            {
                Parent = i == 0 ? -1 : index[n.Parent],
                FirstChild = n.IsLeaf ? order.Count : index[n.FirstChild],
                Depth = n.Depth - baseDepth,
            };
        }

        var properties = tree.Properties.ToDictionary(StringComparer.Ordinal);
        properties["subproblem"] = root.ToString(CultureInfo.InvariantCulture);
        properties["subproblem-depth"] = depth.ToString(CultureInfo.InvariantCulture);
        var sub = new TaskTree(result, properties);
        var nested = tree.NestedRuns.Where(r => index.ContainsKey(r.Node)).Select(r => r with { Node = index[r.Node] }).ToList();
        return nested.Count == 0 ? sub : sub.WithNestedRuns(nested);
    }
}
