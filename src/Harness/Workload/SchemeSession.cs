namespace DivCon.Harness.Workload;

/// <summary>
/// A scheme's open session: the bound programs, the allocation trace (partitioning schemes), and the schedulers it
/// owns, disposed (last created first) when the session is disposed.
/// </summary>
/// <remarks>
/// Disposal runs on a thread-pool thread: the caller may be resuming on one of the very workers being shut down
/// (an awaited run completes on a worker), and a scheduler cannot wait for its own worker to exit.
/// </remarks>
public sealed class SchemeSession : IWorkloadSession
{
    private readonly IReadOnlyList<IDisposable> _owned;
    private readonly Action? _onClosed;
    private int _disposed;

    /// <summary>Creates the session.</summary>
    /// <param name="programs">The bound programs.</param>
    /// <param name="owned">What to dispose with the session (schedulers, subscriptions), in creation order.</param>
    /// <param name="allocations">The allocation trace, or null.</param>
    /// <param name="onClosed">Called after everything owned is disposed (e.g. verification), or null.</param>
    public SchemeSession(IReadOnlyList<WorkloadProgram> programs, IReadOnlyList<IDisposable> owned, AllocationTrace? allocations = null, Action? onClosed = null)
    {
        ArgumentNullException.ThrowIfNull(programs);
        ArgumentNullException.ThrowIfNull(owned);
        Programs = programs;
        _owned = owned;
        Allocations = allocations;
        _onClosed = onClosed;
    }

    /// <inheritdoc/>
    public IReadOnlyList<WorkloadProgram> Programs { get; }

    /// <inheritdoc/>
    public AllocationTrace? Allocations { get; }

    /// <summary>Disposes what the session owns (reverse creation order), then runs the close action.</summary>
    /// <returns>A task that completes when everything is disposed.</returns>
    /// <exception cref="AggregateException">One or more disposals failed (all are attempted).</exception>
    public async ValueTask DisposeAsync()
    {
        // Interlocked: a session is closed once even when disposed from two threads.
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        await Task.Run(() => DisposeAll(_owned)).ConfigureAwait(false);
        _onClosed?.Invoke();
    }

    /// <summary>Disposes every item, last first, even when some throw.</summary>
    /// <param name="owned">The items in creation order.</param>
    /// <exception cref="AggregateException">One or more disposals failed.</exception>
    internal static void DisposeAll(IReadOnlyList<IDisposable> owned)
    {
        List<Exception>? failures = null;
        for (int i = owned.Count - 1; i >= 0; i--)
        {
            try
            {
                owned[i].Dispose();
            }
#pragma warning disable CA1031 // Every owned item must get its chance to be disposed; failures are rethrown together.
            catch (Exception e)
#pragma warning restore CA1031
            {
                (failures ??= []).Add(e);
            }
        }

        if (failures is not null)
        {
            throw new AggregateException("Closing the scheme's schedulers failed.", failures);
        }
    }
}
