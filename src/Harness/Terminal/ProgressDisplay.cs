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
