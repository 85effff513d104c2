using System.CommandLine;
using System.Globalization;
using DivCon.Harness.Experiments;
using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using DivCon.Harness.Terminal;
using DivCon.Harness.Workload;
using DivCon.Schedulers.Multiprogram.Profiles;
using DivCon.Schedulers.Multiprogram.Profiling;
using DivCon.Schedulers.Topology;

namespace DivCon.Harness.Cli;
/// <summary>
/// <c>scalability</c>: each program alone on 1..N pinned workers, contiguous and dispersed CPUs (thesis 7.2,
/// figures 7.3 and 7.4); speedup against a sequential run on one pinned core. Stores the contiguous results as
/// scalability profiles (<see cref="ScalabilityProfileStore"/>) for the partitioning schemes and the oracle.
/// Then one observed run per program and core count feeds the performance model (<c>performance.*</c>).
/// </summary>
public static class ScalabilityCommand
{
    private static readonly string[] s_strategies = ["contiguous", "dispersed", "cache-aligned"];

    /// <summary>Default core counts: every count up to 16, then powers of two and the maximum.</summary>
    /// <param name="cpus">The allowed CPU count.</param>
    /// <returns>Ascending core counts.</returns>
    public static IReadOnlyList<int> DefaultCores(int cpus)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(cpus, 1);
        var counts = new SortedSet<int>(Enumerable.Range(1, Math.Min(cpus, 16)));
        for (int c = 32; c < cpus; c *= 2)
        {
            counts.Add(c);
        }

