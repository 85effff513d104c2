using System.Diagnostics.Metrics;

namespace DivCon.Skeletons;

/// <summary>
/// The skeletons' instruments on the <c>DivCon.Skeletons</c> <see cref="Meter"/>
/// (<c>dotnet-counters monitor --counters DivCon.Skeletons</c>, OpenTelemetry, a <see cref="MeterListener"/>):
/// <c>divcon.skeleton.runs.started</c>, <c>divcon.skeleton.runs.completed</c> (tag <c>divcon.run.outcome</c>:
/// <c>succeeded</c>, <c>faulted</c> or <c>canceled</c>), <c>divcon.skeleton.nodes</c> (tag
/// <c>divcon.node.kind</c>: <c>task</c> for a node run as its own task, <c>inline</c> for one run inside another
/// node's task) and <c>divcon.skeleton.inline.subtrees</c> (subtrees run depth-first on their parent's thread).
/// </summary>
/// <remarks>
/// Cost: nothing is recorded while no listener has enabled an instrument; each hook then reads one flag
/// (<see cref="Instrument.Enabled"/>). Inline work is added once per inline subtree, never per node: the subtrees
/// always, their nodes only for runs with an observer (the unobserved inline recursion counts nothing, to stay as
/// cheap as a plain recursion). With <see cref="Instrumentation.IsSupported"/> off, the callers skip every hook, so
/// this class (and its meter) is never initialized and the compiled hooks are gone.
/// </remarks>
internal static class SkeletonMetrics
{
    /// <summary>The meter's name.</summary>
    public const string MeterName = "DivCon.Skeletons";

    private static readonly Meter s_meter = new(MeterName, typeof(SkeletonMetrics).Assembly.GetName().Version?.ToString());

    private static readonly Counter<long> s_started =
        s_meter.CreateCounter<long>("divcon.skeleton.runs.started", "{run}", "Divide-and-conquer runs started.");

    private static readonly Counter<long> s_completed =
        s_meter.CreateCounter<long>("divcon.skeleton.runs.completed", "{run}", "Divide-and-conquer runs ended, by outcome.");

    private static readonly Counter<long> s_nodes =
        s_meter.CreateCounter<long>("divcon.skeleton.nodes", "{node}", "Nodes run, as their own task or inline.");

    private static readonly Counter<long> s_subtrees =
        s_meter.CreateCounter<long>("divcon.skeleton.inline.subtrees", "{subtree}", "Subtrees run inline, depth-first on their parent's thread.");

    private static readonly KeyValuePair<string, object?> s_succeeded = new("divcon.run.outcome", "succeeded");
    private static readonly KeyValuePair<string, object?> s_faulted = new("divcon.run.outcome", "faulted");
    private static readonly KeyValuePair<string, object?> s_canceled = new("divcon.run.outcome", "canceled");
    private static readonly KeyValuePair<string, object?> s_task = new("divcon.node.kind", "task");
    private static readonly KeyValuePair<string, object?> s_inline = new("divcon.node.kind", "inline");

    /// <summary>A run started.</summary>
    public static void RunStarted()
    {
        if (s_started.Enabled)
        {
            s_started.Add(1);
        }
    }

    /// <summary>A run ended.</summary>
    /// <param name="stopReason">The run's stop reason: null (succeeded), an exception (faulted), anything else (canceled).</param>
    public static void RunEnded(object? stopReason)
    {
        if (s_completed.Enabled)
        {
            s_completed.Add(1, stopReason switch { null => s_succeeded, Exception => s_faulted, _ => s_canceled });
        }
    }

    /// <summary>A node ran as its own task.</summary>
    public static void TaskNode()
    {
        if (s_nodes.Enabled)
        {
            s_nodes.Add(1, s_task);
        }
    }

    /// <summary>An inline subtree ran.</summary>
    /// <param name="nodes">Its nodes below its root when the run is observed; 0 otherwise (not counted).</param>
    public static void InlineSubtree(long nodes)
    {
        if (s_subtrees.Enabled)
        {
            s_subtrees.Add(1);
        }

        if (nodes > 0 && s_nodes.Enabled)
        {
            s_nodes.Add(nodes, s_inline);
        }
    }
}
