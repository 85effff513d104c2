using System.CommandLine;
using System.Globalization;
using DivCon.Harness.Reports;
using DivCon.Harness.Simulation;
using DivCon.Harness.Terminal;
using DivCon.Programs;
using DivCon.Simulator;
using DivCon.Skeletons.Tracing;
using Spectre.Console;

namespace DivCon.Harness.Cli;
/// <summary>
/// <c>simulate</c>: replays recorded task trees (from <c>trace</c>) on N simulated cores under the schemes, with the
/// project's own policies making the partitioning decisions, and writes the same reports as the real experiments,
/// labelled simulated. Modes: <c>cyclic</c> (the workload's programs restarted until the time limit),
/// <c>symmetric</c> (k instances of each program in turn), <c>scalability</c> (each program alone on 1..N cores) and
/// <c>validate</c> (the measured experiments under <c>--measured</c> simulated on their machine's core count, and the
/// simulated figures compared with the measured ones: see <see cref="SimulationValidation"/>).
/// </summary>
public static class SimulateCommand
{
    /// <summary>Builds the command.</summary>
    /// <param name="host">The host.</param>
    /// <returns>The command.</returns>
    public static Command Create(CliHost host)
    {
        ArgumentNullException.ThrowIfNull(host);
        var mode = new Option<string>("--mode") { Description = "cyclic, symmetric, scalability or validate.", DefaultValueFactory = _ => "cyclic", HelpName = "mode" };
        mode.AcceptOnlyFromAmong("cyclic", "symmetric", "scalability", "validate");
        var measured = new Option<string>("--measured")
        {
            Description = "Validate mode: the measured results root (scalability/ and the cyclic folders); the core count is the measured one.",
            DefaultValueFactory = _ => CommonOptions.ReferenceRoot,
            HelpName = "folder",
        };
        var validateFolders = new Option<string[]>("--validate-folders")
        {
            Description = "Validate mode: measured cyclic/symmetric folders to compare.",
            DefaultValueFactory = _ => [.. SimulationValidation.DefaultFolders],
            AllowMultipleArgumentsPerToken = true,
            HelpName = "folder,...",
        };
        var traceDir = new Option<string>("--trace-dir", "-t") { Description = "Folder of .dctree files written by the trace command (default: the committed thesis-size traces).", DefaultValueFactory = _ => "traces/thesis", HelpName = "folder" };
        var programs = NameListOption.Create("--programs", "Programs to simulate (each needs a trace).", CommonOptions.ThesisPrograms, "program",
            n => ProgramCatalog.TryFind(n, out _), ProgramCatalog.Names, "-p");
        string[] schemeNames = [.. SimulatedSchemes.All.Select(s => s.Name())];
        var schemes = NameListOption.Create("--schemes", "Schemes to simulate.", schemeNames, "scheme",
            n => schemeNames.Contains(n, StringComparer.OrdinalIgnoreCase), schemeNames, "-s");
        var cores = new Option<int>("--cores", "-c") { Description = "Simulated cores.", DefaultValueFactory = _ => 64 };
        cores.Validators.Add(r => SweepOptions.AtLeast(r, "--cores", 1));
        var duration = new Option<double>("--duration", "-d") { Description = "Time limit of each cyclic/symmetric test, simulated seconds.", DefaultValueFactory = _ => 400 };
        duration.Validators.Add(r =>
        {
            double d = r.GetValueOrDefault<double>();
            if (!double.IsFinite(d) || d <= 0)
            {
                r.AddError(string.Create(CultureInfo.InvariantCulture, $"--duration must be a positive number of seconds, not {d}."));
            }
        });
        var instances = new Option<int>("--instances", "-k") { Description = "Symmetric mode: instances of each program.", DefaultValueFactory = _ => 4 };
        instances.Validators.Add(r => SweepOptions.AtLeast(r, "--instances", 1));
        var traceWorkers = new Option<int>("--trace-workers") { Description = "Use traces recorded on this many workers.", DefaultValueFactory = _ => 1 };
        traceWorkers.Validators.Add(r => SweepOptions.AtLeast(r, "--trace-workers", 1));
        var seed = new Option<int>("--seed") { Description = "Seed of the simulation's random choices.", DefaultValueFactory = _ => 1 };
        var name = new Option<string?>("--name") { Description = "Results subfolder. [default: simulated-<mode>-<cores>]", HelpName = "folder" };
        var outRoot = new Option<string>("--out", "-o")
        {
            Description = $"Results root folder (reference results: --out {CommonOptions.ReferenceRoot}).",
            DefaultValueFactory = _ => CommonOptions.AdHocRoot,
            HelpName = "folder",
        };
        var taskOverhead = new Option<long>("--task-overhead-ns") { Description = "Machinery per task, ns.", DefaultValueFactory = _ => new SimulationOptions().TaskOverheadNs };
        var stealOverhead = new Option<long>("--steal-overhead-ns") { Description = "Extra cost of a stolen task, ns.", DefaultValueFactory = _ => new SimulationOptions().StealOverheadNs };
        var noStandby = new Option<bool>("--no-standby")
        {
            Description = "Partitioning: no standby worker per core, so a busy worker moves only at its next task boundary (the mechanism's --no-standby; default: standby handover after 1 ms).",
        };
        var noLending = new Option<bool>("--no-lending") { Description = "Partitioning: idle workers do not serve other programs." };
        var interval = new Option<double>("--decision-interval-ms")
        {
            Description = "Partitioning: milliseconds between the schemes' decisions.",
            DefaultValueFactory = _ => new SimulationOptions().RebalanceInterval.TotalMilliseconds,
        };
        interval.Validators.Add(r =>
        {
            // From the token, as SweepOptions does: an unparsable token is the parser's error.
            if (r.Tokens.Count > 0
                && double.TryParse(r.Tokens[^1].Value, NumberStyles.Float, CultureInfo.InvariantCulture, out double ms)
                && !(ms > 0 && ms <= 3_600_000))
            {
                r.AddError($"--decision-interval-ms must be above 0 and at most 3600000 milliseconds, not {r.Tokens[^1].Value}.");
            }
        });
        var availability = new Option<string>("--availability")
        {
            Description = "dynamic scheme: what its policy reads as a program's available tasks: queued (the mechanism's), queued-running (queued plus running tasks) or smoothed (a smoothed history of queued).",
            DefaultValueFactory = _ => "queued",
        };
        availability.AcceptOnlyFromAmong("queued", "queued-running", "smoothed");
        var extraThreads = new Option<int>("--pool-extra-threads") { Description = "default scheme: threads the .NET pool's minimum has beyond one per core (as if raised with ThreadPool.SetMinThreads).", DefaultValueFactory = _ => 0 };
        extraThreads.Validators.Add(r => SweepOptions.AtLeast(r, "--pool-extra-threads", 0));
        var waveMagnitude = new Option<int>("--pool-wave-magnitude")
        {
            Description = "default scheme: threads hill climbing's wave adds to the pool's goal every other pair of samples (0: no wave).",
            DefaultValueFactory = _ => new SimulationOptions().ThreadPoolWaveMagnitude,
        };
        waveMagnitude.Validators.Add(r => SweepOptions.AtLeast(r, "--pool-wave-magnitude", 0));
        var noInjection = new Option<bool>("--pool-no-injection")
        {
            Description = "default scheme: no starvation injection (the pool keeps one thread per core plus --pool-extra-threads; default: the runtime's gate rule).",
        };
        var inflation = new Option<string?>("--inflation") { Description = "Work inflation 'alpha[,knee]': tasks take (1 + alpha x busy cores beyond knee / cores beyond knee) longer. [default: off]", HelpName = "alpha[,knee]" };
        var coarsen = new Option<double>("--coarsen-us") { Description = "Simulate subtrees with at most this much work (us) as one task (speed; 0 = off).", DefaultValueFactory = _ => 0 };
        var flatten = new Option<long>("--flatten-ns") { Description = "Dissolve internal nodes whose split + merge take at most this many ns into their parent (speed; 0 = off).", DefaultValueFactory = _ => 0 };
        var clamp = new Option<double>("--clamp-outliers")
        {
            Description = "Replace a recorded duration more than this many times the median of the same phase at the same depth by that median (a collection pause or preemption inside one task); 0 = off.",
            DefaultValueFactory = _ => 10,
        };
        taskOverhead.Validators.Add(r => SweepOptions.NotNegative(r, "--task-overhead-ns", "nanoseconds"));
        stealOverhead.Validators.Add(r => SweepOptions.NotNegative(r, "--steal-overhead-ns", "nanoseconds"));
        coarsen.Validators.Add(r => SweepOptions.NotNegative(r, "--coarsen-us", "microseconds"));
        flatten.Validators.Add(r => SweepOptions.NotNegative(r, "--flatten-ns", "nanoseconds"));
        clamp.Validators.Add(r => SweepOptions.NotNegative(r, "--clamp-outliers", "times the median", orAbove: 1));
        var command = new Command("simulate", "Replay recorded task trees on N simulated cores under the schemes (cyclic, symmetric or scalability); reports labelled simulated.")
        {
            mode, traceDir, programs, schemes, cores, duration, instances, traceWorkers, seed, name, outRoot, taskOverhead, stealOverhead, noStandby, noLending, interval, availability, measured, validateFolders, extraThreads, waveMagnitude, noInjection, inflation, coarsen, flatten, clamp,
        };
        CommandActions.Set(command, host, async (parse, cancellationToken) =>
        {
            string modeName = parse.GetValue(mode)!;
            string[] folders = [.. (parse.GetValue(validateFolders) ?? []).SelectMany(f => f.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))];
            // Validation simulates the measuring machine: its worker count, not --cores.
            int coreCount = modeName == "validate" ? SimulationValidation.MeasuredWorkers(parse.GetValue(measured)!, folders) : parse.GetValue(cores);
            var options = new SimulationOptions
            {
                Cores = coreCount,
                Seed = parse.GetValue(seed),
                TaskOverheadNs = parse.GetValue(taskOverhead),
                StealOverheadNs = parse.GetValue(stealOverhead),
                StandbyHandover = !parse.GetValue(noStandby),
                Lending = !parse.GetValue(noLending),
                RebalanceInterval = TimeSpan.FromMilliseconds(parse.GetValue(interval)),
                Availability = parse.GetValue(availability) switch
                {
                    "queued-running" => AvailabilitySignal.QueuedAndRunning,
                    "smoothed" => AvailabilitySignal.Smoothed,
                    _ => AvailabilitySignal.Queued,
                },
                ThreadPoolExtraThreads = parse.GetValue(extraThreads),
                ThreadPoolStarvationInjection = !parse.GetValue(noInjection),
                ThreadPoolWaveMagnitude = parse.GetValue(waveMagnitude),
                Inflation = ParseInflation(parse.GetValue(inflation)),
                CoarsenBelow = TimeSpan.FromMicroseconds(parse.GetValue(coarsen)),
                FlattenBelowNs = parse.GetValue(flatten),
                ClampOutliers = parse.GetValue(clamp),
            };
            WorkloadSimulator simulator;
            try
            {
                simulator = new WorkloadSimulator(options);
            }
            catch (ArgumentOutOfRangeException e)
            {
                throw new ArgumentException($"Bad simulation setting: {e.Message}", e);
            }

            string folder = parse.GetValue(name) ?? string.Create(CultureInfo.InvariantCulture, $"simulated-{modeName}-{coreCount}");
            string[] programNames = [.. (parse.GetValue(programs) ?? []).Select(p => ProgramCatalog.TryFind(p, out var d) ? d!.Name : p)];
            SimulatedScheme[] schemeList = [.. (parse.GetValue(schemes) ?? []).Select(SimulatedSchemes.Parse)];
            var traces = programNames
                .Select(p => TraceLibrary.Load(parse.GetValue(traceDir)!, p, parse.GetValue(traceWorkers), coreCount, options.CoarsenBelow.Ticks * 100, options.FlattenBelowNs, options.ClampOutliers))
                .ToList();
            var labels = traces.Select(t => (t.Program.Name, t.Path, Describe(t.Tree))).ToList();
            TimeSpan limit = TimeSpan.FromSeconds(parse.GetValue(duration));
            switch (modeName)
            {
                case "scalability":
                    await ExperimentOutput.RunAsync(host, parse.GetValue(outRoot)!, folder, coreCount, (context, _) =>
                    {
                        var counts = new List<int>();
                        for (int c = 1; c < coreCount; c *= 2)
                        {
                            counts.Add(c);
                        }

                        counts.Add(coreCount);
                        var rows = SimulatedExperiments.RunScalability(simulator, [.. traces.Select(t => t.Program)], counts, cancellationToken);
                        WriteScalability(context.Output, rows, coreCount);
                        SimulatedExperiments.WriteLabel(context.Output, options, labels);
                        return Task.FromResult(rows);
                    }, rows => host.Console.Write(ScalabilityTable(rows)), cancellationToken).ConfigureAwait(false);
                    break;
                case "validate":
                    await ExperimentOutput.RunAsync(host, parse.GetValue(outRoot)!, folder, coreCount, (context, _) =>
                    {
                        var byProgram = traces.ToDictionary(t => t.Program.Name, t => t.Program, StringComparer.Ordinal);
                        SimulatedProgram Load(string program) => byProgram.TryGetValue(program, out var p)
                            ? p
                            : byProgram[program] = TraceLibrary.Load(parse.GetValue(traceDir)!, program, parse.GetValue(traceWorkers), coreCount, options.CoarsenBelow.Ticks * 100, options.FlattenBelowNs, options.ClampOutliers).Program;
                        var report = SimulationValidation.Run(simulator, parse.GetValue(measured)!, Load, folders, context, cancellationToken);
                        string title = string.Create(CultureInfo.InvariantCulture,
                            $"Simulated on {coreCount} cores from the traces in `{parse.GetValue(traceDir)}` (standby handover {(options.StandbyHandover ? "on" : "off")}, seed {options.Seed}), against the measured results in `{parse.GetValue(measured)}`.");
                        SimulationValidation.Write(context.Output, report, title);
                        SimulatedExperiments.WriteLabel(context.Output, options, labels);
                        return Task.FromResult(report);
                    }, report =>
                    {
                        var text = new StringWriter(CultureInfo.InvariantCulture);
                        SimulationValidation.WriteMarkdown(text, report, string.Empty);
                        host.Console.WriteLine(text.ToString());
                    }, cancellationToken).ConfigureAwait(false);
                    break;
                case "symmetric":
                    foreach (var trace in traces)
                    {
                        int k = parse.GetValue(instances);
                        var copies = Enumerable.Range(1, k)
                            .Select(i => new SimulatedProgram(string.Create(CultureInfo.InvariantCulture, $"{trace.Program.Name}#{i}"), trace.Program.Graph))
                            .ToList();
                        string sub = $"{folder}-{trace.Program.Name}";
                        await RunCyclicAsync(host, parse.GetValue(outRoot)!, sub, simulator, copies, schemeList, limit,
                            string.Create(CultureInfo.InvariantCulture, $"symmetric {k} x {trace.Program.Name}"), options, [labels.First(l => l.Name == trace.Program.Name)], cancellationToken).ConfigureAwait(false);
                    }

                    break;
                default:
                    await RunCyclicAsync(host, parse.GetValue(outRoot)!, folder, simulator, [.. traces.Select(t => t.Program)], schemeList, limit,
                        string.Create(CultureInfo.InvariantCulture, $"cyclic-{traces.Count}"), options, labels, cancellationToken).ConfigureAwait(false);
                    break;
            }
        });
        return command;
    }

    private static async Task RunCyclicAsync(
        CliHost host, string outRoot, string folder, WorkloadSimulator simulator, IReadOnlyList<SimulatedProgram> programs, IReadOnlyList<SimulatedScheme> schemes,
        TimeSpan limit, string workload, SimulationOptions options, IReadOnlyList<(string, string, string)> labels, CancellationToken cancellationToken) =>
        await ExperimentOutput.RunAsync(host, outRoot, folder, options.Cores, (context, _) =>
        {
            TimeSpan cpuBefore = Environment.CpuUsage.TotalTime;
            long start = System.Diagnostics.Stopwatch.GetTimestamp();
            var (result, costs) = SimulatedExperiments.RunCyclic(simulator, programs, schemes, limit, workload, context, cancellationToken);
            double wall = System.Diagnostics.Stopwatch.GetElapsedTime(start).TotalSeconds;
            var total = new SimulationCost(wall, (Environment.CpuUsage.TotalTime - cpuBefore).TotalSeconds, Environment.ProcessorCount);
            SimulatedExperiments.WriteLabel(context.Output, options, labels, costs, total);
            return Task.FromResult((result, costs, total));
        }, r =>
        {
            host.Console.MarkupLine($"[bold]SIMULATED[/] ({options.Cores} cores): {Markup.Escape(r.result.Workload)}");
            SummaryTable.Render(host.Console, r.result.Metrics);
            host.Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"Simulation cost: {r.total.WallSeconds:0.0} s wall in all ({r.costs.Count} scheme(s) in parallel on {Environment.ProcessorCount} CPUs, {r.costs.Sum(c => c.WallSeconds):0.0} s summed over schemes, {r.total.CpuSeconds:0.0} s CPU time), {r.costs.Sum(c => c.Counters.Tasks)} tasks."));
        }, cancellationToken).ConfigureAwait(false);

    private static string Describe(TaskTree tree)
    {
        string run = tree.Property("runSeconds") is { } s && double.TryParse(s, CultureInfo.InvariantCulture, out double v)
            ? v.ToString("0.###", CultureInfo.InvariantCulture)
            : "?";
        return string.Create(CultureInfo.InvariantCulture,
            $"{tree.Property("preset") ?? "?"} size {tree.Property("size") ?? "?"}, {tree.Property("workers") ?? "?"} worker(s), granularity for {tree.Property("granularityCores") ?? "?"} cores, {tree.Nodes.Count} nodes{(tree.NestedRuns.Count > 0 ? $" (+{tree.TotalNodeCount - tree.Nodes.Count} in nested runs)" : "")}, run {run} s");
    }

    private static WorkInflation ParseInflation(string? text)
    {
        if (string.IsNullOrWhiteSpace(text))
        {
            return WorkInflation.None;
        }

        string[] parts = text.Split(',', StringSplitOptions.TrimEntries);
        if (parts.Length > 2
            || !double.TryParse(parts[0], NumberStyles.Float, CultureInfo.InvariantCulture, out double alpha) || !double.IsFinite(alpha) || alpha < 0
            || (parts.Length == 2 && (!int.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out int knee) || knee < 0)))
        {
            throw new ArgumentException($"--inflation '{text}' must be 'alpha' or 'alpha,knee' with alpha >= 0 and a whole knee >= 0 (e.g. 0.3,16).");
        }

        return new WorkInflation(alpha, parts.Length == 2 ? int.Parse(parts[1], CultureInfo.InvariantCulture) : 0);
    }

    private static void WriteScalability(ResultsFolder folder, IReadOnlyList<(string Program, int Cores, double Seconds, double Speedup)> rows, int cores)
    {
        // placement: the simulated cores are contiguous (the model has no topology that would make dispersal differ).
        folder.WriteText("speedup.csv", w => Csv.Write(w, ["program", "cores", "placement", "seconds", "speedup"],
            rows.Select(r => (IReadOnlyList<string>)[r.Program, r.Cores.ToString(CultureInfo.InvariantCulture), "contiguous", Csv.Number(r.Seconds), Csv.Number(r.Speedup)])));
        folder.WriteText("summary.md", w =>
        {
            w.WriteLine(string.Create(CultureInfo.InvariantCulture, $"# Scalability (SIMULATED, up to {cores} cores)"));
            w.WriteLine();
            var table = new MarkdownTable(["program", "cores", "seconds", "speedup"]);
            foreach (var r in rows)
            {
                table.AddRow(r.Program, r.Cores.ToString(CultureInfo.InvariantCulture), NumberText.Fixed(r.Seconds, 4), NumberText.Fixed(r.Speedup, 2));
            }

            table.WriteTo(w);
        });
    }

    private static Table ScalabilityTable(IReadOnlyList<(string Program, int Cores, double Seconds, double Speedup)> rows)
    {
        var table = new Table().Title("Simulated speedup over one core").AddColumn("Program");
        int[] counts = [.. rows.Select(r => r.Cores).Distinct().Order()];
        foreach (int c in counts)
        {
            table.AddColumn(new TableColumn(c.ToString(CultureInfo.InvariantCulture)).RightAligned());
        }

        foreach (var group in rows.GroupBy(r => r.Program))
        {
            table.AddRow([Markup.Escape(group.Key), .. counts.Select(c => NumberText.Fixed(group.First(r => r.Cores == c).Speedup, 2))]);
        }

        return table;
    }
}
