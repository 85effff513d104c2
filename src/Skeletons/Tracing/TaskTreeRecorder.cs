using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;

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
/// <para><b>Nested runs.</b> A run started without an observer of its own from inside a recorded node's split or merge
/// (synchronously from the program's split or merge call, or from a continuation of its asynchronous work) is recorded
/// too, as a <see cref="TaskTreeNestedRun"/> of that node and phase; the host phase's duration then counts only its
/// own work, the phase's wall time less the time its nested runs took (see <see cref="ToTree"/>).</para>
/// </remarks>
/// <example>
/// <code>
/// var recorder = new TaskTreeRecorder();
/// await program.RunAsync(problem, DivideAndConquerOptions.Default with { Observer = recorder });
/// TaskTree tree = recorder.ToTree(new Dictionary&lt;string, string&gt; { ["program"] = "quicksort" });
/// TaskTreeFile.Write("quicksort.dctree", tree);
/// </code>
/// </example>
public sealed class TaskTreeRecorder : IDivideAndConquerObserver, Engines.INestedRunHost
#if !NETCOREAPP
    , Engines.ILegacyOptionalObserver
#endif
{
    private RunRecording _root = new();

    /// <inheritdoc/>
    public bool ReportsNodes => true;

    /// <summary>The number of phases recorded so far (those of nested runs included).</summary>
    public int Count => _root.PhaseCount;

    /// <inheritdoc/>
    public void OnPhase(DivideAndConquerPhase phase, int depth, long elapsedTicks)
    {
        // Everything is taken from OnNodePhase, which follows.
    }

    /// <inheritdoc/>
    public void OnNodePhase(in NodePhaseEvent phaseEvent) => _root.OnNodePhase(phaseEvent);

    /// <summary>Forgets everything recorded. Call it between runs, not during one.</summary>
    public void Reset() => _root = new RunRecording();

    /// <inheritdoc/>
    IDivideAndConquerObserver Engines.INestedRunHost.BeginNestedRun(int nodeId, DivideAndConquerPhase phase) => _root.BeginNestedRun(nodeId, phase);

    /// <summary>
    /// Builds the tree of the recorded run: nodes renumbered breadth-first (children in subproblem order), times
    /// converted to nanoseconds from the root's start, threads numbered 0, 1, ... in the order they first ran a phase.
    /// Nested runs become <see cref="TaskTree.NestedRuns"/> (recursively), on the same clock and thread numbering; a
    /// host phase's duration becomes its wall time less the union of its nested runs' spans (from the nested run's
    /// start to its root's end), and each nested run's <see cref="TaskTreeNestedRun.WorkBefore"/> the uncovered time
    /// between the previous run (or the phase's start) and its start.
    /// </summary>
    /// <param name="properties">Properties to store with the tree (program, size, ...); may be null.</param>
    /// <returns>The tree.</returns>
    /// <exception cref="InvalidOperationException">
    /// Nothing was recorded, or the recording is not one complete run (a node misses a phase, or two runs were mixed).
    /// </exception>
    public TaskTree ToTree(IReadOnlyDictionary<string, string>? properties = null)
    {
        NodePhaseEvent[] events = _root.Snapshot();
        if (events.Length == 0)
        {
            throw new InvalidOperationException("Nothing was recorded: attach the recorder to a run (DivideAndConquerOptions.Observer) and wait for it to finish.");
        }

        long origin = events.Min(e => e.StartTimestamp);

        // Threads numbered by the first phase each ran (by start time, then node id: deterministic for one recording),
        // over the run and all its nested runs.
        var threads = new Dictionary<int, int>();
        foreach (var e in _root.AllEvents().OrderBy(e => e.StartTimestamp).ThenBy(e => e.NodeId).ThenBy(e => e.Phase))
        {
            threads.TryAdd(e.ThreadId, threads.Count);
        }

        return Build(_root, events, origin, threads, properties, "The run");
    }

    private static TaskTree Build(RunRecording recording, NodePhaseEvent[] events, long origin, Dictionary<int, int> threads, IReadOnlyDictionary<string, string>? properties, string what)
    {
        int count = events.Max(e => e.NodeId) + 1;
        var first = new NodePhaseEvent?[count];   // split or execute
        var merge = new NodePhaseEvent?[count];
        var childLists = new List<(int Index, int Id)>?[count];
        foreach (var e in events)
        {
            if (e.NodeId < 0 || e.ParentId >= e.NodeId)
            {
                throw new InvalidOperationException($"{what}: node {e.NodeId} has parent {e.ParentId}: the recording was not made with node numbering.");
            }

            ref NodePhaseEvent? slot = ref (e.Phase == DivideAndConquerPhase.Merge ? ref merge[e.NodeId] : ref first[e.NodeId]);
            if (slot is not null)
            {
                throw new InvalidOperationException($"{what}: node {e.NodeId} reported {e.Phase} twice: the recorder saw more than one run (call Reset between runs).");
            }

            slot = e;
        }

        for (int id = 0; id < count; id++)
        {
            if (first[id] is not { } f)
            {
                throw new InvalidOperationException($"{what}: node {id} never reported its split or execute: the run did not complete (failed or cancelled).");
            }

            if (f.Phase == DivideAndConquerPhase.Split && merge[id] is null)
            {
                throw new InvalidOperationException($"{what}: node {id} split but never merged: the run did not complete (failed or cancelled).");
            }

            if (f.ParentId >= 0)
            {
                (childLists[f.ParentId] ??= []).Add((f.IndexInParent, id));
            }
        }

        // Breadth-first renumbering: order[k] is the original id of new node k; index[id] is its new number.
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
            throw new InvalidOperationException($"{what}: only {order.Count} of {count} nodes hang from the root: the recording mixes runs.");
        }

        var index = new int[count];
        for (int k = 0; k < count; k++)
        {
            index[order[k]] = k;
        }

        // Nested runs, grouped by host node and phase, each with its span in Stopwatch ticks.
        var nested = new Dictionary<(int Id, DivideAndConquerPhase Phase), List<(long Start, long End, TaskTree Tree)>>();
        int nestedIndex = 0;
        foreach (var (hostId, phase, child) in recording.NestedRuns())
        {
            var childEvents = child.Snapshot();
            nestedIndex++;
            if (childEvents.Length == 0)
            {
                continue; // Started but reported nothing (it failed at once): no work to attach.
            }

            if (hostId < 0 || hostId >= count)
            {
                throw new InvalidOperationException($"{what}: a nested run names node {hostId}, which the run does not have.");
            }

            var tree = Build(child, childEvents, origin, threads, null, string.Create(CultureInfo.InvariantCulture, $"{what}'s nested run {nestedIndex} (node {hostId}, {phase})"));
            long end = childEvents.Max(e => e.StartTimestamp + e.ElapsedTicks);
            var key = (hostId, phase);
            if (!nested.TryGetValue(key, out var list))
            {
                nested[key] = list = [];
            }

            list.Add((Math.Min(child.StartTimestamp, childEvents.Min(e => e.StartTimestamp)), end, tree));
        }

        var nodes = TaskTree.Structure(childCounts);
        var nestedRuns = new List<TaskTreeNestedRun>();
        for (int k = 0; k < count; k++)
        {
            var f = first[order[k]]!.Value;
            long work = OwnWork(k, f, nestedRuns);
            var n = nodes[k] with
            {
                Start = ToNanoseconds(f.StartTimestamp - origin),
                Work = work,
                Worker = threads[f.ThreadId],
                Cpu = Math.Max(f.ProcessorId, -1),
            };
            if (merge[order[k]] is { } m)
            {
                long mergeWork = OwnWork(k, m, nestedRuns);
                n = n with { MergeStart = ToNanoseconds(m.StartTimestamp - origin), MergeWork = mergeWork, MergeWorker = threads[m.ThreadId], MergeCpu = Math.Max(m.ProcessorId, -1) };
            }

            nodes[k] = n;
        }

        var result = new TaskTree(nodes, properties);
        return nestedRuns.Count == 0 ? result : result.WithNestedRuns(nestedRuns);

        // The phase's own work: its wall time less the union of its nested runs' spans (clipped to the phase). Adds
        // the phase's nested runs, in start order, with the uncovered time before each.
        long OwnWork(int k, NodePhaseEvent phaseEvent, List<TaskTreeNestedRun> runs)
        {
            if (phaseEvent.Phase == DivideAndConquerPhase.Execute || !nested.TryGetValue((phaseEvent.NodeId, phaseEvent.Phase), out var list))
            {
                return ToNanoseconds(phaseEvent.ElapsedTicks);
            }

            list.Sort((a, b) => a.Start.CompareTo(b.Start));
            long phaseStart = phaseEvent.StartTimestamp;
            long phaseEnd = phaseStart + phaseEvent.ElapsedTicks;
            long cursor = phaseStart;
            foreach (var (start, end, tree) in list)
            {
                long s = Math.Min(Math.Max(start, phaseStart), phaseEnd);
                long before = Math.Max(0, s - cursor);
                runs.Add(new TaskTreeNestedRun(k, phaseEvent.Phase, ToNanoseconds(before), tree));
                cursor = Math.Max(cursor, Math.Min(Math.Max(end, phaseStart), phaseEnd));
            }

            // Rounding each piece down keeps the pieces' sum within the phase's own work.
            return ToNanoseconds(phaseEnd - cursor) + runs.Skip(runs.Count - list.Count).Sum(r => r.WorkBefore);
        }
    }

    /// <summary>Stopwatch ticks to nanoseconds without overflow for any realistic duration.</summary>
    private static long ToNanoseconds(long ticks) => (long)(ticks * (1_000_000_000.0 / Stopwatch.Frequency));

