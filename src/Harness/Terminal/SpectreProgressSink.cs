using DivCon.Harness.Measurement;
using Spectre.Console;

namespace DivCon.Harness.Terminal;

/// <summary>
/// A progress sink over a live Spectre.Console progress display: one bar per phase, the latest message as
/// its description. Create it through <see cref="ProgressDisplay.RunAsync{T}"/>, which owns the display's
/// lifetime.
/// </summary>
public sealed class SpectreProgressSink : IProgressSink
{
    private readonly ProgressContext _context;
    private readonly Dictionary<string, ProgressTask> _tasks = new(StringComparer.Ordinal);
    private readonly Lock _gate = new();

    internal SpectreProgressSink(ProgressContext context) => _context = context;

    /// <inheritdoc/>
    public void BeginPhase(string phase, double total)
    {
        lock (_gate)
        {
            _tasks[phase] = _context.AddTask(Markup.Escape(phase), maxValue: total > 0 ? total : 1);
        }
    }

    /// <inheritdoc/>
    public void Report(string phase, double value, string? message = null)
    {
        lock (_gate)
        {
            if (_tasks.TryGetValue(phase, out ProgressTask? task))
            {
                task.Value = Math.Clamp(value, 0, task.MaxValue);
                if (message is not null)
                {
                    task.Description = Markup.Escape($"{phase}: {message}");
                }
            }
        }
    }

    /// <inheritdoc/>
    public void EndPhase(string phase)
    {
        lock (_gate)
        {
            if (_tasks.Remove(phase, out ProgressTask? task))
            {
                task.Description = Markup.Escape(phase);
                task.Value = task.MaxValue;
                task.StopTask();
            }
        }
    }
}
