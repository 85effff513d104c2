using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Tests.Multiprogram.Domain;

/// <summary>Records a scheduler's decisions from its creation on and waits (bounded, on a monitor) for one that matches.</summary>
internal sealed class DecisionWatch : IDisposable
{
    private readonly MultiprogramScheduler _scheduler;
    private readonly List<RebalanceEvent> _seen = [];

    public DecisionWatch(MultiprogramScheduler scheduler)
    {
        _scheduler = scheduler;
        scheduler.Rebalanced += OnRebalanced;
    }

    /// <summary>Waits for a decision that applied the grant of <paramref name="epoch"/> (the placement is in force when it is raised).</summary>
    public RebalanceEvent ForEpoch(long epoch) =>
        For(e => e.Policy == MultiprogramScheduler.DomainPolicyName && e.Explanation.StartsWith($"grant epoch {epoch}:", StringComparison.Ordinal));

    /// <summary>Waits for a decision of the local policy made after <paramref name="after"/> decisions were seen.</summary>
    public RebalanceEvent ForLocal(int after) => For(e => e.Policy != MultiprogramScheduler.DomainPolicyName, after);

    public int Count
    {
        get
        {
            lock (_seen)
            {
                return _seen.Count;
            }
        }
    }

    public RebalanceEvent For(Func<RebalanceEvent, bool> match, int from = 0)
    {
        var deadline = DateTime.UtcNow + TestSchedulers.Timeout;
        lock (_seen)
        {
            while (true)
            {
                for (int i = from; i < _seen.Count; i++)
                {
                    if (!_seen[i].Skipped && match(_seen[i]))
                    {
                        return _seen[i];
                    }
                }

                TimeSpan left = deadline - DateTime.UtcNow;
                Assert.True(left > TimeSpan.Zero, $"No matching decision within the timeout; seen: {string.Join(" | ", _seen)}");
                Monitor.Wait(_seen, left);
            }
        }
    }

    public void Dispose() => _scheduler.Rebalanced -= OnRebalanced;

    private void OnRebalanced(object? sender, RebalanceEvent e)
    {
        lock (_seen)
        {
            _seen.Add(e);
            Monitor.PulseAll(_seen);
        }
    }
}
