using System.Diagnostics;
using DivCon.Hosting;
using DivCon.Schedulers.Multiprogram;

namespace DivCon.Samples.Host;

/// <summary>An async workflow: stages of tasks with awaits between them, every continuation on the program's workers.</summary>
internal sealed partial class PipelineProgram(
    DivConPrograms programs, IConfiguration configuration, IHostApplicationLifetime lifetime, ILogger<PipelineProgram> logger)
    : BackgroundService
{
    private const int Stages = 6;

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        ProgramTaskScheduler program = programs.Get("pipeline");
        int rounds = configuration.GetValue("Sample:Rounds", 0);
        for (int round = 1; rounds == 0 || round <= rounds; round++)
        {
            var clock = Stopwatch.StartNew();
            // RunAsync starts the workflow on a worker: TaskScheduler.Current is the program, so every await below
            // (without ConfigureAwait(false)) resumes on the program's workers.
            int outside = await program.RunAsync(async () =>
            {
                int away = 0;
                for (int stage = 0; stage < Stages; stage++)
                {
                    Task<long>[] parts = [.. Enumerable.Range(0, 8).Select(part => program.Factory.StartNew(() => Work(stage, part)))];
                    await Task.WhenAll(parts);
                    away += program.IsCurrentThreadServing ? 0 : 1;
                    await Task.Delay(10, stoppingToken); // A timer, as an I/O wait would be: still resumes here.
                    away += program.IsCurrentThreadServing ? 0 : 1;
                }

                return away;
            }, stoppingToken);
            LogRound(logger, round, Stages, clock.Elapsed.TotalMilliseconds, program.CurrentCores, outside);
            await Task.Delay(200, stoppingToken);
        }

        lifetime.StopApplication();
    }

    private static long Work(int stage, int part)
    {
        long local = 0;
        for (long k = 0; k < 2_000_000; k++)
        {
            local += (stage + part + k) % 13;
        }

        return local;
    }

    [LoggerMessage(EventId = 2, Level = LogLevel.Information, Message = "pipeline round {Round}: {Stages} stages in {Milliseconds:F0} ms, owning {Cores} core(s); resumptions outside its workers: {Outside}")]
    private static partial void LogRound(ILogger logger, int round, int stages, double milliseconds, int cores, int outside);
}
