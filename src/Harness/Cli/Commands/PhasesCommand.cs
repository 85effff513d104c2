using System.CommandLine;
using DivCon.Harness.Experiments;
using DivCon.Harness.Performance;
using DivCon.Harness.Wiring;
using DivCon.Schedulers;
using DivCon.Skeletons;
using Spectre.Console;

namespace DivCon.Harness.Cli.Commands;

/// <summary>
/// <c>phases</c>: cumulative split / execute / merge time per recursion level of each program (thesis 7.3,
/// figure 7.5), from the skeleton's <see cref="PhaseAggregator"/> observer, averaged over a few runs alone on all
/// workers at automatic granularity.
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
            IReadOnlyList<WorkloadMember> workload = WorkloadBuilder.Distinct(settings.Programs, settings.Sizes, settings.Seed);
            await CommonOptions.WarnAboutSizesAsync(host, workload).ConfigureAwait(false);
            await ExperimentOutput.RunAsync(host, settings.OutRoot, "phases", settings.Workers, async (context, _) =>
            {
                WorkerPoolTaskScheduler scheduler = SchedulerFactory.Create(host.Machine, host.Machine.CpusFor(settings.Workers));
                try
                {
                    // One unobserved run per program first, so that JIT compilation does not land in level 0. At thesis
                    // sizes it takes minutes: it reports progress like the measured runs.
                    const string WarmUp = "warm-up";
                    context.Progress.BeginPhase(WarmUp, workload.Count);
                    try
                    {
                        int done = 0;
                        foreach (WorkloadMember member in workload)
                        {
                            await member.Program.RunParallelAsync(scheduler, cancellationToken: cancellationToken).ConfigureAwait(false);
                            context.Progress.Report(WarmUp, ++done, member.Name);
                        }
                    }
                    finally
                    {
                        context.Progress.EndPhase(WarmUp);
                    }

                    PhaseCase[] cases = workload.Select(m => new PhaseCase(m.Name, (profile, ct) => RunObservedAsync(m, scheduler, profile, ct))).ToArray();
                    var result = await new PhasesExperiment(parse.GetValue(sweep.Runs)).RunAsync(cases, context, cancellationToken).ConfigureAwait(false);
                    if (settings.Verify)
                    {
                        Verification.VerifyAll(workload, "phases"); // before the results are published
                    }

                    return result;
                }
                finally
                {
                    await SchedulerFactory.DisposeOffWorkersAsync(scheduler).ConfigureAwait(false);
                }
            }, result => host.Console.Write(Summary(result)), cancellationToken).ConfigureAwait(false);
        });
        return command;
    }

    /// <summary>Runs a program once with a fresh aggregator and adds its per-level totals to the profile.</summary>
    /// <param name="member">The program.</param>
    /// <param name="scheduler">Where it runs.</param>
    /// <param name="profile">The experiment's profile.</param>
    /// <param name="cancellationToken">Cancels the run.</param>
    /// <returns>The run.</returns>
    internal static async Task RunObservedAsync(WorkloadMember member, TaskScheduler scheduler, PhaseProfile profile, CancellationToken cancellationToken)
    {
        var aggregator = new PhaseAggregator();
        await member.Program.RunParallelAsync(scheduler, observer: aggregator, cancellationToken: cancellationToken).ConfigureAwait(false);
        foreach (PhaseLevelStatistics level in aggregator.Snapshot().Where(l => l.Count > 0))
        {
            profile.AddMany(ToDcPhase(level.Phase), level.Depth, level.TotalTime, level.Count);
        }
    }

    private static DcPhase ToDcPhase(DivideAndConquerPhase phase) => phase switch
    {
        DivideAndConquerPhase.Split => DcPhase.Split,
        DivideAndConquerPhase.Execute => DcPhase.Execute,
        DivideAndConquerPhase.Merge => DcPhase.Merge,
        _ => throw new ArgumentOutOfRangeException(nameof(phase), phase, "Unknown phase."),
    };

    private static Table Summary(IReadOnlyList<(string Program, IReadOnlyList<PhaseLevelTimes> Levels)> result)
    {
        var table = new Table().Title("Cumulative phase time per run (ms, summed over tasks)")
            .AddColumn("Program").AddColumn(new TableColumn("Levels").RightAligned())
            .AddColumn(new TableColumn("Split").RightAligned()).AddColumn(new TableColumn("Execute").RightAligned()).AddColumn(new TableColumn("Merge").RightAligned());
        foreach ((string program, IReadOnlyList<PhaseLevelTimes> levels) in result)
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
