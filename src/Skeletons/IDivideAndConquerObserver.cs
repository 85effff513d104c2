namespace DivCon.Skeletons;

/// <summary>
/// Receives the duration of every split, execute and merge of a run, so a run can be profiled by phase and by
/// recursion depth without changing the program. Set it through <see cref="DivideAndConquerOptions.Observer"/>.
/// </summary>
/// <remarks>
/// <para>
/// The engines call <see cref="OnPhase"/> from the task that ran the phase, so calls arrive concurrently from
/// many threads: implementations must be thread-safe and cheap (<see cref="PhaseAggregator"/> uses only
/// interlocked additions). An exception thrown by the observer fails the run like an exception of the program.
/// </para>
/// <para>
/// When no observer is set the engines read the clock only for the time-based granularity: a pair of reads per
/// node that runs as a task and per subtree that runs inline, never per inline node. With an observer, every phase
/// of every node is timed and reported, inline nodes included (which makes inline subtrees slower to run and to
/// measure, so an observed run may choose more tasks than an unobserved one).
/// Node identities (see <c>ReportsNodes</c>) are numbered only for an observer that asks for them, so
/// observers that do not pay nothing for them.
/// </para>
/// <para>
/// <c>OnNodesRun</c>, <c>ReportsNodes</c> and <c>OnNodePhase</c> are default interface members, which
/// netstandard2.0 (.NET Framework, Mono) cannot declare: the netstandard2.0 build of this interface has only
/// <see cref="OnPhase"/>, and there only the library's own observers (<see cref="PhaseAggregator"/>,
/// <see cref="Tracing.TaskTreeRecorder"/>) receive node counts and node identities.
/// </para>
/// </remarks>
public interface IDivideAndConquerObserver
{
    /// <summary>Reports that one phase of one node finished.</summary>
    /// <param name="phase">The phase that finished.</param>
    /// <param name="depth">The depth of the node (the root is at depth 0).</param>
    /// <param name="elapsedTicks">
    /// The time the phase took, in <see cref="System.Diagnostics.Stopwatch"/> ticks (see
    /// <see cref="System.Diagnostics.Stopwatch.Frequency"/>). For an asynchronous split or merge this is the time
    /// from the call until its <see cref="ValueTask{TResult}"/> completed.
    /// </param>
    void OnPhase(DivideAndConquerPhase phase, int depth, long elapsedTicks);

#if NETCOREAPP
    // Default interface members need runtime support that netstandard2.0 lacks: that build declares only OnPhase
    // (see Engines/OptionalObserverMembers.cs for how the engines reach these members there).

    /// <summary>
    /// Reports, once per run just before its task completes, how many nodes (problems: internal nodes and leaves)
    /// ran as a task of their own and how many ran inline inside another node's task (serial elision, see
    /// <see cref="Granularity"/>). In a run that completed, the two add up to the nodes of the tree; in a run that
    /// stopped early they count the nodes that started. Default: ignores them.
    /// </summary>
    /// <param name="taskNodes">Nodes that ran as their own task.</param>
    /// <param name="inlineNodes">Nodes that ran inline.</param>
    void OnNodesRun(long taskNodes, long inlineNodes)
    {
    }

    /// <summary>
    /// Whether the engines should number the nodes of a run and call <see cref="OnNodePhase"/> after each
    /// <see cref="OnPhase"/>. Read once per run, when the run starts. Default: <see langword="false"/> (no numbering,
    /// no extra call), so existing observers are unaffected.
    /// </summary>
    bool ReportsNodes => false;

    /// <summary>
    /// Reports that one phase of one node finished, with the node's identity, its parent, when it started and on
    /// which thread and CPU it ran: what is needed to rebuild the run's task tree (see
    /// <see cref="Tracing.TaskTreeRecorder"/>). Called only when <see cref="ReportsNodes"/> is <see langword="true"/>,
    /// right after <see cref="OnPhase"/> for the same phase, from the same thread; the same thread-safety rules apply.
    /// Inline nodes (serial elision) are numbered and reported like task nodes.
    /// </summary>
    /// <param name="phaseEvent">The finished phase.</param>
    void OnNodePhase(in NodePhaseEvent phaseEvent)
    {
    }
#endif
}
