namespace DivCon.Harness.Terminal;

/// <summary>
/// Where an experiment reports progress: named phases with a total, values towards it, and messages.
/// </summary>
/// <remarks>
/// Implementations must be thread-safe: the cyclic runner reports from whichever thread finished a run.
/// A sink never throws back into the experiment for display reasons. Implementations:
/// <see cref="NullProgressSink"/> (tests), <see cref="PlainProgressSink"/> (logs, CI, redirected output) and
/// <see cref="SpectreProgressSink"/> (a live progress display on an interactive terminal); choose with
/// <see cref="ProgressDisplay"/>.
/// </remarks>
public interface IProgressSink
{
    /// <summary>Starts a phase (e.g. "cyclic: shared scheduler").</summary>
    /// <param name="phase">Phase name, the key for the other calls.</param>
    /// <param name="total">The value at which the phase is complete (seconds, runs, steps), positive.</param>
    void BeginPhase(string phase, double total);

    /// <summary>Reports the phase's current value and, optionally, what just happened.</summary>
    /// <param name="phase">Phase name given to <see cref="BeginPhase"/>.</param>
    /// <param name="value">Current value, between 0 and the phase's total.</param>
    /// <param name="message">A short line about the event, or null.</param>
    void Report(string phase, double value, string? message = null);

    /// <summary>Marks the phase finished.</summary>
    /// <param name="phase">Phase name given to <see cref="BeginPhase"/>.</param>
    void EndPhase(string phase);
}
