namespace DivCon.Harness.Cyclic;

/// <summary>An <see cref="IWorkloadProgram"/> made from a name and a "run once" delegate.</summary>
public sealed class DelegateWorkloadProgram : IWorkloadProgram
{
    private readonly Func<CancellationToken, Task> _runOnce;

    /// <summary>Creates the program.</summary>
    /// <param name="name">Program name (non-empty).</param>
    /// <param name="runOnce">Runs the program once.</param>
    /// <exception cref="ArgumentException"><paramref name="name"/> is empty or white space.</exception>
    public DelegateWorkloadProgram(string name, Func<CancellationToken, Task> runOnce)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        ArgumentNullException.ThrowIfNull(runOnce);
        Name = name;
        _runOnce = runOnce;
    }

    /// <inheritdoc/>
    public string Name { get; }

    /// <inheritdoc/>
    public Task RunOnceAsync(CancellationToken cancellationToken) => _runOnce(cancellationToken);
}
