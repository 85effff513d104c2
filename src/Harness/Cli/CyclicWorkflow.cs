using DivCon.Harness.Experiments;
using DivCon.Harness.Machine;
using DivCon.Harness.Terminal;
using DivCon.Harness.Workload;
using DivCon.Schedulers.Multiprogram.Profiles;

namespace DivCon.Harness.Cli;

/// <summary>
/// A cyclic multiprogram test from settings to files: profiles (for the partitioning schemes and the oracle), the
/// isolated scheme for C_SP, every selected scheme (each verified on close unless disabled), the experiment, the
/// tables. Shared by the demo, cyclic and symmetric commands.
/// </summary>
public static class CyclicWorkflow
{
    /// <summary>Runs the test.</summary>
    /// <param name="host">The host.</param>
    /// <param name="experiment">Folder and workload name.</param>
    /// <param name="workload">The programs.</param>
    /// <param name="common">Common settings.</param>
    /// <param name="schemes">Scheme settings.</param>
    /// <param name="cancellationToken">Cancels the test.</param>
    /// <returns>The experiment's result.</returns>
    public static Task<CyclicExperimentResult> RunAsync(
        CliHost host, string experiment, IReadOnlyList<WorkloadProgram> workload, CommonSettings common, SchemeSettings schemes, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(host);
        ArgumentNullException.ThrowIfNull(workload);
        ArgumentNullException.ThrowIfNull(common);
        ArgumentNullException.ThrowIfNull(schemes);
        SchemeDefinition[] definitions = schemes.Schemes.Select(SchemeRegistry.Find).ToArray();
        return ExperimentOutput.RunAsync(host, common.OutRoot, experiment, common.Workers, async (context, warn) =>
        {
            var resolver = new ProfileResolver(schemes.ProfilesPath, schemes.Fallback, host.Machine, common.Workers, schemes.ReferenceProfilesPath);
            IReadOnlyDictionary<string, ScalabilityProfile?> profiles = await resolver
                .ResolveAsync(workload, definitions.Any(d => d.UsesProfiles), context.Progress, warn, cancellationToken).ConfigureAwait(false);
            var schemeContext = new SchemeContext(host.Machine, common.Workers, profiles, schemes.RebalanceInterval, host.Time, schemes.Lending)
            {
                Standby = schemes.Standby,
                LendingPreference = schemes.LendingPreference,
            };
            context.Output.WriteJson("setup.json", Setup(experiment, workload, definitions, schemeContext, common, schemes));
            var options = Options(experiment, workload.Count, common, schemes, profiles);
            var isolated = Verified(SchemeRegistry.Isolated.Create(workload, schemeContext), workload, common.Verify);
            var selected = definitions.Select(d => Verified(d.Create(workload, schemeContext), workload, common.Verify)).ToArray();
            CyclicExperimentResult result = await new CyclicExperiment(options).RunAsync(isolated, selected, context, cancellationToken).ConfigureAwait(false);
            foreach (IncompleteScheme scheme in result.Incomplete)
            {
                warn($"No metrics {scheme}: a partitioning scheme gives no core to some program when programs outnumber workers (it then runs only on lent workers); use a longer --duration or fewer programs.");
            }

            return result;
        }, result =>
        {
            SummaryTable.Render(host.Console, result.Metrics);
            RoundsTable.Render(host.Console, result);
        }, cancellationToken);
    }

    /// <summary>The experiment's options from the settings (also the processes experiment's).</summary>
    internal static CyclicExperimentOptions Options(
        string experiment, int programs, CommonSettings common, SchemeSettings schemes, IReadOnlyDictionary<string, ScalabilityProfile?> profiles) => new()
    {
        Workload = experiment,
        TimeLimit = schemes.Duration,
        SingleProgramRuns = schemes.Runs,
        WarmupRuns = schemes.Warmup,
        Rounds = schemes.Rounds,
        Bracketed = schemes.Bracketed,
        WarmupTime = schemes.WarmupTime,
        Cores = common.Workers,
        // The oracle gives every program at least one core: only defined with no more programs than cores.
        SpeedupTables = programs <= common.Workers ? ProfileResolver.OracleTables(profiles) : null,
    };

    /// <summary>The scheme, checking the programs' results when it closes unless verification is off.</summary>
    internal static IWorkloadScheme Verified(IWorkloadScheme scheme, IReadOnlyList<WorkloadProgram> workload, bool verify) =>
        verify ? new VerifyingScheme(scheme, workload) : scheme;

    private static object Setup(
        string experiment, IReadOnlyList<WorkloadProgram> workload, IReadOnlyList<SchemeDefinition> definitions, SchemeContext context, CommonSettings common, SchemeSettings schemes) => new
        {
            Experiment = experiment,
            Workload = workload.Select(m => new { m.Name, Program = m.Program.Name, Size = m.Program.ProblemSize, m.Program.Seed }),
            Isolated = context.Machine.PinningSupported
                ? $"AffinityTaskScheduler pinned to CPUs {string.Join(",", context.Cpus)}"
                : $"WorkStealingTaskScheduler with {context.Workers} unpinned workers (pinning unsupported)",
            Schemes = definitions.Select(d => new { d.Name, d.Description }),
            context.Workers,
            Cpus = context.Cpus,
            context.Machine.PinningSupported,
            context.Machine.Environment.CpuQuota,
            TimeLimitSeconds = schemes.Duration.TotalSeconds,
            IsolatedRuns = schemes.Runs,
            WarmupRuns = schemes.Warmup,
            schemes.Rounds,
            schemes.Bracketed,
            WarmupRoundSecondsPerScheme = schemes.WarmupTime.TotalSeconds,
            RebalanceIntervalMs = schemes.RebalanceInterval.TotalMilliseconds,
            schemes.Lending,
            LendingPreference = SchemeOptions.LendingPreferenceNames[(int)schemes.LendingPreference],
            schemes.Standby,
            // Relative to the working directory when inside it, so a record names no machine's paths.
            ProfileStore = CommandLineText.RelativeTo(Path.GetFullPath(schemes.ProfilesPath), Environment.CurrentDirectory),
            ReferenceProfileStore = schemes.ReferenceProfilesPath is { } reference
                ? CommandLineText.RelativeTo(Path.GetFullPath(reference), Environment.CurrentDirectory)
                : null,
            Profiles = context.Profiles.ToDictionary(
                kv => kv.Key,
                kv => kv.Value is { } p ? new { p.Machine, p.MeasuredAt, Speedups = p.Speedups.ToString() } : null),
            common.Verify,
        };
}