        counts.Add(cpus);
        return counts.ToArray();
    }

    /// <summary>Builds the command.</summary>
    /// <param name="host">The host.</param>
    /// <returns>The command.</returns>
    public static Command Create(CliHost host)
    {
        ArgumentNullException.ThrowIfNull(host);
        var common = new CommonOptions(host, CommonOptions.ThesisPrograms);
        var sweep = new SweepOptions(defaultRuns: 10);
        var cores = OptionTable.WholeList("--cores", "Core counts to measure. [default: 1..min(N,16), then powers of two and N]", null, 1, () => host.Machine.CpuCount, "the allowed CPUs");
        var allocations = OptionTable.Names("--allocation", "CPU allocation strategies (profiles use contiguous).", ["contiguous", "dispersed"], "strategy",
            n => s_strategies.Contains(n, StringComparer.OrdinalIgnoreCase), s_strategies);
        var profiles = OptionTable.Text("--profiles", $"Profile store to update. [default: <out>/profiles.json, i.e. {CommonOptions.AdHocRoot}/profiles.json without --out]", null, "file");
        var command = new Command("scalability", "Speedup vs workers on the affinity scheduler, contiguous vs dispersed CPUs; stores scalability profiles.");
        common.AddTo(command);
        sweep.AddTo(command);
        command.Add(cores);
        command.Add(allocations);
        command.Add(profiles);
        CommandActions.Set(command, host, async (parse, cancellationToken) =>
        {
            CommonSettings settings = common.Read(parse, host.Machine);
            IReadOnlyList<WorkloadProgram> workload = WorkloadBuilder.Distinct(settings.Programs, settings.Sizes, settings.Seed);
            await CommonOptions.WarnAboutSizesAsync(host, workload).ConfigureAwait(false);
            int[] coreCounts = (parse.GetValue(cores) is { Length: > 0 } given ? given : DefaultCores(settings.Workers).ToArray()).Distinct().Order().ToArray();
            CpuAllocationStrategy[] strategies = (parse.GetValue(allocations) ?? []).Select(ParseStrategy).Distinct().ToArray();
            string storePath = parse.GetValue(profiles) ?? Path.Combine(settings.OutRoot, "profiles.json");
            int runs = parse.GetValue(sweep.Runs);
            int warmup = parse.GetValue(sweep.Warmup!);
            if (strategies.Contains(CpuAllocationStrategy.Contiguous))
            {
                // Found now, not after the sweep: a profile store that cannot be written.
                ScalabilityProfileFile.EnsureWritable(storePath);
            }

            await ExperimentOutput.RunAsync(host, settings.OutRoot, "scalability", coreCounts.Max(), async (context, warn) =>
            {
                var slot = new SchedulerSlot();
                try
                {
                    var sequentialRunner = new SweepRunner(runs, warmup, timeProvider: host.Time, progress: context.Progress);
                    IReadOnlyList<int> firstCpu = host.Machine.CpusFor(1);
                    SweepResult sequential = await sequentialRunner.RunAsync("sequential", workload.Select(m => new SweepCase(m.Name, 1, ct =>
                        Task.Run(() => SchedulerFactory.RunSequentialAsync(m.Program, slot.Get("sequential", () => SchedulerFactory.Create(host.Machine, firstCpu)), ct), ct))).ToArray(),
                        cancellationToken).ConfigureAwait(false);
                    context.Output.WriteText("sequential.csv", w => Csv.Write(w, ["program", "run_index", "seconds"],
                        sequential.Points.SelectMany(p => p.Seconds.Select((s, i) => (IReadOnlyList<string>)[p.Series, i.ToString(CultureInfo.InvariantCulture), Csv.Number(s)]))));

                    var baselines = new Dictionary<string, double>(StringComparer.Ordinal);
                    var cases = new List<SweepCase>();
                    foreach (WorkloadProgram member in workload)
                    {
                        double seqSeconds = sequential.Points.Single(p => p.Series == member.Name).Time.Mean;
                        foreach (CpuAllocationStrategy strategy in strategies)
                        {
                            string series = SeriesName(member.Name, strategy);
                            baselines[series] = seqSeconds;
                            foreach (int count in coreCounts)
                            {
                                string key = string.Create(CultureInfo.InvariantCulture, $"{strategy} {count}");
                                cases.Add(new SweepCase(series, count, ct => Task.Run(() =>
                                    member.Program.RunParallelAsync(
                                        slot.Get(key, () => SchedulerFactory.Create(host.Machine, CpuAllocation.Allocate(host.Machine.Topology, count, strategy))),
                                        cancellationToken: ct), ct)));
                            }
                        }
                    }

                    var runner = new SweepRunner(runs, warmup, timeProvider: host.Time, progress: context.Progress)
                    {
                        CaseCompleted = partial => SweepReportWriter.WriteRuns(context.Output, partial),
                    };
                    (SweepResult sweep, _) = await new ScalabilityExperiment(runner).RunAsync(cases, baselines, context, cancellationToken).ConfigureAwait(false);
                    if (settings.Verify)
                    {
                        Verification.VerifyAll(workload, "scalability"); // before profiles are stored and results published
                    }

                    if (strategies.Contains(CpuAllocationStrategy.Contiguous))
                    {
                        SaveProfiles(storePath, workload, sequential, sweep, host.Machine.Describe(coreCounts.Max()), host.Time.GetUtcNow());
                        warn($"Scalability profiles of {string.Join(", ", workload.Select(m => m.Name))} stored in {Path.GetFullPath(storePath)}.");
                    }

                    // The performance model: one observed run per program and core count (contiguous CPUs, after the
                    // timed sweep so that the observer never touches its timings), each compared with one core.
                    var observations = new List<(string Program, RunObservation Run)>();
                    int[] modelCounts = [.. coreCounts.Append(1).Distinct().Order()];
                    context.Progress.BeginPhase("performance model", workload.Count * modelCounts.Length);
                    foreach (WorkloadProgram member in workload)
                    {
                        foreach (int count in modelCounts)
                        {
                            TaskScheduler scheduler = slot.Get(string.Create(CultureInfo.InvariantCulture, $"{CpuAllocationStrategy.Contiguous} {count}"),
                                () => SchedulerFactory.Create(host.Machine, CpuAllocation.Allocate(host.Machine.Topology, count, CpuAllocationStrategy.Contiguous)));
                            RunObservation run = await Task.Run(() => RunObservation.ObserveAsync(count,
                                (observer, ct) => member.Program.RunParallelAsync(scheduler, observer: observer, cancellationToken: ct), host.Time, cancellationToken), cancellationToken).ConfigureAwait(false);
                            observations.Add((member.Name, run));
                            context.Progress.Report("performance model", observations.Count, $"{member.Name} on {count} core(s)");
                        }
                    }

                    context.Progress.EndPhase("performance model");
                    (string Program, PerformanceBreakdown Breakdown)[] model = observations
                        .Where(o => o.Run.Workers != 1 || coreCounts.Contains(1))
                        .Select(o => (o.Program, PerformanceModel.Analyze(o.Run, observations.Single(b => b.Program == o.Program && b.Run.Workers == 1).Run)))
                        .ToArray();
                    PerformanceReport.WriteFiles(context.Output, model);
                    context.Output.WriteText("performance.md", w =>
                    {
                        w.WriteLine("# Scalability: performance model");
                        w.WriteLine();
                        PerformanceReport.WriteMarkdown(w, model);
                        MarkdownStamp.Write(w, context.Output.Stamp);
                    });
                    return (sweep, model);
                }
                finally
                {
                    await SchedulerFactory.DisposeOffWorkersAsync(slot).ConfigureAwait(false);
                }
            }, result =>
            {
                host.Console.Write(SweepTable.Build(result.sweep, "Cores"));
                host.Console.Write(PerformanceTable.Build(result.model));
            }, cancellationToken).ConfigureAwait(false);
        });
        return command;
    }

    private static string SeriesName(string program, CpuAllocationStrategy strategy) => strategy switch
    {
        CpuAllocationStrategy.Contiguous => program,
        CpuAllocationStrategy.Dispersed => $"{program} (dispersed)",
        _ => $"{program} (cache-aligned)",
    };

    private static CpuAllocationStrategy ParseStrategy(string name) => name.ToUpperInvariant() switch
    {
        "CONTIGUOUS" => CpuAllocationStrategy.Contiguous,
        "DISPERSED" => CpuAllocationStrategy.Dispersed,
        "CACHE-ALIGNED" => CpuAllocationStrategy.CacheAligned,
        _ => throw new ArgumentException($"Unknown allocation strategy '{name}'. Known: {string.Join(", ", s_strategies)}.", nameof(name)),
    };

    private static void SaveProfiles(string path, IReadOnlyList<WorkloadProgram> workload, SweepResult sequential, SweepResult sweep, string machine, DateTimeOffset now)
    {
        var profiles = new List<ScalabilityProfile>();
        foreach (WorkloadProgram member in workload)
        {
            TimeSpan seq = TimeSpan.FromSeconds(sequential.Points.Single(p => p.Series == member.Name).Time.Mean);
            CoreTiming[] timings = sweep.Points.Where(p => p.Series == member.Name)
                .Select(p => new CoreTiming((int)p.X, TimeSpan.FromSeconds(p.Time.Mean))).ToArray();
            profiles.Add(ScalabilityProfile.FromTimings(member.Program.Name, member.ProblemSizeKey, seq, timings, machine, now));
        }

        // Merged under the store's lock: profiles another run stored since this one started are kept.
        ScalabilityProfileFile.Merge(path, profiles);
    }
}
