using System.Collections.Concurrent;
using System.Diagnostics;

namespace DivCon.Skeletons.Tracing;

/// <summary>
/// An <see cref="IDivideAndConquerObserver"/> that records the task tree of one run: every node's parent, depth,
/// split / execute / merge durations, start times and the worker each phase ran on. Attach it to one run, then call
/// <see cref="ToTree"/> after the run's task completed.
/// </summary>
/// <remarks>
/// <para>It asks the engines to number nodes (<see cref="ReportsNodes"/>); other observers do not, so runs without a
/// recorder pay nothing for it. Recording appends one small struct per phase to a lock-free queue; the tree is built
/// afterwards. Use a new recorder (or <see cref="Reset"/>) per run: node numbers restart at 0 with every run.</para>
/// </remarks>
/// <example>
/// <code>
/// var recorder = new TaskTreeRecorder();
/// await program.RunAsync(problem, DivideAndConquerOptions.Default with { Observer = recorder });
/// TaskTree tree = recorder.ToTree(new Dictionary&lt;string, string&gt; { ["program"] = "quicksort" });
/// TaskTreeFile.Write("quicksort.dctree", tree);
/// </code>
/// </example>
public sealed class TaskTreeRecorder : IDivideAndConquerObserver
#if !NETCOREAPP
    , Engines.ILegacyOptionalObserver
#endif
{
    private ConcurrentQueue<NodePhaseEvent> _events = new();

    /// <inheritdoc/>
    public bool ReportsNodes => true;

    /// <summary>The number of phases recorded so far.</summary>
    public int Count => _events.Count;

    /// <inheritdoc/>
    public void OnPhase(DivideAndConquerPhase phase, int depth, long elapsedTicks)
    {
        // Everything is taken from OnNodePhase, which follows.
    }

    /// <inheritdoc/>
    public void OnNodePhase(in NodePhaseEvent phaseEvent) => _events.Enqueue(phaseEvent);

    /// <summary>Forgets everything recorded. Call it between runs, not during one.</summary>
    public void Reset() => _events = new ConcurrentQueue<NodePhaseEvent>();

    /// <summary>
    /// Builds the tree of the recorded run: nodes renumbered breadth-first (children in subproblem order), times
    /// converted to nanoseconds from the root's start, threads numbered 0, 1, ... in the order they first ran a phase.
    /// </summary>
    /// <param name="properties">Properties to store with the tree (program, size, ...); may be null.</param>
    /// <returns>The tree.</returns>
    /// <exception cref="InvalidOperationException">
    /// Nothing was recorded, or the recording is not one complete run (a node misses a phase, or two runs were mixed).
    /// </exception>
    public TaskTree ToTree(IReadOnlyDictionary<string, string>? properties = null)
    {
        NodePhaseEvent[] events = [.. _events];
        if (events.Length == 0)
        {
            throw new InvalidOperationException("Nothing was recorded: attach the recorder to a run (DivideAndConquerOptions.Observer) and wait for it to finish.");
        }

        int count = events.Max(e => e.NodeId) + 1;
        var first = new NodePhaseEvent?[count];   // split or execute
        var merge = new NodePhaseEvent?[count];
        var childLists = new List<(int Index, int Id)>?[count];
        foreach (var e in events)
        {
            if (e.NodeId < 0 || e.ParentId >= e.NodeId)
            {
                throw new InvalidOperationException($"Node {e.NodeId} has parent {e.ParentId}: the recording was not made with node numbering.");
            }

            ref NodePhaseEvent? slot = ref (e.Phase == DivideAndConquerPhase.Merge ? ref merge[e.NodeId] : ref first[e.NodeId]);
            if (slot is not null)
            {
                throw new InvalidOperationException($"Node {e.NodeId} reported {e.Phase} twice: the recorder saw more than one run (call Reset between runs).");
            }

            slot = e;
        }

        long origin = long.MaxValue;
        for (int id = 0; id < count; id++)
        {
            if (first[id] is not { } f)
            {
                throw new InvalidOperationException($"Node {id} never reported its split or execute: the run did not complete (failed or cancelled).");
            }

            if (f.Phase == DivideAndConquerPhase.Split && merge[id] is null)
            {
                throw new InvalidOperationException($"Node {id} split but never merged: the run did not complete (failed or cancelled).");
            }

            origin = Math.Min(origin, f.StartTimestamp);
            if (f.ParentId >= 0)
            {
                (childLists[f.ParentId] ??= []).Add((f.IndexInParent, id));
            }
        }

        // Threads numbered by the first phase each ran (by start time, then node id: deterministic for one recording).
        var threads = new Dictionary<int, int>();
        foreach (var e in events.OrderBy(e => e.StartTimestamp).ThenBy(e => e.NodeId).ThenBy(e => e.Phase))
        {
            threads.TryAdd(e.ThreadId, threads.Count);
        }

        // Breadth-first renumbering: order[k] is the original id of new node k.
        var order = new List<int>(count) { 0 };
        var childCounts = new List<int>(count);
        for (int k = 0; k < order.Count; k++)
        {
            var children = childLists[order[k]];
            if (children is null)
            {
                childCounts.Add(0);
                continue;
            }

            children.Sort();
            childCounts.Add(children.Count);
            foreach (var (_, id) in children)
            {
                order.Add(id);
            }
        }

        if (order.Count != count)
        {
            throw new InvalidOperationException($"Only {order.Count} of {count} nodes hang from the root: the recording mixes runs.");
        }

        var nodes = TaskTree.Structure(childCounts);
        for (int k = 0; k < count; k++)
        {
            var f = first[order[k]]!.Value;
            var n = nodes[k] with
            {
                Start = ToNanoseconds(f.StartTimestamp - origin),
                Work = ToNanoseconds(f.ElapsedTicks),
                Worker = threads[f.ThreadId],
                Cpu = Math.Max(f.ProcessorId, -1),
            };
            if (merge[order[k]] is { } m)
            {
                n = n with { MergeStart = ToNanoseconds(m.StartTimestamp - origin), MergeWork = ToNanoseconds(m.ElapsedTicks), MergeWorker = threads[m.ThreadId], MergeCpu = Math.Max(m.ProcessorId, -1) };
            }

            nodes[k] = n;
        }

        return new TaskTree(nodes, properties);
    }

    /// <summary>Stopwatch ticks to nanoseconds without overflow for any realistic duration.</summary>
    private static long ToNanoseconds(long ticks) => (long)(ticks * (1_000_000_000.0 / Stopwatch.Frequency));

#if !NETCOREAPP
    // netstandard2.0: the default that .NET's interface supplies (see Engines/OptionalObserverMembers.cs).
    void Engines.ILegacyOptionalObserver.OnNodesRun(long taskNodes, long inlineNodes)
    {
    }
#endif
}
