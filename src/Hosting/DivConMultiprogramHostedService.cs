using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace DivCon.Hosting;

/// <summary>
/// Starts the host's multiprogram scheduler with the host (so that bad options or an unusable machine stop the start)
/// and drains it at the host's stop: every program is closed, every accepted task runs, then the workers exit. The
/// host's shutdown timeout bounds the wait; past it a warning is logged and the host goes on stopping (the workers
/// are background threads that exit as soon as their last task returns).
/// </summary>
internal sealed partial class DivConMultiprogramHostedService(DivConPrograms programs, ILogger<DivConMultiprogramHostedService>? logger = null)
    : Microsoft.Extensions.Hosting.IHostedService
{
    private readonly ILogger _logger = (ILogger?)logger ?? NullLogger.Instance;

    public Task StartAsync(CancellationToken cancellationToken)
    {
        var scheduler = programs.Scheduler; // Creates it: bad options or an unusable machine fail the start here.
        if (_logger.IsEnabled(LogLevel.Information))
        {
            string description = scheduler.ToString();
            string names = string.Join(", ", programs.Names);
            LogStarted(_logger, description, names);
        }

        return Task.CompletedTask;
    }

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        try
        {
            await programs.ShutdownAsync(cancellationToken).ConfigureAwait(false);
            LogStopped(_logger);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            long left = programs.Scheduler.Programs.Sum(p => p.OutstandingTasks);
            LogTimedOut(_logger, left);
        }
    }

    [LoggerMessage(EventId = 1, Level = LogLevel.Information, Message = "DivCon multiprogram scheduler started: {Scheduler}; programs: {Programs}")]
    private static partial void LogStarted(ILogger logger, string scheduler, string programs);

    [LoggerMessage(EventId = 2, Level = LogLevel.Information, Message = "DivCon multiprogram scheduler stopped: every accepted task ran and the workers exited")]
    private static partial void LogStopped(ILogger logger);

    [LoggerMessage(EventId = 3, Level = LogLevel.Warning, Message = "DivCon multiprogram scheduler: the host's shutdown timeout passed with {Tasks} tasks still accepted; its workers exit when those tasks end")]
    private static partial void LogTimedOut(ILogger logger, long tasks);
}
