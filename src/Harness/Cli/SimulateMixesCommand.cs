using System.CommandLine;
using System.Globalization;
using DivCon.Harness.Simulation;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Simulator;
using DivCon.Simulator.Workloads;
using Spectre.Console;

namespace DivCon.Harness.Cli;

/// <summary>
/// <c>simulate-mixes</c>: every simulated scheme on many generated multiprogram mixes (2-8 programs at random sizes,
/// late arrivals, departures, synthetic phased programs; <see cref="MixGenerator"/>) and on the thesis's 3- and
/// 5-program mixes in both program forms, at one or more core counts; writes the per-mix CSV, the aggregate per core
/// count (wins, near-best, geometric-mean STP ratio to the best other scheme, worst case, moves per second) and a
/// Markdown summary. Deterministic: the same options give the same CSV files whatever the load or parallelism.
/// </summary>
public static class SimulateMixesCommand
{
    /// <summary>The programs drawn from by default: the five thesis programs and the three thesis forms.</summary>
    public static readonly IReadOnlyList<string> DefaultPrograms =
        ["sumsq", "pi", "strassen", "quicksort", "mergesort", "strassen-thesis", "quicksort-thesis", "mergesort-thesis"];

    /// <summary>The fixed mixes: the thesis's 3- and 5-program mixes, with today's programs and with the thesis forms.</summary>
    public static IReadOnlyList<Mix> ThesisMixes { get; } =
    [
        Mix.Cyclic("thesis-3", ["strassen", "quicksort", "mergesort"]),
        Mix.Cyclic("thesis-5", ["sumsq", "pi", "strassen", "quicksort", "mergesort"]),
        Mix.Cyclic("thesis-3-form", ["strassen-thesis", "quicksort-thesis", "mergesort-thesis"]),
        Mix.Cyclic("thesis-5-form", ["sumsq", "pi", "strassen-thesis", "quicksort-thesis", "mergesort-thesis"]),
    ];