#if !NETCOREAPP
    // netstandard2.0: the default that .NET's interface supplies (see Engines/OptionalObserverMembers.cs).
    void Engines.ILegacyOptionalObserver.OnNodesRun(long taskNodes, long inlineNodes)
    {
    }
#endif

    /// <summary>
    /// The phases of one run (the recorded run or a nested one) and the runs nested in it; the observer of a nested
    /// run. Thread-safe: phases and nested runs arrive from every worker.
    /// </summary>
    private sealed class RunRecording : IDivideAndConquerObserver, Engines.INestedRunHost
#if !NETCOREAPP
        , Engines.ILegacyOptionalObserver
#endif
    {
        private readonly ConcurrentQueue<NodePhaseEvent> _events = new();
        private readonly ConcurrentQueue<(int NodeId, DivideAndConquerPhase Phase, RunRecording Run)> _nested = new();

        /// <summary>When the run was started (a nested run: when it was created, before its root was queued).</summary>
        public long StartTimestamp { get; } = Stopwatch.GetTimestamp();

        public bool ReportsNodes => true;

        public int PhaseCount => _events.Count + _nested.Sum(n => n.Run.PhaseCount);

        public void OnPhase(DivideAndConquerPhase phase, int depth, long elapsedTicks)
        {
        }

        public void OnNodePhase(in NodePhaseEvent phaseEvent) => _events.Enqueue(phaseEvent);

        public IDivideAndConquerObserver BeginNestedRun(int nodeId, DivideAndConquerPhase phase)
        {
            var run = new RunRecording();
            _nested.Enqueue((nodeId, phase, run));
            return run;
        }

        public NodePhaseEvent[] Snapshot() => [.. _events];

        public ConcurrentQueue<(int NodeId, DivideAndConquerPhase Phase, RunRecording Run)> NestedRuns() => _nested;

        public IEnumerable<NodePhaseEvent> AllEvents() => _events.Concat(_nested.SelectMany(n => n.Run.AllEvents()));

#if !NETCOREAPP
        void Engines.ILegacyOptionalObserver.OnNodesRun(long taskNodes, long inlineNodes)
        {
        }
#endif
    }
}
