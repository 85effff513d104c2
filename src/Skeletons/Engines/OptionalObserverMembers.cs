namespace DivCon.Skeletons.Engines;

/// <summary>
/// The optional members of <see cref="IDivideAndConquerObserver"/> (node counts, node identities) as the engines
/// call them. On .NET they are default interface members, so every observer has them. netstandard2.0 has no default
/// interface members: there the interface carries only <see cref="IDivideAndConquerObserver.OnPhase"/>, and the
/// optional members reach the engines only from the library's own observers (<see cref="PhaseAggregator"/>,
/// <see cref="Tracing.TaskTreeRecorder"/>), which implement <c>ILegacyOptionalObserver</c> on that target; any other
/// observer there behaves as the defaults do (no node numbering, counts ignored).
/// </summary>
internal static class OptionalObserverMembers
{
    /// <summary>The observer's <c>ReportsNodes</c>, or false where it has none.</summary>
    public static bool ReportsNodes(IDivideAndConquerObserver observer) =>
#if NETCOREAPP
        observer.ReportsNodes;
#else
        observer is ILegacyOptionalObserver optional && optional.ReportsNodes;
#endif

    /// <summary>Calls the observer's <c>OnNodePhase</c> where it has one.</summary>
    public static void OnNodePhase(IDivideAndConquerObserver observer, in NodePhaseEvent phaseEvent)
    {
#if NETCOREAPP
        observer.OnNodePhase(phaseEvent);
#else
        if (observer is ILegacyOptionalObserver optional)
        {
            optional.OnNodePhase(phaseEvent);
        }
#endif
    }

    /// <summary>Calls the observer's <c>OnNodesRun</c> where it has one.</summary>
    public static void OnNodesRun(IDivideAndConquerObserver observer, long taskNodes, long inlineNodes)
    {
#if NETCOREAPP
        observer.OnNodesRun(taskNodes, inlineNodes);
#else
        if (observer is ILegacyOptionalObserver optional)
        {
            optional.OnNodesRun(taskNodes, inlineNodes);
        }
#endif
    }
}

#if !NETCOREAPP
/// <summary>
/// netstandard2.0 only: the optional observer members that .NET declares as default members of
/// <see cref="IDivideAndConquerObserver"/>, implemented by the library's own observers.
/// </summary>
internal interface ILegacyOptionalObserver
{
    /// <summary>See <c>IDivideAndConquerObserver.OnNodesRun</c> on .NET.</summary>
    void OnNodesRun(long taskNodes, long inlineNodes);

    /// <summary>See <c>IDivideAndConquerObserver.ReportsNodes</c> on .NET.</summary>
    bool ReportsNodes { get; }

    /// <summary>See <c>IDivideAndConquerObserver.OnNodePhase</c> on .NET.</summary>
    void OnNodePhase(in NodePhaseEvent phaseEvent);
}
#endif
