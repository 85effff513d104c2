namespace DivCon.Skeletons;

/// <summary>
/// One finished phase of one node of a run, with the node's identity: what
/// <c>IDivideAndConquerObserver.OnNodePhase</c> receives.
/// </summary>
/// <param name="NodeId">
/// The node's number within its run: 0 for the root, then increasing in the order nodes were created. A parent is
/// always created before its children, so <c>ParentId &lt; NodeId</c>.
/// </param>
/// <param name="ParentId">The parent's <paramref name="NodeId"/>, or -1 for the root.</param>
/// <param name="IndexInParent">The node's position among its parent's subproblems (0 for the root).</param>
/// <param name="Depth">The node's depth (the root is at depth 0).</param>
/// <param name="Phase">The phase that finished.</param>
/// <param name="StartTimestamp">When the phase began, as a <see cref="System.Diagnostics.Stopwatch.GetTimestamp"/> reading.</param>
/// <param name="ElapsedTicks">How long the phase took, in <see cref="System.Diagnostics.Stopwatch"/> ticks.</param>
/// <param name="ThreadId">The managed thread id of the thread that finished the phase.</param>
/// <param name="ProcessorId">
/// The CPU that thread was on when the phase finished (<c>Thread.GetCurrentProcessorId()</c>, a hint the OS may
/// make stale at once); -1 when the platform does not say (always on the netstandard2.0 build).
/// </param>
public readonly record struct NodePhaseEvent(
    int NodeId,
    int ParentId,
    int IndexInParent,
    int Depth,
    DivideAndConquerPhase Phase,
    long StartTimestamp,
    long ElapsedTicks,
    int ThreadId,
    int ProcessorId);
