using System.CommandLine;
using System.Globalization;
using DivCon.Harness.Reports;
using DivCon.Harness.Simulation;
using DivCon.Harness.Terminal;
using DivCon.Programs;
using DivCon.Simulator;
using DivCon.Simulator.Machine;
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
    /// <summary>The most simulated cores, instances, recording workers or extra pool threads an option accepts.</summary>
    public const int MaxSimulated = 4096;

    private static readonly string[] s_placements = ["contiguous", "dispersed"];

    /// <summary>Builds the command.</summary>
    /// <param name="host">The host.</param>
    /// <returns>The command.</returns>
    public static Command Create(CliHost host)
    {
        ArgumentNullException.ThrowIfNull(host);
        var mode = OptionTable.Choice("--mode", "What to simulate (validate: the measured experiments, compared with the simulation).", "cyclic", ["cyclic", "symmetric", "scalability", "validate"]);
        var measured = OptionTable.Text("--measured", "Validate mode: the measured results root (scalability/ and the cyclic folders); the core count is the measured one.",
            CommonOptions.ReferenceRoot, "folder");
        var validateFolders = OptionTable.List("--validate-folders", "Validate mode: measured cyclic/symmetric folders to compare.", [.. SimulationValidation.DefaultFolders], "folders", [],
            (values, addError) => Array.ForEach([.. values.Where(v => !OptionTable.IsPlainName(v))],
                bad => addError($"--validate-folders must name plain folders (letters, digits, '-', '_', '.'), not '{bad}'.")), ["a/b", ".."]);
        var validateScalability = OptionTable.FolderName("--validate-scalability",
            "Validate mode: the measured folder of the alone runs (a scalability command's output) under --measured.", SimulationValidation.DefaultScalabilityFolder);
        var traceDir = OptionTable.Text("--trace-dir", "Folder of .dctree files written by the trace command (default: the committed thesis-size traces).", "traces/thesis", "folder", aliases: "-t");
        var programs = OptionTable.Names("--programs", "Programs to simulate (each needs a trace).", CommonOptions.ThesisPrograms, "program",
            n => ProgramCatalog.TryFind(n, out _), ProgramCatalog.Names, "-p");
        string[] schemeNames = [.. SimulatedSchemes.All.Select(s => s.Name())];
        var schemes = OptionTable.Names("--schemes", "Schemes to simulate.", schemeNames, "scheme", n => schemeNames.Contains(n, StringComparer.OrdinalIgnoreCase), schemeNames, "-s");
        var cores = OptionTable.Whole("--cores", "Simulated cores.", 64, 1, MaxSimulated, "-c");
        var duration = OptionTable.Number("--duration", "Time limit of each cyclic/symmetric test, simulated seconds.", 400, above: 0, unit: "seconds", aliases: "-d");
        var instances = OptionTable.Whole("--instances", "Symmetric mode: instances of each program.", 4, 1, MaxSimulated, "-k");
        var traceWorkers = OptionTable.Whole("--trace-workers", "Use traces recorded on this many workers.", 1, 1, MaxSimulated);
        var seed = OptionTable.Whole("--seed", "Seed of the simulation's random choices.", 1, int.MinValue);
        var name = OptionTable.FolderName("--name", "Results subfolder. [default: simulated-<mode>-<cores>]", null);
        var outRoot = OptionTable.Text("--out", $"Results root folder (reference results: --out {CommonOptions.ReferenceRoot}).", CommonOptions.AdHocRoot, "folder", aliases: "-o");
        var taskOverhead = OptionTable.WholeLong("--task-overhead-ns", "Machinery per task, ns.", new SimulationOptions().TaskOverheadNs, 0);
        var stealOverhead = OptionTable.WholeLong("--steal-overhead-ns", "Extra cost of a stolen task, ns.", new SimulationOptions().StealOverheadNs, 0);
        var noStandby = OptionTable.Flag("--no-standby",
            "Partitioning: no standby worker per core, so a busy worker moves only at its next task boundary (the mechanism's --no-standby; default: standby handover after 1 ms).");
        var noLending = OptionTable.Flag("--no-lending", "Partitioning: idle workers do not serve other programs.");
        var restartDelay = OptionTable.Number("--restart-delay-us",
            "A fixed delay from every run's end to its next root being queued (the harness's runner resumes on a .NET pool thread first), microseconds; 0: none, the restart race decides.",
            0, atLeast: 0, unit: "microseconds");
        var noRestartRace = OptionTable.Flag("--no-restart-race",
            "shared: queue a finished run's next root at once, before its worker looks for work (default: a race between that worker and the pool thread that queues the root, won by the worker unless the pool thread runs on its core, chance 1/cores).");
        var lendingPreference = SchemeOptions.LendingPreferenceChoice(
            "Partitioning: to which program an idle worker is lent: round-robin (or the policy's order; the mechanism's rule), runs-in-progress (programs whose queued work is a started run's before those with only a new run's root), oldest-run (the run started longest ago first).");
        var extraThreads = OptionTable.Whole("--pool-extra-threads", "default scheme: threads the .NET pool's minimum has beyond one per core (as if raised with ThreadPool.SetMinThreads).", 0, 0, MaxSimulated);
        var waveMagnitude = OptionTable.Whole("--pool-wave-magnitude", "default scheme: threads hill climbing's wave adds to the pool's goal every other pair of samples (0: no wave).",
            new SimulationOptions().ThreadPoolWaveMagnitude, 0, MaxSimulated);
        var noInjection = OptionTable.Flag("--pool-no-injection",
            "default scheme: no starvation injection (the pool keeps one thread per core plus --pool-extra-threads; default: the runtime's gate rule).");
        var inflation = OptionTable.Text("--inflation", "Work inflation 'alpha[,knee]': tasks take (1 + alpha x busy cores beyond knee / cores beyond knee) longer. [default: off]",
            null, "alpha[,knee]", v => TryParseInflation(v, out _) ? null : "'alpha' or 'alpha,knee' with alpha >= 0 and a whole knee >= 0 (e.g. 0.3,16)", ["lots", "-1", "0.3,x", "1,2,3"]);
        var coarsen = OptionTable.Number("--coarsen-us", "Simulate subtrees with at most this much work (us) as one task (speed; 0 = off).", 0, atLeast: 0, unit: "microseconds");
        var flatten = OptionTable.WholeLong("--flatten-ns", "Dissolve internal nodes whose split + merge take at most this many ns into their parent (speed; 0 = off).", 0, 0);
        var clamp = OptionTable.Number("--clamp-outliers",
            "Replace a recorded duration more than this many times the median of the same phase at the same depth by that median (a collection pause or preemption inside one task); 0 = off.",
            10, above: 1, orZero: true, unit: "times the median");
        var interval = OptionTable.Number("--decision-interval-ms", "Partitioning: milliseconds between the schemes' decisions.",
            new SimulationOptions().RebalanceInterval.TotalMilliseconds, above: 0, unit: "milliseconds");
        var availability = OptionTable.Choice("--availability",
            "task-availability scheme: what its policy reads as a program's available tasks: queued (the mechanism's), queued-running (queued plus running tasks) or smoothed (a smoothed history of queued).",
            "queued", ["queued", "queued-running", "smoothed"]);
        var machine = OptionTable.Text("--machine", "Machine description (machines/*.json) with the costs the traces lack, at a calibration and placement. [default: none]",
            null, "file[:low|middle|high][:contiguous|dispersed]");
        var allocation = OptionTable.Names("--allocation",
            "Scalability mode: the core placements to simulate, each giving its rows of speedup.csv, as the measured scalability command's --allocation (needs --machine: without a machine the simulated cores have no topology). [default: the --machine placement]",
            [], "placement", n => s_placements.Contains(n, StringComparer.OrdinalIgnoreCase), s_placements);
        var tolerance = OptionTable.OptionalNumber("--tolerance",
            "Validate mode: also write comparison.md and comparison.csv, every figure measured against simulated with its difference, flagging those beyond this many percent. [default: none]",
            atLeast: 0, unit: "percent");
        var command = new Command("simulate", "Replay recorded task trees on N simulated cores under the schemes (cyclic, symmetric or scalability); reports labelled simulated.")
        {
            mode, traceDir, programs, schemes, cores, duration, instances, traceWorkers, seed, name, outRoot, taskOverhead, stealOverhead, noStandby, noLending, restartDelay, noRestartRace, lendingPreference, interval, availability, measured, validateFolders, validateScalability, extraThreads, waveMagnitude, noInjection, inflation, coarsen, flatten, clamp, machine, allocation, tolerance,
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
                RestartDelayNs = (long)Math.Round(parse.GetValue(restartDelay) * 1000),
                RestartRace = !parse.GetValue(noRestartRace),
                LendingPreference = SchemeOptions.ParseLendingPreference(parse.GetValue(lendingPreference)),
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
                Inflation = TryParseInflation(parse.GetValue(inflation), out WorkInflation parsed) ? parsed : WorkInflation.None,
                CoarsenBelow = TimeSpan.FromMicroseconds(parse.GetValue(coarsen)),
                FlattenBelowNs = parse.GetValue(flatten),
                ClampOutliers = parse.GetValue(clamp),
                Machine = parse.GetValue(machine) is { } file ? DivCon.Simulator.Machine.MachineDescription.LoadModel(file) : null,
            };
            CorePlacement[] placements = ReadPlacements(parse.GetValue(allocation) ?? [], modeName, options.Machine);
            double? tolerancePercent = ReadTolerance(parse.GetValue(tolerance), modeName);

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
            OptionTable.RequireScheme(parse, modeName == "symmetric", "--mode symmetric", $"not --mode {modeName}", instances);
            OptionTable.RequireScheme(parse, modeName == "validate", "--mode validate", $"not --mode {modeName}", measured, validateFolders, validateScalability);
            if (modeName is "cyclic" or "symmetric")
            {
                // Options of schemes the run leaves out would change nothing: refused rather than ignored.
                OptionTable.RequireScheme(parse, schemeList.Any(s => s.Partitions()), PartitioningSchemes,
                    noStandby, noLending, lendingPreference, interval);
                OptionTable.RequireScheme(parse, schemeList.Contains(SimulatedScheme.TaskAvailability), "the task-availability scheme", availability);
                OptionTable.RequireScheme(parse, schemeList.Contains(SimulatedScheme.Default), "the default scheme (the .NET pool)", extraThreads, waveMagnitude, noInjection);
            }
            else if (modeName == "scalability")
            {
                OptionTable.RequireScheme(parse, false, "the multiprogram modes (cyclic, symmetric, validate)", "not --mode scalability, where each program runs alone",
                    schemes, noStandby, noLending, lendingPreference, interval, availability, extraThreads, waveMagnitude, noInjection);
            }

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
                        // One simulator per placement: the machine's cores laid out contiguously or dispersed (without a
                        // machine the one placement is contiguous, as the model has no topology to disperse over).
                        var rows = new List<ScalabilityRow>();
                        foreach (CorePlacement placement in placements)
                        {
                            WorkloadSimulator placed = options.Machine is { } m && m.Placement != placement
                                ? new WorkloadSimulator(options with { Machine = m with { Placement = placement } })
                                : simulator;
                            rows.AddRange(SimulatedExperiments.RunScalability(placed, [.. traces.Select(t => t.Program)], counts, cancellationToken)
                                .Select(r => new ScalabilityRow(r.Program, r.Cores, placement, r.Seconds, r.Speedup)));
                        }

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
                        var report = SimulationValidation.Run(simulator, parse.GetValue(measured)!, Load, folders, parse.GetValue(validateScalability)!, context, cancellationToken);
                        string title = string.Create(CultureInfo.InvariantCulture,
                            $"Simulated on {coreCount} cores from the traces in `{parse.GetValue(traceDir)}` (standby handover {(options.StandbyHandover ? "on" : "off")}, seed {options.Seed}), against the measured results in `{parse.GetValue(measured)}`.");
                        SimulationValidation.Write(context.Output, report, title);
                        if (tolerancePercent is { } percent)
                        {
                            ValidationTolerance.Write(context.Output, ValidationTolerance.Judge(report.Rows, percent / 100), percent / 100,
                                title + (options.Machine is { } m ? string.Create(CultureInfo.InvariantCulture, $" Machine: {m.Name} ({m.Calibration}).") : " No machine description."));
                        }

                        SimulatedExperiments.WriteLabel(context.Output, options, labels);
                        return Task.FromResult(report);
                    }, report =>
                    {
                        var text = new StringWriter(CultureInfo.InvariantCulture);
                        if (tolerancePercent is { } percent)
                        {
                            ValidationTolerance.WriteMarkdown(text, ValidationTolerance.Judge(report.Rows, percent / 100), percent / 100, string.Empty);
                        }
                        else
                        {
                            SimulationValidation.WriteMarkdown(text, report, string.Empty);
                        }

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

    /// <summary>Reads --inflation: null or blank is none; otherwise 'alpha' or 'alpha,knee' (alpha &gt;= 0, knee a whole number &gt;= 0).</summary>
    private static bool TryParseInflation(string? text, out WorkInflation inflation)
    {
        inflation = WorkInflation.None;
        if (string.IsNullOrWhiteSpace(text))
        {
            return true;
        }

        string[] parts = text.Split(',', StringSplitOptions.TrimEntries);
        int knee = 0;
        if (parts.Length > 2
            || !double.TryParse(parts[0], NumberStyles.Float, CultureInfo.InvariantCulture, out double alpha) || !double.IsFinite(alpha) || alpha < 0
            || (parts.Length == 2 && !int.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out knee)))
        {
            return false;
        }

        inflation = new WorkInflation(alpha, knee);
        return true;
    }

    /// <summary>
    /// What an error names when an option of the partitioning schemes is given without one: "the partitioning schemes
    /// (static, dynamic, ...)", listed from <see cref="SimulatedSchemes"/> so the list cannot drift from the schemes.
    /// </summary>
    internal static string PartitioningSchemes { get; } =
        $"the partitioning schemes ({string.Join(", ", SimulatedSchemes.All.Where(s => s.Partitions()).Select(s => s.Name()))})";

    /// <summary>
    /// The placements a scalability simulation runs: those of <c>--allocation</c>, else the machine's (contiguous
    /// without a machine). <c>--allocation</c> needs a machine and the scalability mode.
    /// </summary>
    /// <exception cref="ArgumentException">--allocation given without --machine or outside the scalability mode (the
    /// message names the option and its value).</exception>
    internal static CorePlacement[] ReadPlacements(IReadOnlyList<string> allocation, string mode, MachineModel? machine)
    {
        string[] given = [.. allocation.SelectMany(a => a.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))];
        if (given.Length == 0)
        {
            return [machine?.Placement ?? CorePlacement.Contiguous];
        }

        string text = string.Join(",", given);
        if (mode != "scalability")
        {
            throw new ArgumentException($"--allocation applies to --mode scalability, not {mode} (got '--allocation {text}'); other modes take the placement in --machine FILE:calibration:placement.", nameof(allocation));
        }

        if (machine is null)
        {
            throw new ArgumentException($"--allocation {text} needs --machine: without a machine description the simulated cores have no dies or modules to place them on.", nameof(allocation));
        }

        return [.. given.Select(g => Enum.Parse<CorePlacement>(g, ignoreCase: true)).Distinct()];
    }

    /// <summary>The <c>--tolerance</c> in percent (null: none), which only the validate mode takes.</summary>
    /// <exception cref="ArgumentException">A tolerance outside the validate mode (the message names the option and its value).</exception>
    internal static double? ReadTolerance(double? tolerance, string mode)
    {
        if (tolerance is { } t && mode != "validate")
        {
            throw new ArgumentException(string.Create(CultureInfo.InvariantCulture,
                $"--tolerance applies to --mode validate, not {mode} (got '--tolerance {t}')."), nameof(tolerance));
        }

        return tolerance;
    }

    private static string PlacementName(CorePlacement placement) => placement == CorePlacement.Dispersed ? "dispersed" : "contiguous";

    private static string SeriesName(ScalabilityRow row) => row.Placement == CorePlacement.Contiguous ? row.Program : $"{row.Program} ({PlacementName(row.Placement)})";

    private static void WriteScalability(ResultsFolder folder, IReadOnlyList<ScalabilityRow> rows, int cores)
    {
        folder.WriteText("speedup.csv", w => Csv.Write(w, ["program", "cores", "placement", "seconds", "speedup"],
            rows.Select(r => (IReadOnlyList<string>)[r.Program, r.Cores.ToString(CultureInfo.InvariantCulture), PlacementName(r.Placement), Csv.Number(r.Seconds), Csv.Number(r.Speedup)])));
        bool placed = rows.Any(r => r.Placement != CorePlacement.Contiguous);
        folder.WriteText("summary.md", w =>
        {
            w.WriteLine(string.Create(CultureInfo.InvariantCulture, $"# Scalability (SIMULATED, up to {cores} cores)"));
            w.WriteLine();
            var table = new MarkdownTable(placed ? ["program", "cores", "placement", "seconds", "speedup"] : ["program", "cores", "seconds", "speedup"]);
            foreach (var r in rows)
            {
                string[] cells = placed
                    ? [r.Program, r.Cores.ToString(CultureInfo.InvariantCulture), PlacementName(r.Placement), NumberText.Fixed(r.Seconds, 4), NumberText.Fixed(r.Speedup, 2)]
                    : [r.Program, r.Cores.ToString(CultureInfo.InvariantCulture), NumberText.Fixed(r.Seconds, 4), NumberText.Fixed(r.Speedup, 2)];
                table.AddRow(cells);
            }

            table.WriteTo(w);
        });
    }

    private static Table ScalabilityTable(IReadOnlyList<ScalabilityRow> rows)
    {
        var table = new Table().Title("Simulated speedup over one core").AddColumn("Program");
        int[] counts = [.. rows.Select(r => r.Cores).Distinct().Order()];
        foreach (int c in counts)
        {
            table.AddColumn(new TableColumn(c.ToString(CultureInfo.InvariantCulture)).RightAligned());
        }

        foreach (var group in rows.GroupBy(SeriesName))
        {
            table.AddRow([Markup.Escape(group.Key), .. counts.Select(c => NumberText.Fixed(group.First(r => r.Cores == c).Speedup, 2))]);
        }

        return table;
    }

    /// <summary>One program's simulated time and speedup on a core count and placement.</summary>
    private sealed record ScalabilityRow(string Program, int Cores, CorePlacement Placement, double Seconds, double Speedup);
}
