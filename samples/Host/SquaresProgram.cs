using System.Diagnostics;
using DivCon.Hosting;
using DivCon.Schedulers.Multiprogram;

namespace DivCon.Samples.Host;

/// <summary>A data-parallel program: rounds of a parallel loop, every iteration on the program's workers.</summary>
internal sealed partial class SquaresProgram(
    DivConPrograms programs, IConfiguration configuration, IHostApplicationLifetime lifetime, ILogger<SquaresProgram> logger)
    : BackgroundService
{
    private const int Iterations = 4_000;

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        ProgramTaskScheduler program = programs.Get("squares");
        int rounds = configuration.GetValue("Sample:Rounds", 0);
        for (int round = 1; rounds == 0 || round <= rounds; round++)
        {
            var clock = Stopwatch.StartNew();
            long sum = 0;
            int outside = 0;
            await program.ForAsync(0, Iterations, i =>
            {
                if (!program.IsCurrentThreadServing)
                {
                    Interlocked.Increment(ref outside);
                }

                long local = 0;
                for (long k = 0; k < 20_000; k++)
                {
                    local += (i + k) * (i + k) % 7;
                }

                Interlocked.Add(ref sum, local);
            }, stoppingToken);
            LogRound(logger, round, Iterations, clock.Elapsed.TotalMilliseconds, program.CurrentCores, outside);
            await Task.Delay(200, stoppingToken);
        }

        lifetime.StopApplication();
    }

    [LoggerMessage(EventId = 1, Level = LogLevel.Information, Message = "squares round {Round}: {Iterations} iterations in {Milliseconds:F0} ms, owning {Cores} core(s); iterations outside its workers: {Outside}")]
    private static partial void LogRound(ILogger logger, int round, int iterations, double milliseconds, int cores, int outside);
}
