namespace DivCon.Harness.Tests.Support;

/// <summary>
/// A clock that moves only when told to. Fake programs call <see cref="WaitAsync"/> to "run" for a duration;
/// <see cref="AdvanceTo"/> moves time forward, waking the sleepers in due-time order with the clock set to
/// each one's due time. Continuations of the returned tasks run inline, so when AdvanceTo returns every
/// program that woke has already registered its next sleep.
/// </summary>
internal sealed class ManualTimeProvider : TimeProvider
{
    private readonly Lock _gate = new();
    private readonly List<(TimeSpan Due, long Sequence, TaskCompletionSource Completion)> _sleepers = [];
    private long _sequence;

    public TimeSpan Now { get; private set; }

    public int SleeperCount
    {
        get
        {
            lock (_gate)
            {
                return _sleepers.Count;
            }
        }
    }

    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    public override long GetTimestamp() => Now.Ticks;

    public override DateTimeOffset GetUtcNow() => new DateTimeOffset(2026, 1, 1, 0, 0, 0, TimeSpan.Zero) + Now;

    public Task WaitAsync(TimeSpan duration)
    {
        var completion = new TaskCompletionSource();
        lock (_gate)
        {
            _sleepers.Add((Now + duration, _sequence++, completion));
        }

        return completion.Task;
    }

    public void AdvanceTo(TimeSpan target)
    {
        // Await continuations run inline only where no synchronization context is installed (xUnit installs one).
        SynchronizationContext? saved = SynchronizationContext.Current;
        SynchronizationContext.SetSynchronizationContext(null);
        try
        {
            FireUntil(target);
        }
        finally
        {
            SynchronizationContext.SetSynchronizationContext(saved);
        }
    }

    private void FireUntil(TimeSpan target)
    {
        while (true)
        {
            TaskCompletionSource next;
            lock (_gate)
            {
                if (_sleepers.Count == 0)
                {
                    break;
                }

                var earliest = _sleepers.OrderBy(s => s.Due).ThenBy(s => s.Sequence).First();
                if (earliest.Due > target)
                {
                    break;
                }

                _sleepers.Remove(earliest);
                Now = earliest.Due;
                next = earliest.Completion;
            }

            next.SetResult();
        }

        if (target > Now)
        {
            Now = target;
        }
    }

    public void Advance(TimeSpan delta) => AdvanceTo(Now + delta);
}
