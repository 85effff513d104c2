using System.Globalization;
using DivCon.Skeletons.Tracing;

namespace DivCon.Simulator.Workloads;

/// <summary>
/// A <b>synthetic</b> program (no recording behind it) whose parallelism changes by phase: a long sequential phase
/// (the root's split, one task), then a wide parallel one (a binary tree of <see cref="Leaves"/> leaves of
/// <see cref="Leaf"/> each, with 1 us splits and merges). It stands for a program that reads or builds its input
/// alone before a parallel computation: one core is all it can use at first, many cores after.
/// </summary>
/// <param name="Sequential">The sequential phase (positive).</param>
/// <param name="Leaves">Leaves of the parallel phase (a power of two from 2 to 2^16).</param>
/// <param name="Leaf">Work of one leaf (positive).</param>
public sealed record PhasedProgram(TimeSpan Sequential, int Leaves, TimeSpan Leaf)
{
    /// <summary>The name programs of this kind have in a mix.</summary>
    public const string Kind = "phased";

    /// <summary>The split and merge work of the parallel phase's internal nodes, ns.</summary>
    public const long InnerNodeNs = 1_000;

    /// <summary>A short label, e.g. <c>phased(seq 0.80s, 256x2.0ms)</c>.</summary>
    public string Label => string.Create(CultureInfo.InvariantCulture, $"{Kind}(seq {Sequential.TotalSeconds:0.00}s, {Leaves}x{Leaf.TotalMilliseconds:0.0}ms)");

    /// <summary>The task tree (breadth-first: the root, whose split is the sequential phase, then the binary tree).</summary>
    /// <returns>The tree.</returns>
    /// <exception cref="ArgumentOutOfRangeException">A parameter is out of range (the message names it).</exception>
    public TaskTree ToTree()
    {
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(Sequential, TimeSpan.Zero, nameof(Sequential));
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(Leaf, TimeSpan.Zero, nameof(Leaf));
        if (Leaves < 2 || Leaves > 1 << 16 || (Leaves & (Leaves - 1)) != 0)
        {
            throw new ArgumentOutOfRangeException(nameof(Leaves), Leaves, "The leaves must be a power of two from 2 to 65536.");
        }

        int internalNodes = Leaves - 1;
        var childCounts = Enumerable.Range(0, internalNodes + Leaves).Select(i => i < internalNodes ? 2 : 0).ToArray();
        long sequential = Sequential.Ticks * 100;
        long leaf = Leaf.Ticks * 100;
        return TaskTree.FromChildCounts(childCounts, i => i == 0 ? sequential : i < internalNodes ? InnerNodeNs : leaf, i => i < internalNodes ? InnerNodeNs : 0,
            new Dictionary<string, string> { ["program"] = Label, ["synthetic"] = "true" });
    }
}
