using System.CommandLine;
using DivCon.Harness.Experiments;
using DivCon.Harness.Terminal;
using DivCon.Harness.Workload;
using DivCon.Schedulers.Multiprogram.Profiles;
using Spectre.Console;

namespace DivCon.Harness.Cli;

/// <summary>
/// <c>processes</c>: the cyclic test with each program of the mix in its own OS process, comparing independent
/// processes (each on its own .NET thread pool, believing it owns every CPU), processes joined in one machine domain
/// (each on a multiprogram scheduler with the domain option) and the same programs in one process (the cyclic test's
/// dynamic scheme), with the rounds protocol; optionally a fault run that kills one child every few seconds.
/// </summary>
public static class ProcessesCommand
{
    /// <summary>Builds the command.</summary>
    /// <param name="host">The host.</param>
    /// <returns>The command.</returns>
    public static Command Create(CliHost host)
    {
        ArgumentNullException.ThrowIfNull(host);
        var common = new CommonOptions(host, CommonOptions.ThesisPrograms);
        var schemeOptions = new SchemeOptions([SchemeRegistry.Dynamic.Name], 5, "30 s at quick size, 480 s at thesis size");
        var modes = OptionTable.Names("--modes", "How the programs run (space- or comma-separated); joined-guests (opt-in): joined, lending idle CPUs across the processes at task grain; joined-local-sampling (opt-in): joined, each process sampling its estimator every 10 ms instead of 25 ms.", ProcessModes.Names, "mode",
            n => ProcessModes.All.Contains(n.Trim(), StringComparer.OrdinalIgnoreCase), ProcessModes.All);
        var killEvery = OptionTable.OptionalNumber("--kill-every",
            "Fault run: kill one child process (SIGKILL) every this many seconds and start a new one in its place (independent and joined; the killed run is run again, its time includes the restart).",
            above: 0, unit: "seconds");
        var childTimeout = OptionTable.Number("--child-timeout",
            "A child process not ready, or not answering a run, within this is killed and the run fails naming it (a starved or hung child is never waited for forever).",
            ProcessSchemeOptions.DefaultChildTimeout.TotalSeconds, above: 0, unit: "seconds");
        var childWarmup = OptionTable.Number("--child-warmup",
            "The least time each child spends on unrecorded runs (at least two) before a block starts, so that its code is as warm as the one-process mode's.",
            ChildLaunch.DefaultWarmupMilliseconds / 1000.0, atLeast: 0, unit: "seconds");
        var nameOption = OptionTable.FolderName("--name", "Results subfolder (and workload name).", "processes");
        var command = new Command("processes",
            "Each program in its own OS process: independent processes, processes joined in one machine domain, and one process; cyclic protocol with rounds, NTT, ANTT, STP per mode.");
        common.AddTo(command);
        foreach (Option option in new Option[]
        {
            schemeOptions.Duration, schemeOptions.Runs, schemeOptions.Warmup, schemeOptions.Rounds, schemeOptions.Bracket, schemeOptions.WarmupSeconds, schemeOptions.Profiles,
            schemeOptions.ProfileFallback, schemeOptions.RebalanceMilliseconds, schemeOptions.NoLending, schemeOptions.NoStandby, modes, killEvery, childTimeout, childWarmup, nameOption,
        })
        {
            command.Add(option);
        }

        CommandActions.Set(command, host, async (parse, cancellationToken) =>
        {
            CommonSettings settings = common.Read(parse, host.Machine);
            SchemeSettings schemes = schemeOptions.Read(parse, settings, TimeSpan.FromSeconds(settings.IsThesisSize ? 480 : 30));
            ProcessMode[] selected = [.. (parse.GetValue(modes) ?? []).Select(ProcessModes.Parse)];
            TimeSpan? kill = parse.GetValue(killEvery) is { } seconds ? TimeSpan.FromSeconds(seconds) : null;
            IReadOnlyList<WorkloadProgram> workload = WorkloadBuilder.Distinct(settings.Programs, settings.Sizes, settings.Seed);
            await CommonOptions.WarnAboutSizesAsync(host, workload).ConfigureAwait(false);
            await RunAsync(host, parse.GetValue(nameOption)!, workload, settings, schemes, selected, kill, cancellationToken, TimeSpan.FromSeconds(parse.GetValue(childTimeout)),
                TimeSpan.FromSeconds(parse.GetValue(childWarmup)))
                .ConfigureAwait(false);
        });
        return command;
    }