    /// <summary>Builds the command.</summary>
    /// <param name="host">The host.</param>
    /// <returns>The command.</returns>
    public static Command Create(CliHost host)
    {
        ArgumentNullException.ThrowIfNull(host);
        var mixes = OptionTable.Whole("--mixes", "Generated mixes (0: only the thesis mixes).", 50, 0, 100_000, "-n");
        var cores = OptionTable.WholeList("--cores", "Simulated core counts.", [16, 64], 1, () => SimulateCommand.MaxSimulated, null, "-c");
        var seed = OptionTable.Whole("--seed", "Seed of the mix generator and of the simulations.", 1, int.MinValue);
        var timeLimit = OptionTable.Number("--time-limit", "Each test's time limit, simulated seconds (arrivals fall in its first half).", 30, above: 0, unit: "seconds", aliases: "-d");
        string[] schemeNames = [.. SimulatedSchemes.All.Select(s => s.Name())];
        var schemes = OptionTable.List("--schemes", $"Schemes to simulate, or 'all'. Known: {string.Join(", ", schemeNames)}.", ["all"], "schemes", ["-s"],
            (values, addError) =>
            {
                foreach (string v in values.Where(v => v != "all" && !schemeNames.Contains(v, StringComparer.OrdinalIgnoreCase)))
                {
                    addError($"Unknown scheme '{v}' in --schemes. Known: all, {string.Join(", ", schemeNames)}.");
                }

                if (values.GroupBy(v => v, StringComparer.OrdinalIgnoreCase).FirstOrDefault(g => g.Count() > 1)?.Key is { } twice)
                {
                    addError($"scheme '{twice}' is given twice in --schemes.");
                }
            }, ["abc", ","]);
        var programs = OptionTable.List("--programs", $"Recorded programs the generator draws from (each needs a trace in --trace-dir or --thesis-form-dir). [default: {string.Join(",", DefaultPrograms)}]",
            [.. DefaultPrograms], "programs", ["-p"],
            (values, addError) =>
            {
                foreach (string v in values.Where(v => !OptionTable.IsPlainName(v)))
                {
                    addError($"--programs must name programs (letters, digits, '-', '_', '.'), not '{v}'.");
                }

                if (values.GroupBy(v => v, StringComparer.Ordinal).FirstOrDefault(g => g.Count() > 1)?.Key is { } twice)
                {
                    addError($"program '{twice}' is given twice in --programs.");
                }
            }, ["a/b", ".."]);
        var traceDir = OptionTable.Text("--trace-dir", "Traces of today's programs.", "traces/thesis", "folder", aliases: "-t");
        var formDir = OptionTable.Text("--thesis-form-dir", "Traces of the thesis forms (programs without a trace in --trace-dir are read here).", "traces/thesis-form", "folder");
        var noThesis = OptionTable.Flag("--no-thesis-mixes", "Leave out the thesis's 3- and 5-program mixes.");
        var machine = OptionTable.Text("--machine", "Machine description (machines/*.json) with the costs the traces lack, at a calibration and placement. [default: none]",
            null, "file[:low|middle|high][:contiguous|dispersed]");
        var noStandby = OptionTable.Flag("--no-standby", "Partitioning: no standby worker per core.");
        var noLending = OptionTable.Flag("--no-lending", "Partitioning: idle workers do not serve other programs.");
        var clamp = OptionTable.Number("--clamp-outliers", "As simulate's: replace a recorded duration more than this many times its phase and depth's median by that median; 0 = off.",
            10, above: 1, orZero: true, unit: "times the median");
        var lendingPreference = SchemeOptions.LendingPreferenceChoice(
            "Partitioning: to which program an idle worker is lent: round-robin (or the policy's order; the mechanism's rule), runs-in-progress (programs whose queued work is a started run's before those with only a new run's root), oldest-run (the run started longest ago first).");
        var lendingCredit = OptionTable.Number("--lending-credit", "dynamic: how far its moves count on lending, in [0, 1] (the policy's lendingCredit).", 1, atLeast: 0);
        var fairness = OptionTable.Number("--fairness", "dynamic: the alpha of its objective, in [0, 2] (the policy's fairness).", 0.5, atLeast: 0);
        var lendingOrder = OptionTable.Flag("--lending-order", "dynamic: idle cores are lent where a busy core adds most to its objective (the policy's OrdersLending), not round-robin.");
        var earlyDecision = OptionTable.Flag("--early-decision", "dynamic: decide again 10-20 ms after a program arrives, once its estimator has seen it work (the policy's DecidesEarly).");
        var noBursts = OptionTable.Flag("--no-bursts-first", "dynamic: no bursts first (the policy's PrioritisesBursts off): workers of programs wide all the time do not serve other programs' wide phases first.");
        var longRuns = OptionTable.Number("--long-runs-first",
            "dynamic: a program in its first three runs whose run has lasted more than this many mean runs of a program with short runs has that program's workers first (the policy's LongRunsFirst). 0 = off; else at least 1.",
            LearnedScalabilityPolicy.DefaultLongRunsFirst, atLeast: 0, unit: "mean runs");
        var hints = OptionTable.Flag("--lifetime-hints", "dynamic: every program states its expected lifetime (ProgramTaskScheduler.ExpectedLifetime), as one that knows how long it will stay would: arrival to departure, or its runs' count times twice its run's time alone on the machine; the default policy weighs youth by it instead of by observed age.");
        var hintError = OptionTable.Number("--lifetime-error", "dynamic, with --lifetime-hints: how far off each stated lifetime is: multiplied by a factor drawn log-uniformly from [1/e, e], fixed per program and seed; 1 = exact.", 1, atLeast: 1);
        var priors = OptionTable.Flag("--priors", "dynamic: its estimators start from the offline speedup tables the other partitioning schemes use (as with a profile file present); without it dynamic learns every program while it runs.");
        var moveThreshold = OptionTable.Number("--move-threshold", "dynamic: the net gain a single-core move must bring (the policy's moveThreshold).", 0.01, atLeast: 0);
        var parallel = OptionTable.OptionalWhole("--parallel", "Simulations at once. [default: the CPUs]", 1, () => 1024, null);
        var name = OptionTable.FolderName("--name", "Results subfolder. [default: simulated-mixes-<mixes>-s<seed>]", null);
        var outRoot = OptionTable.Text("--out", $"Results root folder (reference results: --out {CommonOptions.ReferenceRoot}).", CommonOptions.AdHocRoot, "folder", aliases: "-o");
        var command = new Command("simulate-mixes",
            "Every simulated scheme on many generated multiprogram mixes (random programs, sizes, arrivals and departures) and the thesis's mixes, at several core counts; per-mix CSV and an aggregate table.")
        {
            mixes, cores, seed, timeLimit, schemes, programs, traceDir, formDir, noThesis, machine, noStandby, noLending, lendingPreference, clamp, lendingCredit, fairness, moveThreshold, lendingOrder, earlyDecision, noBursts, longRuns, priors, hints, hintError, parallel, name, outRoot,
        };
        CommandActions.Set(command, host, async (parse, cancellationToken) =>
        {
            int count = parse.GetValue(mixes);
            int seedValue = parse.GetValue(seed);
            int[] coreCounts = [.. (parse.GetValue(cores) ?? []).Distinct()];
            string[] chosen = parse.GetValue(schemes) ?? ["all"];
            SimulatedScheme[] schemeList = chosen.Contains("all", StringComparer.OrdinalIgnoreCase)
                ? [.. SimulatedSchemes.All]
                : [.. SimulatedSchemes.All.Where(s => chosen.Contains(s.Name(), StringComparer.OrdinalIgnoreCase))];
            TimeSpan limit = TimeSpan.FromSeconds(parse.GetValue(timeLimit));
            string today = parse.GetValue(traceDir)!;
            string forms = parse.GetValue(formDir)!;
            double clampValue = parse.GetValue(clamp);
            string[] drawFrom = [.. parse.GetValue(programs) ?? [.. DefaultPrograms]];
            double credit = parse.GetValue(lendingCredit), alpha = parse.GetValue(fairness), threshold = parse.GetValue(moveThreshold);
            if (credit > 1)
            {
                throw new ArgumentException(string.Create(CultureInfo.InvariantCulture, $"--lending-credit must be in [0, 1], not {credit}."));
            }

            if (alpha > 2)
            {
                throw new ArgumentException(string.Create(CultureInfo.InvariantCulture, $"--fairness must be in [0, 2], not {alpha}."));
            }

            double longRunsFactor = parse.GetValue(longRuns);
            if (longRunsFactor is > 0 and < 1)
            {
                throw new ArgumentException(string.Create(CultureInfo.InvariantCulture, $"--long-runs-first must be 0 (off) or at least 1, not {longRunsFactor}."));
            }

            OptionTable.RequireScheme(parse, schemeList.Contains(SimulatedScheme.Dynamic), "the dynamic scheme",
                lendingCredit, fairness, moveThreshold, lendingOrder, earlyDecision, noBursts, longRuns, priors, hints, hintError);
            OptionTable.RequireScheme(parse, schemeList.Any(s => s.Partitions()), SimulateCommand.PartitioningSchemes,
                noStandby, noLending, lendingPreference);
            if (parse.GetValue(hintError) > 1 && !parse.GetValue(hints))
            {
                throw new ArgumentException("--lifetime-error needs --lifetime-hints: without it no program states a lifetime for the error to apply to.");
            }

            bool ordered = parse.GetValue(lendingOrder), early = parse.GetValue(earlyDecision), bursts = !parse.GetValue(noBursts);
            var dynamicPolicy = new DivCon.Schedulers.Multiprogram.Policies.LearnedScalabilityPolicy(moveThreshold: threshold, fairness: alpha, lendingCredit: credit)
            {
                OrdersLending = ordered,
                DecidesEarly = early,
                PrioritisesBursts = bursts,
                LongRunsFirst = longRunsFactor,
            };
            var defaultPolicy = new DivCon.Schedulers.Multiprogram.Policies.LearnedScalabilityPolicy();
            bool customPolicy = credit != defaultPolicy.LendingCredit || alpha != defaultPolicy.Fairness || threshold != defaultPolicy.MoveThreshold ||
                ordered != defaultPolicy.OrdersLending || early != defaultPolicy.DecidesEarly || bursts != defaultPolicy.PrioritisesBursts ||
                longRunsFactor != defaultPolicy.LongRunsFirst;
            var options = new SimulationOptions
            {
                Seed = seedValue,
                StandbyHandover = !parse.GetValue(noStandby),
                Lending = !parse.GetValue(noLending),
                LendingPreference = SchemeOptions.ParseLendingPreference(parse.GetValue(lendingPreference)),
                ClampOutliers = clampValue,
                DynamicPolicy = customPolicy ? dynamicPolicy : null,
                DynamicPriors = parse.GetValue(priors),
                LifetimeHints = parse.GetValue(hints),
                LifetimeHintError = parse.GetValue(hintError),
                Machine = parse.GetValue(machine) is { } file ? DivCon.Simulator.Machine.MachineDescription.LoadModel(file) : null,
            };
            var generated = count == 0 ? [] : MixGenerator.Generate(count, new MixGeneratorOptions { Programs = drawFrom, Seed = seedValue, TimeLimit = limit });
            List<Mix> all = [.. generated, .. parse.GetValue(noThesis) ? [] : ThesisMixes];
            if (all.Count == 0)
            {
                throw new ArgumentException("--mixes 0 with --no-thesis-mixes leaves nothing to simulate.");
            }

            // Every trace is read before anything runs, so a missing one fails at once (naming the file and the command that records it).
            var traces = new Dictionary<(string, int), (DivCon.Skeletons.Tracing.TaskTree Tree, string Path)>();
            foreach (int c in coreCounts)
            {
                foreach (string program in all.SelectMany(m => m.Programs).Where(p => p.Phased is null).Select(p => p.Program).Distinct(StringComparer.Ordinal))
                {
                    string folder = File.Exists(Path.Combine(today, TraceLibrary.FileName(program, 1, 1))) || !Directory.Exists(forms)
                        || !Directory.EnumerateFiles(forms, program + "-w1-g*").Any() ? today : forms;
                    var (_, path, tree) = TraceLibrary.Load(folder, program, 1, c, 0);
                    traces[(program, c)] = (tree, path);
                }
            }

            var plan = new MixEvaluationPlan(all, generated.Select(m => m.Id).ToHashSet(StringComparer.Ordinal), coreCounts, schemeList, limit, options,
                c => new MixCatalog(p => traces[(p, c)].Tree, t => TaskGraph.FromTree(t, clampOutliers: clampValue)),
                parse.GetValue(parallel) ?? Environment.ProcessorCount);
            string[] settings =
            [
                string.Create(CultureInfo.InvariantCulture, $"seed {seedValue}; schemes {string.Join(", ", schemeList.Select(s => s.Name()))}; time limit {limit.TotalSeconds:0.###} s"),
                $"machine model: {options.Machine?.ToString() ?? "none (the traces' durations only)"}",
                options.DynamicPriors ? "dynamic's estimators start from the offline speedup tables (--priors)" : "dynamic learns without profiles",
                options.LifetimeHints
                    ? "every program states its expected lifetime to dynamic (--lifetime-hints)" + (options.LifetimeHintError > 1 ? string.Create(CultureInfo.InvariantCulture, $", off by up to {options.LifetimeHintError} times either way (--lifetime-error)") : "")
                    : "no program states its lifetime",
                string.Create(CultureInfo.InvariantCulture, $"standby handover {options.StandbyHandover}, lending {options.Lending}{(options.LendingPreference != LendingPreference.RoundRobin ? $" ({parse.GetValue(lendingPreference)} first)" : "")}, decisions every {options.RebalanceInterval.TotalMilliseconds} ms, outlier clamping {clampValue}"),
                .. (customPolicy
                    ? new[] { string.Create(CultureInfo.InvariantCulture, $"dynamic's policy: lending credit {credit}, fairness {alpha}, move threshold {threshold}{(ordered ? ", lending order" : "")}{(early ? ", early decision" : "")}{(bursts ? "" : ", no bursts first")}") }
                    : Array.Empty<string>()),
                $"programs drawn from: {string.Join(", ", drawFrom)}",
                "traces: " + string.Join(", ", traces.OrderBy(t => t.Key.Item2).ThenBy(t => t.Key.Item1, StringComparer.Ordinal).Select(t => Path.GetRelativePath(".", t.Value.Path))),
                $".NET {Environment.Version} ({System.Runtime.InteropServices.RuntimeInformation.FrameworkDescription}), {System.Runtime.InteropServices.RuntimeInformation.OSDescription}",
            ];
            string folderName = parse.GetValue(name) ?? string.Create(CultureInfo.InvariantCulture, $"simulated-mixes-{count}-s{seedValue}");
            await ExperimentOutput.RunAsync(host, parse.GetValue(outRoot)!, folderName, coreCounts.Max(), (context, _) =>
            {
                var result = MixEvaluation.Run(plan, context, cancellationToken);
                var tables = MixEvaluation.Write(context.Output, plan, result, settings);
                return Task.FromResult((result, tables));
            }, r =>
            {
                foreach (var (c, table) in r.tables)
                {
                    var text = new StringWriter(CultureInfo.InvariantCulture);
                    MixEvaluation.WriteAggregate(text, table);
                    host.Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"SIMULATED, {c} cores, {plan.Generated.Count} generated mixes:"));
                    host.Console.WriteLine(text.ToString());
                }

                host.Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"{r.result.Outcomes.Count} simulations in {r.result.TotalWallSeconds:0.0} s wall ({plan.Parallelism} at once)."));
            }, cancellationToken).ConfigureAwait(false);
        });
        return command;
    }
}
