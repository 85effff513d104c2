using System.CommandLine;
using DivCon.Harness.Experiments;
using DivCon.Harness.Measurement;
using DivCon.Harness.Terminal;
using DivCon.Harness.Workload;
using DivCon.Schedulers;
using DivCon.Skeletons;
using Spectre.Console;

namespace DivCon.Harness.Cli;
/// <summary>
/// <c>phases</c>: cumulative split / execute / merge time per recursion level of each program (thesis 7.3,
/// figure 7.5), from each run's recorded task tree (own work per phase, see <see cref="Measurement.PhaseLevelTimes.From(DivCon.Skeletons.Tracing.TaskTree)"/>), averaged over a few runs alone on all
/// workers at automatic granularity, and on one worker for the performance model (work, overhead, idle, work
/// inflation, T_P against max(T_1/P, T_∞)).
/// </summary>
public static class PhasesCommand
{
    /// <summary>Builds the command.</summary>
    /// <param name="host">The host.</param>
    /// <returns>The command.</returns>
    public static Command Create(CliHost host)
    {
        ArgumentNullException.ThrowIfNull(host);
        var common = new CommonOptions(host, CommonOptions.ThesisPrograms);
        var sweep = new SweepOptions(defaultRuns: 3, withWarmup: false);
        var command = new Command("phases", "Cumulative split/execute/merge time per recursion level, per program (skeleton observer).");
        common.AddTo(command);
        sweep.AddTo(command);
        CommandActions.Set(command, host, async (parse, cancellationToken) =>
        {
            CommonSettings settings = common.Read(parse, host.Machine);
            IReadOnlyList<WorkloadProgram> workload = WorkloadBuilder.Distinct(settings.Programs, settings.Sizes, settings.Seed);
            await CommonOptions.WarnAboutSizesAsync(host, workload).ConfigureAwait(false);
            await ExperimentOutput.RunAsync(host, settings.OutRoot, "phases", settings.Workers, async (context, _) =>
            {
                // The performance model compares every worker count with one worker: observe both.
                int[] counts = settings.Workers > 1 ? [1, settings.Workers] : [1];
                var schedulers = new Dictionary<int, WorkerPoolTaskScheduler>();
                try
                {
                    foreach (int count in counts)
                    {
                        schedulers[count] = SchedulerFactory.Create(host.Machine, host.Machine.CpusFor(count));
                    }

                    // One unobserved run per program and scheduler first, so that JIT compilation does not land in level 0.
                    // At thesis sizes it takes minutes: it reports progress like the measured runs.
                    const string WarmUp = "warm-up";
                    context.Progress.BeginPhase(WarmUp, workload.Count * schedulers.Count);
                    try
                    {
                        int done = 0;
                        foreach (WorkloadProgram member in workload)
                        {
                            foreach (WorkerPoolTaskScheduler scheduler in schedulers.Values)
                            {
                                await member.Program.RunParallelAsync(scheduler, cancellationToken: cancellationToken).ConfigureAwait(false);
                                context.Progress.Report(WarmUp, ++done, member.Name);
                            }
                        }
                    }
                    finally
                    {
                        context.Progress.EndPhase(WarmUp);
                    }

                    PhaseCase[] cases = workload.Select(m => new PhaseCase(m.Name,
                        (workers, observer, ct) => m.Program.RunParallelAsync(schedulers[workers], observer: observer, cancellationToken: ct))).ToArray();
                    var result = await new PhasesExperiment(parse.GetValue(sweep.Runs), counts).RunAsync(cases, context, cancellationToken).ConfigureAwait(false);
                    if (settings.Verify)
                    {
                        Verification.VerifyAll(workload, "phases"); // before the results are published
                    }

                    return result;
                }
                finally
                {
                    foreach (WorkerPoolTaskScheduler scheduler in schedulers.Values)
                    {
                        await SchedulerFactory.DisposeOffWorkersAsync(scheduler).ConfigureAwait(false);
                    }
                }
            }, result =>
            {
                host.Console.Write(Summary(result));
                host.Console.Write(PerformanceTable.Build(result.SelectMany(r => r.Performance.Select(b => (r.Program, b))).ToArray()));
            }, cancellationToken).ConfigureAwait(false);
        });
        return command;
    }

    private static Table Summary(IReadOnlyList<PhasesResult> result)
    {
        var table = new Table().Title("Cumulative phase time per run (ms, summed over tasks)")
            .AddColumn("Program").AddColumn(new TableColumn("Levels").RightAligned())
            .AddColumn(new TableColumn("Split").RightAligned()).AddColumn(new TableColumn("Execute").RightAligned()).AddColumn(new TableColumn("Merge").RightAligned());
        foreach ((string program, IReadOnlyList<PhaseLevelTimes> levels, _, _) in result)
        {
            table.AddRow(
                Markup.Escape(program),
                levels.Count.ToString(System.Globalization.CultureInfo.InvariantCulture),
                Reports.NumberText.Fixed(levels.Sum(l => l.Split.TotalMilliseconds), 2),
                Reports.NumberText.Fixed(levels.Sum(l => l.Execute.TotalMilliseconds), 2),
                Reports.NumberText.Fixed(levels.Sum(l => l.Merge.TotalMilliseconds), 2));
        }

        return table;
    }
}