    /// <summary>Runs the experiment.</summary>
    /// <param name="host">The host.</param>
    /// <param name="experiment">Folder and workload name.</param>
    /// <param name="workload">Catalog programs.</param>
    /// <param name="common">Common settings.</param>
    /// <param name="schemes">Durations, rounds, profiles, rebalancing.</param>
    /// <param name="modes">The modes to compare.</param>
    /// <param name="killEvery">The fault option, or null.</param>
    /// <param name="cancellationToken">Cancels the run.</param>
    /// <param name="childTimeout">How long a child may take to be ready or to answer a run; null: <see cref="ProcessSchemeOptions.DefaultChildTimeout"/>.</param>
    /// <param name="childWarmup">The least time each child warms up before a block; null: <see cref="ProcessSchemeOptions.ChildWarmup"/>'s default.</param>
    /// <returns>The result.</returns>
    public static Task<CyclicExperimentResult> RunAsync(
        CliHost host, string experiment, IReadOnlyList<WorkloadProgram> workload, CommonSettings common, SchemeSettings schemes,
        IReadOnlyList<ProcessMode> modes, TimeSpan? killEvery, CancellationToken cancellationToken, TimeSpan? childTimeout = null, TimeSpan? childWarmup = null)
    {
        ArgumentNullException.ThrowIfNull(host);
        ArgumentNullException.ThrowIfNull(workload);
        ArgumentNullException.ThrowIfNull(common);
        ArgumentNullException.ThrowIfNull(schemes);
        ArgumentNullException.ThrowIfNull(modes);
        var guestLines = new List<string>();
        return ExperimentOutput.RunAsync(host, common.OutRoot, experiment, common.Workers, async (context, warn) =>
        {
            var resolver = new ProfileResolver(schemes.ProfilesPath, schemes.Fallback, host.Machine, common.Workers, schemes.ReferenceProfilesPath);
            IReadOnlyDictionary<string, ScalabilityProfile?> profiles = await resolver
                .ResolveAsync(workload, modes.Contains(ProcessMode.OneProcess), context.Progress, warn, cancellationToken).ConfigureAwait(false);
            var schemeContext = new SchemeContext(host.Machine, common.Workers, profiles, schemes.RebalanceInterval, host.Time, schemes.Lending)
            {
                Standby = schemes.Standby,
                LendingPreference = schemes.LendingPreference,
            };
            string domainDirectory = Path.Combine(Path.GetTempPath(), $"divcon-domain-{Environment.ProcessId}-{Guid.NewGuid():N}");
            // Private to this user (0700): the domain refuses a directory others may enter.
            if (OperatingSystem.IsWindows())
            {
                Directory.CreateDirectory(domainDirectory);
            }
            else
            {
                Directory.CreateDirectory(domainDirectory, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
            }

            try
            {
                var processOptions = new ProcessSchemeOptions(
                    schemeContext.Cpus, host.Machine.PinningSupported, schemes.RebalanceInterval, context.Output.PathOf("children"), domainDirectory, killEvery)
                {
                    ChildTimeout = childTimeout ?? ProcessSchemeOptions.DefaultChildTimeout,
                    ChildWarmup = childWarmup ?? TimeSpan.FromMilliseconds(ChildLaunch.DefaultWarmupMilliseconds),
                };
                IWorkloadScheme[] selected = [.. modes.Select(mode => mode == ProcessMode.OneProcess
                    ? CyclicWorkflow.Verified(new RenamedScheme(SchemeRegistry.Dynamic.Create(workload, schemeContext), ProcessModes.NameOf(mode)), workload, common.Verify)
                    : new ProcessScheme(mode, workload, processOptions))];
                context.Output.WriteJson("setup.json", new
                {
                    Experiment = experiment,
                    Workload = workload.Select(m => new { m.Name, Program = m.Program.Name, Size = m.Program.ProblemSize, m.Program.Seed }),
                    Modes = modes.Select(ProcessModes.NameOf),
                    Independent = "each program in its own process on the .NET thread pool (TaskScheduler.Default), DOTNET_PROCESSOR_COUNT = the workers",
                    Joined = "each program in its own process on a multiprogram scheduler over the run's CPUs, joined to one machine domain",
                    JoinedGuests = "as joined, with the domain's guests on: a CPU whose holder is idle runs another process's tasks, one at a time",
                    JoinedLocalSampling = "as joined, each process sampling its estimator every 10 ms (the in-process interval) instead of the domain's 25 ms",
                    OneProcess = $"every program in this process: the {SchemeRegistry.Dynamic.Name} scheme ({SchemeRegistry.Dynamic.Description})",
                    Isolated = "C_SP from isolated runs in this process on an affinity scheduler over the run's CPUs, as in cyclic",
                    KillEverySeconds = killEvery?.TotalSeconds,
                    ChildTimeoutSeconds = processOptions.ChildTimeout.TotalSeconds,
                    ChildWarmup = $"at least {ChildLaunch.DefaultWarmupRuns} unrecorded runs and {processOptions.ChildWarmup.TotalSeconds} s per child before each block",
                    common.Workers,
                    Cpus = schemeContext.Cpus,
                    host.Machine.PinningSupported,
                    TimeLimitSeconds = schemes.Duration.TotalSeconds,
                    IsolatedRuns = schemes.Runs,
                    schemes.Rounds,
                    schemes.Bracketed,
                    WarmupRoundSecondsPerScheme = schemes.WarmupTime.TotalSeconds,
                    RebalanceIntervalMs = schemes.RebalanceInterval.TotalMilliseconds,
                    common.Verify,
                });
                var options = CyclicWorkflow.Options(experiment, workload.Count, common, schemes, profiles);
                var isolated = CyclicWorkflow.Verified(SchemeRegistry.Isolated.Create(workload, schemeContext), workload, common.Verify);
                CyclicExperimentResult result = await new CyclicExperiment(options).RunAsync(isolated, selected, context, cancellationToken).ConfigureAwait(false);
                foreach (IncompleteScheme scheme in result.Incomplete)
                {
                    warn($"No metrics {scheme}: some program completed no run within the duration (children killed too often, or a longer --duration is needed).");
                }

                foreach (ProcessScheme scheme in selected.OfType<ProcessScheme>())
                {
                    // Only what went wrong is a warning: a child attached to its domain is the expected case.
                    foreach (string status in scheme.DomainStatuses.Where(s => s != "-" && !s.EndsWith(": attached", StringComparison.Ordinal)))
                    {
                        warn($"{scheme.Name}: the children said: {status}");
                    }

                    if (scheme.Name != ProcessModes.NameOf(ProcessMode.Independent) && scheme.DomainStatuses.Any(s => !s.EndsWith(": attached", StringComparison.Ordinal)))
                    {
                        warn($"{scheme.Name}: the children ran WITHOUT a machine domain (each on its multiprogram scheduler over every CPU of the run): "
                            + "its figures are those of independent multiprogram schedulers, not of a joined domain.");
                    }

                    if (scheme.Name == ProcessModes.NameOf(ProcessMode.JoinedGuests))
                    {
                        GuestTotals totals = CrossProcessGuests.Read(processOptions.ChildrenFolder, scheme.Name, workload.Count);
                        context.Output.WriteText("guests.csv", w => totals.WriteCsv(scheme.Name, w));
                        guestLines.Add($"{scheme.Name}: {totals}");
                    }

                    if (scheme.Kills > 0)
                    {
                        warn($"{scheme.Name}: {scheme.Kills} children killed and replaced (children/kills.csv).");
                    }
                }

                return result;
            }
            finally
            {
                try
                {
                    Directory.Delete(domainDirectory, recursive: true);
                }
                catch (IOException)
                {
                }
                catch (UnauthorizedAccessException)
                {
                }
            }
        }, result =>
        {
            SummaryTable.Render(host.Console, result.Metrics);
            RoundsTable.Render(host.Console, result);
            foreach (string line in guestLines)
            {
                host.Console.WriteLine(line, Style.Plain);
            }
        }, cancellationToken);
    }
}
