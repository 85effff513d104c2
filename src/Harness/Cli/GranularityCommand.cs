using System.CommandLine;
using DivCon.Harness.Experiments;
using DivCon.Harness.Terminal;
using DivCon.Harness.Workload;
using DivCon.Schedulers;
using DivCon.Skeletons;

namespace DivCon.Harness.Cli;
/// <summary>
/// <c>granularity</c>: each program alone on all workers, leaf size from the whole problem down to 2^-max of it
/// (thesis 7.1, figure 7.1); time against granularity. See <see cref="GranularityLadder"/> for what the fraction
/// means per program.
/// </summary>
public static class GranularityCommand
{
    /// <summary>Builds the command.</summary>
    /// <param name="host">The host.</param>
    /// <returns>The command.</returns>
    public static Command Create(CliHost host)
    {
        ArgumentNullException.ThrowIfNull(host);
        var common = new CommonOptions(host, CommonOptions.ThesisPrograms);
        var sweep = new SweepOptions(defaultRuns: 10);
        var maxExponent = OptionTable.Whole("--max-exponent", "Finest granularity 2^-k of the problem.", GranularityLadder.DefaultMaxExponent, 0, 30);
        var command = new Command("granularity", "Time vs granularity (whole problem down to 2^-k of it) per program, alone on all workers.");
        common.AddTo(command);
        sweep.AddTo(command);
        command.Add(maxExponent);
        CommandActions.Set(command, host, async (parse, cancellationToken) =>
        {
            CommonSettings settings = common.Read(parse, host.Machine);
            IReadOnlyList<WorkloadProgram> workload = WorkloadBuilder.Distinct(settings.Programs, settings.Sizes, settings.Seed);
            await CommonOptions.WarnAboutSizesAsync(host, workload).ConfigureAwait(false);
            int max = parse.GetValue(maxExponent);
            await ExperimentOutput.RunAsync(host, settings.OutRoot, "granularity", settings.Workers, async (context, _) =>
            {
                WorkerPoolTaskScheduler scheduler = SchedulerFactory.Create(host.Machine, host.Machine.CpusFor(settings.Workers));
                try
                {
                    SweepCase[] cases = workload.SelectMany(m => Enumerable.Range(0, max + 1).Select(k =>
                        new SweepCase(m.Name, GranularityLadder.Fraction(k), ct =>
                        {
                            m.Program.Granularity = GranularityLadder.For(m.Program, k);
                            return m.Program.RunParallelAsync(scheduler, cancellationToken: ct);
                        }))).ToArray();
                    var runner = new SweepRunner(parse.GetValue(sweep.Runs), parse.GetValue(sweep.Warmup!), timeProvider: host.Time, progress: context.Progress)
                    {
                        CaseCompleted = partial => SweepReportWriter.WriteRuns(context.Output, partial),
                    };
                    SweepResult result = await new GranularityExperiment(runner).RunAsync(cases, context, cancellationToken).ConfigureAwait(false);
                    if (settings.Verify)
                    {
                        Verification.VerifyAll(workload, "granularity"); // before the results are published
                    }

                    return result;
                }
                finally
                {
                    await SchedulerFactory.DisposeOffWorkersAsync(scheduler).ConfigureAwait(false);
                    foreach (WorkloadProgram member in workload)
                    {
                        member.Program.Granularity = Granularity.Automatic();
                    }
                }
            }, result => host.Console.Write(SweepTable.Build(result, "Granularity")), cancellationToken).ConfigureAwait(false);
        });
        return command;
    }
}
