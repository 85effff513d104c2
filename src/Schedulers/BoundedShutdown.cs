using System.Diagnostics;

namespace DivCon.Schedulers;

/// <summary>
/// The bounded wait behind every scheduler's <c>DisposeAsync</c>: awaits an asynchronous shutdown for at most a
/// timeout and, when the timeout expires first, writes a trace warning instead of throwing (disposal never throws).
/// The shutdown itself goes on after the timeout; only the wait ends.
/// </summary>
internal static class BoundedShutdown
{
    /// <summary>Awaits <paramref name="shutdown"/> for at most <paramref name="timeout"/>.</summary>
    /// <param name="shutdown">Starts (or joins) the shutdown and returns its completion, cancelled by the token.</param>
    /// <param name="timeout">How long to wait.</param>
    /// <param name="warning">Builds the trace warning written when the wait times out.</param>
    /// <returns>A task that completes when the shutdown is done or the wait timed out.</returns>
    public static async ValueTask WaitAsync(Func<CancellationToken, Task> shutdown, TimeSpan timeout, Func<string> warning)
    {
        using var timer = new CancellationTokenSource(timeout);
        try
        {
            await shutdown(timer.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (timer.IsCancellationRequested)
        {
            Trace.TraceWarning(warning());
        }
    }
}
