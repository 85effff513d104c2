namespace DivCon.Harness.Measurement;

/// <summary>
/// Where an experiment reports progress: named phases with a total, values towards it, and messages.
/// </summary>
/// <remarks>
/// Implementations must be thread-safe: the cyclic runner reports from whichever thread finished a run.
/// A sink never throws back into the experiment for display reasons. Implementations:
/// <see cref="NullProgressSink"/> (tests), <c>PlainProgressSink</c> (logs, CI, redirected output) and
/// <c>SpectreProgressSink</c> (a live progress display on an interactive terminal); choose with
/// <c>ProgressDisplay</c>.
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

/// <summary>A progress sink that ignores everything.</summary>
public sealed class NullProgressSink : IProgressSink
{
    private NullProgressSink()
    {
    }

    /// <summary>The single instance.</summary>
    public static NullProgressSink Instance { get; } = new();

    /// <inheritdoc/>
    public void BeginPhase(string phase, double total)
    {
    }

    /// <inheritdoc/>
    public void Report(string phase, double value, string? message = null)
    {
    }

    /// <inheritdoc/>
    public void EndPhase(string phase)
    {
    }
}

/// <summary>Forwards to another sink with every phase name prefixed (e.g. by the scheme: "shared: cyclic ...").</summary>
public sealed class PrefixedProgressSink : IProgressSink
{
    private readonly string _prefix;
    private readonly IProgressSink _inner;

    /// <summary>Creates the sink.</summary>
    /// <param name="prefix">Text put before every phase name.</param>
    /// <param name="inner">The sink to forward to.</param>
    public PrefixedProgressSink(string prefix, IProgressSink inner)
    {
        ArgumentNullException.ThrowIfNull(prefix);
        ArgumentNullException.ThrowIfNull(inner);
        _prefix = prefix;
        _inner = inner;
    }

    /// <inheritdoc/>
    public void BeginPhase(string phase, double total) => _inner.BeginPhase(Name(phase), total);

    /// <inheritdoc/>
    public void Report(string phase, double value, string? message = null) => _inner.Report(Name(phase), value, message);

    /// <inheritdoc/>
    public void EndPhase(string phase) => _inner.EndPhase(Name(phase));

    private string Name(string phase) => $"{_prefix}: {phase}";
}
