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
/// When no observer is set the engines do not read the clock at all.
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
}
