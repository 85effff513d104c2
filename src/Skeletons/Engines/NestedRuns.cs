namespace DivCon.Skeletons.Engines;

/// <summary>
/// An observer that records nested runs: runs started, without an observer of their own, from inside one of its
/// nodes' split or merge (see <see cref="NestedRuns"/>). Internal: the library's <see cref="Tracing.TaskTreeRecorder"/> is the only one.
/// </summary>
internal interface INestedRunHost
{
    /// <summary>
    /// Called when a run without an observer starts inside the <paramref name="phase"/> of node
    /// <paramref name="nodeId"/> of the run this host observes; returns the observer that records the nested run.
    /// </summary>
    /// <param name="nodeId">The host node's number in the host's run.</param>
    /// <param name="phase">The host node's phase (split or merge).</param>
    /// <returns>The nested run's observer (it reports nodes, and is itself a host).</returns>
    IDivideAndConquerObserver BeginNestedRun(int nodeId, DivideAndConquerPhase phase);
}

/// <summary>
/// The ambient "recorded node whose split or merge is running": the engines set it around a recorded run's calls of
/// the program's split and merge, and a run that starts with no observer of its own reads it once, when it starts,
/// and if set is recorded as a nested run of that node and phase.
/// </summary>
/// <remarks>
/// <para>An <see cref="AsyncLocal{T}"/>, because an asynchronous split typically starts its nested runs from a
/// continuation (after awaiting the previous one), on whatever thread the scheduler picks; the ExecutionContext carries
/// the value there. The engines' own tasks (<c>Task.Factory.StartNew</c>, <c>ContinueWith</c>) capture the context when
/// they are created, and the engines create them after restoring the value, so the host run's children and the
/// continuation that ends the phase never see it.</para>
/// <para>Cost: a run with an observer that does not record nested runs, or with none, never writes it; every run reads
/// it once when it starts (an unset AsyncLocal: a few nanoseconds).</para>
/// </remarks>
internal static class NestedRuns
{
    private static readonly AsyncLocal<Site?> s_current = new();

    /// <summary>
    /// The observer for a run starting now with no observer of its own: a nested run's recorder when the current
    /// context is inside a recorded node's split or merge, else <see langword="null"/>.
    /// </summary>
    public static IDivideAndConquerObserver? ObserverForNewRun() =>
        s_current.Value is { } site ? site.Host.BeginNestedRun(site.NodeId, site.Phase) : null;

    /// <summary>
    /// Makes node <paramref name="nodeId"/>'s <paramref name="phase"/> the ambient host until the returned scope is
    /// disposed; a no-op scope when <paramref name="host"/> is null.
    /// </summary>
    /// <param name="host">The observer of the running run, if it records nested runs.</param>
    /// <param name="nodeId">The node.</param>
    /// <param name="phase">Split or merge.</param>
    /// <returns>The scope; dispose it right after the program's call returns (not when its task completes).</returns>
    public static Scope Enter(INestedRunHost? host, int nodeId, DivideAndConquerPhase phase)
    {
        if (host is null)
        {
            return default;
        }

        var previous = s_current.Value;
        s_current.Value = new Site(host, nodeId, phase);
        return new Scope(previous, entered: true);
    }

    /// <summary>Restores the ambient host that was current before <see cref="Enter"/>.</summary>
    internal readonly struct Scope(Site? previous, bool entered) : IDisposable
    {
        /// <inheritdoc/>
        public void Dispose()
        {
            if (entered)
            {
                s_current.Value = previous;
            }
        }
    }

    /// <summary>A recorded node's phase that nested runs attach to.</summary>
    internal sealed record Site(INestedRunHost Host, int NodeId, DivideAndConquerPhase Phase);
}
