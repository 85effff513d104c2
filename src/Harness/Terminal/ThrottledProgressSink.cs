using DivCon.Harness.Measurement;

namespace DivCon.Harness.Terminal;

/// <summary>
/// Passes on at most one report per phase per interval (plus every phase start and end), so that a log of a cyclic
/// test with thousands of short runs stays readable. Wraps the plain sink; a live display needs no throttle.
/// </summary>
public sealed class ThrottledProgressSink : IProgressSink
{
    private readonly IProgressSink _inner;
    private readonly TimeProvider _time;
    private readonly TimeSpan _interval;
    private readonly Dictionary<string, long> _lastForwarded = new(StringComparer.Ordinal);
    private readonly Lock _gate = new();

    /// <summary>Creates the sink.</summary>
    /// <param name="inner">Where reports go.</param>
    /// <param name="time">The clock.</param>
    /// <param name="interval">The least time between two forwarded reports of one phase (positive).</param>
    public ThrottledProgressSink(IProgressSink inner, TimeProvider time, TimeSpan interval)
    {
        ArgumentNullException.ThrowIfNull(inner);
        ArgumentNullException.ThrowIfNull(time);
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(interval, TimeSpan.Zero);
        _inner = inner;
        _time = time;
        _interval = interval;
    }

    /// <inheritdoc/>
    public void BeginPhase(string phase, double total)
    {
        lock (_gate)
        {
            _lastForwarded[phase] = _time.GetTimestamp();
        }

        _inner.BeginPhase(phase, total);
    }

    /// <inheritdoc/>
    public void Report(string phase, double value, string? message = null)
    {
        long now = _time.GetTimestamp();
        lock (_gate)
        {
            if (_lastForwarded.TryGetValue(phase, out long last) && _time.GetElapsedTime(last, now) < _interval)
            {
                return;
            }

            _lastForwarded[phase] = now;
        }

        _inner.Report(phase, value, message);
    }

    /// <inheritdoc/>
    public void EndPhase(string phase)
    {
        lock (_gate)
        {
            _lastForwarded.Remove(phase);
        }

        _inner.EndPhase(phase);
    }
}
