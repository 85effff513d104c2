using System.CommandLine;
using DivCon.Schedulers.Platform;

namespace DivCon.Harness.Cli;

/// <summary>
/// Wraps a command's body so that expected failures become a one-line message and an exit code instead of a stack
/// trace. Exit codes: 0 success; 1 bad input, found by the parser or later (an unknown name, a size a program
/// rejects, an unreadable profile store, an output folder that is not a results folder); 2 the environment (a
/// folder or file that cannot be written or read, an unsupported platform, pinning refused); 3 a failed run (e.g. a
/// program computed a wrong result); 130 cancelled.
/// </summary>
public static class CommandActions
{
    /// <summary>Exit code of bad input (the same as System.CommandLine's for a parse error).</summary>
    public const int BadInput = 1;

    /// <summary>Exit code of an environment problem: I/O, permissions, an unsupported platform.</summary>
    public const int EnvironmentError = 2;

    /// <summary>Exit code of a run that failed.</summary>
    public const int RunFailed = 3;

    /// <summary>Exit code of a cancelled run (as after SIGINT).</summary>
    public const int Cancelled = 130;

    /// <summary>How long a cancelled command waits for its body to put its partial results aside.</summary>
    public static readonly TimeSpan CleanupGrace = TimeSpan.FromSeconds(1);

    /// <summary>Environment variable that, set to 1, adds the stack trace to the message of a failed run.</summary>
    public const string TraceVariable = "DIVCON_TRACE";

    /// <summary>Sets <paramref name="command"/>'s action to <paramref name="body"/>, wrapped.</summary>
    /// <param name="command">The command.</param>
    /// <param name="host">Where errors go.</param>
    /// <param name="body">The work.</param>
    public static void Set(Command command, CliHost host, Func<ParseResult, CancellationToken, Task> body)
    {
        ArgumentNullException.ThrowIfNull(command);
        ArgumentNullException.ThrowIfNull(host);
        ArgumentNullException.ThrowIfNull(body);
        command.SetAction((parse, cancellationToken) => RunAsync(host, () => body(parse, cancellationToken), cancellationToken));
    }

    /// <summary>Runs <paramref name="body"/> and maps its outcome to an exit code.</summary>
    /// <param name="host">Where errors go.</param>
    /// <param name="body">The work.</param>
    /// <param name="cancellationToken">The command's cancellation (Ctrl+C). Once it is cancelled the outcome is
    /// "Cancelled." at once, even while a program run that does not observe the token is still finishing: the process
    /// is about to end, and System.CommandLine ends it without a word if the action has not returned shortly after
    /// the signal.</param>
    /// <returns>The exit code.</returns>
    public static async Task<int> RunAsync(CliHost host, Func<Task> body, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(host);
        ArgumentNullException.ThrowIfNull(body);
        try
        {
            Task work = body();
            try
            {
                await work.WaitAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (!work.IsCompleted)
            {
                // Ctrl+C while a program run that does not observe the token is still going: the body's results
                // folder handling stops waiting for it at once and keeps what finished; give it that moment (it is
                // short of the time System.CommandLine allows after the signal), then report the cancellation.
                await Task.WhenAny(work, Task.Delay(CleanupGrace, TimeProvider.System, CancellationToken.None)).ConfigureAwait(false);
                throw;
            }

            return 0;
        }
#pragma warning disable CA1031 // The CLI's last line of defence: report any failure of a run and exit non-zero.
        catch (Exception e)
#pragma warning restore CA1031
        {
            int code = ExitCodeOf(e);
            string message = code switch
            {
                Cancelled => "Cancelled.",
                RunFailed => $"error: the run failed: {OneLine(e)}",
                _ => $"error: {OneLine(e)}",
            };
            if (code == RunFailed)
            {
                // The line says what failed; the trace is for whoever debugs the harness, on request.
                bool trace = Environment.GetEnvironmentVariable(TraceVariable) == "1";
                message += trace ? Environment.NewLine + e : $" (set {TraceVariable}=1 for the stack trace)";
            }

            await host.Error.WriteLineAsync(message).ConfigureAwait(false);

            return code;
        }
    }

    /// <summary>The exit code of a failure.</summary>
    /// <param name="exception">The failure.</param>
    /// <returns><see cref="Cancelled"/>, <see cref="BadInput"/>, <see cref="EnvironmentError"/> or <see cref="RunFailed"/>.</returns>
    public static int ExitCodeOf(Exception exception)
    {
        ArgumentNullException.ThrowIfNull(exception);
        return exception switch
        {
            OperationCanceledException => Cancelled,
            ArgumentException or InvalidDataException => BadInput,
            IOException or UnauthorizedAccessException or PlatformNotSupportedException or ThreadAffinityException => EnvironmentError,
            _ => RunFailed,
        };
    }

    /// <summary>An exception's message on one line (inner messages appended when they add something).</summary>
    /// <param name="exception">The exception.</param>
    /// <returns>The line.</returns>
    public static string OneLine(Exception exception)
    {
        ArgumentNullException.ThrowIfNull(exception);
        string text = exception.Message;
        if (exception.InnerException is { } inner && !text.Contains(inner.Message, StringComparison.Ordinal))
        {
            text += " (" + inner.Message + ")";
        }

        return OneLine(text);
    }

    /// <summary>A message on one line (its lines joined by spaces).</summary>
    /// <param name="text">The message.</param>
    /// <returns>The line.</returns>
    public static string OneLine(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        return string.Join(' ', text.Split(['\r', '\n'], StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries));
    }
}
