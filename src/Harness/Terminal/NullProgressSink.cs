namespace DivCon.Harness.Terminal;

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
