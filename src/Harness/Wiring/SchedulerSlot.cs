using DivCon.Schedulers;

namespace DivCon.Harness.Wiring;

/// <summary>
/// Holds at most one scheduler at a time for a sweep whose cases need different schedulers (1, 2, .. N cores):
/// asking for another key disposes the current scheduler and creates the next, so a 64-core sweep never holds
/// thousands of idle threads.
/// </summary>
/// <remarks>
/// Not thread-safe: the sweep asks from one logical flow. Call <see cref="Get"/> from a thread-pool thread (not from a
/// worker of the held scheduler, which could not wait for its own exit): the sweep cases do so through
/// <see cref="Task.Run(Func{Task})"/>.
/// </remarks>
public sealed class SchedulerSlot : IDisposable
{
    private string? _key;
    private WorkerPoolTaskScheduler? _scheduler;

    /// <summary>The scheduler for <paramref name="key"/>, creating it (and disposing the previous one) when the key changes.</summary>
    /// <param name="key">Identifies the configuration (e.g. "4 contiguous").</param>
    /// <param name="create">Creates the scheduler for the key.</param>
    /// <returns>The scheduler.</returns>
    public TaskScheduler Get(string key, Func<WorkerPoolTaskScheduler> create)
    {
        ArgumentNullException.ThrowIfNull(key);
        ArgumentNullException.ThrowIfNull(create);
        ObjectDisposedException.ThrowIf(_key == DisposedKey, this);
        if (_scheduler is not null && string.Equals(_key, key, StringComparison.Ordinal))
        {
            return _scheduler;
        }

        _scheduler?.Dispose();
        _scheduler = null;
        _scheduler = create();
        _key = key;
        return _scheduler;
    }

    /// <summary>Disposes the held scheduler.</summary>
    public void Dispose()
    {
        _scheduler?.Dispose();
        _scheduler = null;
        _key = DisposedKey;
    }

    private const string DisposedKey = "\0disposed";
}
