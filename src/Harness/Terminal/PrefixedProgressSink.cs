namespace DivCon.Harness.Terminal;

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
