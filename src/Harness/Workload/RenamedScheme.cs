namespace DivCon.Harness.Workload;

/// <summary>A scheme under another name in reports (the <c>processes</c> experiment's <c>one-process</c> is the dynamic scheme).</summary>
/// <param name="inner">The scheme.</param>
/// <param name="name">Its name in reports.</param>
public sealed class RenamedScheme(IWorkloadScheme inner, string name) : IWorkloadScheme
{
    /// <inheritdoc />
    public string Name { get; } = string.IsNullOrWhiteSpace(name) ? throw new ArgumentException("A scheme needs a name.", nameof(name)) : name;

    /// <inheritdoc />
    public ValueTask<IWorkloadSession> OpenAsync(CancellationToken cancellationToken) => inner.OpenAsync(cancellationToken);
}
