using System.CommandLine;
using DivCon.Schedulers.Platform;

namespace DivCon.Harness.Cli;

/// <summary>
/// Wraps a command's body so that expected failures become a one-line message and an exit code instead of a stack
/// trace: 0 success, 1 parse error (System.CommandLine), 2 bad input or unsupported platform, 3 a failed run
/// (e.g. a program computed a wrong result), 130 cancelled.
/// </summary>
public static class CommandActions
{
    /// <summary>Exit code of bad input or an unsupported platform.</summary>
    public const int BadInput = 2;

    /// <summary>Exit code of a run that failed.</summary>
    public const int RunFailed = 3;

    /// <summary>Exit code of a cancelled run (as after SIGINT).</summary>
    public const int Cancelled = 130;

    /// <summary>Sets <paramref name="command"/>'s action to <paramref name="body"/>, wrapped.</summary>
    /// <param name="command">The command.</param>
    /// <param name="host">Where errors go.</param>
    /// <param name="body">The work.</param>
    public static void Set(Command command, CliHost host, Func<ParseResult, CancellationToken, Task> body)
    {
        ArgumentNullException.ThrowIfNull(command);
        ArgumentNullException.ThrowIfNull(host);
        ArgumentNullException.ThrowIfNull(body);
        command.SetAction((parse, cancellationToken) => RunAsync(host, () => body(parse, cancellationToken)));
    }

    /// <summary>Runs <paramref name="body"/> and maps its outcome to an exit code.</summary>
    /// <param name="host">Where errors go.</param>
    /// <param name="body">The work.</param>
    /// <returns>The exit code.</returns>
    public static async Task<int> RunAsync(CliHost host, Func<Task> body)
    {
        ArgumentNullException.ThrowIfNull(host);
        ArgumentNullException.ThrowIfNull(body);
        try
        {
            await body().ConfigureAwait(false);
            return 0;
        }
        catch (OperationCanceledException)
        {
            await host.Error.WriteLineAsync("Cancelled.").ConfigureAwait(false);
            return Cancelled;
        }
        catch (Exception e) when (e is ArgumentException or InvalidDataException or PlatformNotSupportedException or ThreadAffinityException or UnauthorizedAccessException)
        {
            await host.Error.WriteLineAsync($"error: {e.Message}").ConfigureAwait(false);
            return BadInput;
        }
#pragma warning disable CA1031 // The CLI's last line of defence: report any failure of a run and exit non-zero.
        catch (Exception e)
#pragma warning restore CA1031
        {
            await host.Error.WriteLineAsync($"error: the run failed: {e}").ConfigureAwait(false);
            return RunFailed;
        }
    }
}
