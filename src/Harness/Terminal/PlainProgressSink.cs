using System.Globalization;
using DivCon.Harness.Measurement;

namespace DivCon.Harness.Terminal;

/// <summary>
/// A progress sink that writes plain lines (no cursor movement, no colour) to a <see cref="TextWriter"/>:
/// for CI logs, redirected output and terminals without interaction.
/// </summary>
/// <remarks>Each line reads <c>[phase] 42% message</c>; reports without a message are written only when the
/// percentage has moved by at least <see cref="PercentStep"/> points, so logs stay short.</remarks>
public sealed class PlainProgressSink : IProgressSink
{
    /// <summary>Minimum change in percent between two message-less lines of the same phase.</summary>
    public const int PercentStep = 10;

    private readonly TextWriter _writer;
    private readonly Dictionary<string, (double Total, int LastPercent)> _phases = new(StringComparer.Ordinal);
    private readonly Lock _gate = new();

    /// <summary>Creates a sink writing to <paramref name="writer"/>.</summary>
    /// <param name="writer">The destination (e.g. <see cref="Console.Out"/>).</param>
    public PlainProgressSink(TextWriter writer)
    {
        ArgumentNullException.ThrowIfNull(writer);
        _writer = writer;
    }

    /// <inheritdoc/>
    public void BeginPhase(string phase, double total)
    {
        lock (_gate)
        {
            _phases[phase] = (total > 0 ? total : 1, 0);
            _writer.WriteLine($"[{phase}] started");
        }
    }

    /// <inheritdoc/>
    public void Report(string phase, double value, string? message = null)
    {
        lock (_gate)
        {
            if (!_phases.TryGetValue(phase, out var state))
            {
                state = (1, 0);
            }

            int percent = (int)Math.Clamp(Math.Floor(100 * value / state.Total), 0, 100);
            if (message is null && percent - state.LastPercent < PercentStep)
            {
                return;
            }

            _phases[phase] = (state.Total, percent);
            _writer.WriteLine(message is null
                ? string.Create(CultureInfo.InvariantCulture, $"[{phase}] {percent}%")
                : string.Create(CultureInfo.InvariantCulture, $"[{phase}] {percent}% {message}"));
        }
    }

    /// <inheritdoc/>
    public void EndPhase(string phase)
    {
        lock (_gate)
        {
            _phases.Remove(phase);
            _writer.WriteLine($"[{phase}] done");
        }
    }
}
