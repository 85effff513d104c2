using System.Globalization;
using DivCon.Harness.Measurement;
using Spectre.Console;

namespace DivCon.Harness.Terminal;

/// <summary>
/// Chooses and hosts a progress display: a live Spectre display on an interactive terminal, plain lines
/// otherwise (CI, redirected output, <c>TERM=dumb</c>).
/// </summary>
public static class ProgressDisplay
{
    /// <summary>
    /// Whether the process talks to an interactive terminal: output not redirected, no <c>CI</c> variable set,
    /// and Spectre reports an interactive, ANSI-capable console.
    /// </summary>
    /// <param name="console">The console to ask.</param>
    /// <returns>True when a live display can be used.</returns>
    public static bool IsInteractive(IAnsiConsole console)
    {
        ArgumentNullException.ThrowIfNull(console);
        return !Console.IsOutputRedirected
            && string.IsNullOrEmpty(Environment.GetEnvironmentVariable("CI"))
            && console.Profile.Capabilities.Interactive
            && console.Profile.Capabilities.Ansi;
    }

    /// <summary>
    /// Runs <paramref name="body"/> with a progress sink: a live Spectre display when
    /// <paramref name="interactive"/>, a <see cref="PlainProgressSink"/> on <paramref name="console"/>'s
    /// writer otherwise.
    /// </summary>
    /// <typeparam name="T">The body's result.</typeparam>
    /// <param name="console">The console.</param>
    /// <param name="interactive">Usually <see cref="IsInteractive"/>.</param>
    /// <param name="body">The work, given the sink.</param>
    /// <returns>The body's result.</returns>
    public static async Task<T> RunAsync<T>(IAnsiConsole console, bool interactive, Func<IProgressSink, Task<T>> body)
    {
        ArgumentNullException.ThrowIfNull(console);
        ArgumentNullException.ThrowIfNull(body);
        if (!interactive)
        {
            return await body(new PlainProgressSink(console.Profile.Out.Writer)).ConfigureAwait(false);
        }

        return await console.Progress()
            .AutoClear(false)
            .Columns(new TaskDescriptionColumn(), new ProgressBarColumn(), new PercentageColumn(), new ElapsedTimeColumn())
            .StartAsync(context => body(new SpectreProgressSink(context)))
            .ConfigureAwait(false);
    }
}

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
