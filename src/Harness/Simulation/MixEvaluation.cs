using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using DivCon.Harness.Experiments;
using DivCon.Harness.Reports;
using DivCon.Simulator;
using DivCon.Simulator.Workloads;

namespace DivCon.Harness.Simulation;

/// <summary>What <see cref="MixEvaluation.Run"/> evaluates.</summary>
/// <param name="Mixes">The mixes (generated and fixed).</param>
/// <param name="Generated">Ids of the generated mixes (the aggregate is over these; the others get a table of their own).</param>
/// <param name="Cores">Core counts.</param>
/// <param name="Schemes">Schemes.</param>
/// <param name="TimeLimit">Each test's time limit.</param>
/// <param name="Options">Simulator options (its core count is replaced by each of <paramref name="Cores"/>).</param>
/// <param name="Catalog">The mixes' programs at a core count.</param>
/// <param name="Parallelism">Simulations at once.</param>
public sealed record MixEvaluationPlan(
    IReadOnlyList<Mix> Mixes, IReadOnlySet<string> Generated, IReadOnlyList<int> Cores, IReadOnlyList<SimulatedScheme> Schemes, TimeSpan TimeLimit,
    SimulationOptions Options, Func<int, MixCatalog> Catalog, int Parallelism);

/// <summary>Per-program figures of one outcome (the <c>programs.csv</c> row).</summary>
/// <param name="Outcome">The mix, cores and scheme.</param>
/// <param name="Metrics">Its program's metrics.</param>
public sealed record MixProgramOutcome(MixOutcome Outcome, MixProgramMetrics Metrics);

/// <summary>What <see cref="MixEvaluation.Run"/> produced.</summary>
/// <param name="Outcomes">One per (cores, mix, scheme), in that order.</param>
/// <param name="Programs">Per program of each outcome.</param>
/// <param name="WallSeconds">Wall-clock seconds of each simulation (same order; not deterministic).</param>
/// <param name="Tasks">Tasks simulated per outcome.</param>
/// <param name="TotalWallSeconds">The whole evaluation's wall-clock seconds.</param>
public sealed record MixEvaluationResult(IReadOnlyList<MixOutcome> Outcomes, IReadOnlyList<MixProgramOutcome> Programs, IReadOnlyList<double> WallSeconds, IReadOnlyList<long> Tasks, double TotalWallSeconds);

/// <summary>
/// <c>simulate-mixes</c>'s engine: every scheme on every mix at every core count, the simulations spread over the
/// CPUs (each one single-threaded and deterministic, assembled in a fixed order, so the results do not depend on the
/// parallelism or the load), then the per-mix CSV, the per-program CSV, the aggregate per core count and a Markdown
/// summary.
/// </summary>
public static class MixEvaluation
{
    /// <summary>Runs the plan.</summary>
    /// <param name="plan">The plan.</param>
    /// <param name="context">Progress.</param>
    /// <param name="cancellationToken">Stops it.</param>
    /// <returns>The outcomes.</returns>
    public static MixEvaluationResult Run(MixEvaluationPlan plan, ExperimentContext context, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(plan);
        ArgumentNullException.ThrowIfNull(context);
        long start = Stopwatch.GetTimestamp();
        var simulators = plan.Cores.ToDictionary(c => c, c => new WorkloadSimulator(plan.Options with { Cores = c }));
        var catalogs = plan.Cores.ToDictionary(c => c, plan.Catalog);
        var jobs = (from c in plan.Cores from mix in plan.Mixes from scheme in plan.Schemes select (Cores: c, Mix: mix, Scheme: scheme)).ToList();
        var outcomes = new MixOutcome[jobs.Count];
        var programs = new IReadOnlyList<MixProgramMetrics>[jobs.Count];
        var wall = new double[jobs.Count];
        var tasks = new long[jobs.Count];
        const string Phase = "simulated mixes";
        context.Progress.BeginPhase(Phase, jobs.Count);
        int done = 0;
        // Largest core count first (the longest simulations), one job at a time per worker (no chunking), so the CPUs
        // stay busy to the end.
        var order = Enumerable.Range(0, jobs.Count).OrderByDescending(i => jobs[i].Cores).ThenByDescending(i => jobs[i].Mix.Programs.Count).ToList();
        Parallel.ForEach(
            System.Collections.Concurrent.Partitioner.Create(order, EnumerablePartitionerOptions.NoBuffering),
            new ParallelOptions { MaxDegreeOfParallelism = plan.Parallelism, CancellationToken = cancellationToken },
            i =>
            {
                var (cores, mix, scheme) = jobs[i];
                var simulator = simulators[cores];
                var workload = catalogs[cores].Programs(mix);
                long t0 = Stopwatch.GetTimestamp();
                var alone = workload.Select(p => simulator.AloneTime(p, cancellationToken: cancellationToken)).ToList();
                var test = simulator.RunCyclic(workload, scheme, plan.TimeLimit, cancellationToken: cancellationToken);
                wall[i] = Stopwatch.GetElapsedTime(t0).TotalSeconds;
                tasks[i] = test.Counters.Tasks;
                var metrics = MixMetrics.Of(test, alone);
                double elapsed = Math.Max(test.Elapsed.TotalSeconds, 1e-9);
                outcomes[i] = new MixOutcome(mix.Id, cores, scheme.Name(), metrics.Stp, metrics.Antt, metrics.WorstNtt,
                    test.Counters.Moves / elapsed, test.Counters.Handovers / elapsed);
                programs[i] = metrics.Programs;
                context.Progress.Report(Phase, Interlocked.Increment(ref done), $"{mix.Id} {cores} cores {scheme.Name()}");
            });
        context.Progress.EndPhase(Phase);
        var perProgram = outcomes.SelectMany((o, i) => programs[i].Select(m => new MixProgramOutcome(o, m))).ToList();
        return new MixEvaluationResult(outcomes, perProgram, wall, tasks, Stopwatch.GetElapsedTime(start).TotalSeconds);
    }

    /// <summary>Writes <c>mixes.csv</c>, <c>outcomes.csv</c>, <c>programs.csv</c>, <c>aggregate.csv</c>, <c>cost.csv</c> and <c>summary.md</c>.</summary>
    /// <param name="folder">The results folder.</param>
    /// <param name="plan">The plan.</param>
    /// <param name="result">The outcomes.</param>
    /// <param name="settings">Lines describing the settings (machine model, traces, ...), for the summary.</param>
    /// <returns>The aggregate per core count.</returns>
    public static IReadOnlyList<(int Cores, IReadOnlyList<SchemeAggregate> Table)> Write(ResultsFolder folder, MixEvaluationPlan plan, MixEvaluationResult result, IReadOnlyList<string> settings)
    {
        ArgumentNullException.ThrowIfNull(folder);
        ArgumentNullException.ThrowIfNull(plan);
        ArgumentNullException.ThrowIfNull(result);
        ArgumentNullException.ThrowIfNull(settings);
        string[] schemes = [.. plan.Schemes.Select(s => s.Name())];
        folder.WriteText("mixes.csv", w => Csv.Write(w, ["mix", "kind", "programs", "description"],
            plan.Mixes.Select(m => (IReadOnlyList<string>)[m.Id, plan.Generated.Contains(m.Id) ? "generated" : "fixed", Whole(m.Programs.Count), m.Description])));
        folder.WriteText("outcomes.csv", w => Csv.Write(w, ["mix", "cores", "scheme", "stp", "antt", "worst_ntt", "moves_per_s", "handovers_per_s"],
            result.Outcomes.Select(o => (IReadOnlyList<string>)[o.Mix, Whole(o.Cores), o.Scheme, Csv.Number(o.Stp), Csv.Number(o.Antt), Csv.Number(o.WorstNtt), Csv.Number(o.MovesPerSecond), Csv.Number(o.HandoversPerSecond)])));
        folder.WriteText("programs.csv", w => Csv.Write(w, ["mix", "cores", "scheme", "program", "alone_s", "runs", "mean_turnaround_s", "ntt"],
            result.Programs.Select(p => (IReadOnlyList<string>)[p.Outcome.Mix, Whole(p.Outcome.Cores), p.Outcome.Scheme, p.Metrics.Program, Csv.Number(p.Metrics.AloneSeconds), Whole(p.Metrics.Runs), Csv.Number(p.Metrics.MeanTurnaround), Csv.Number(p.Metrics.Ntt)])));
        folder.WriteText("cost.csv", w => Csv.Write(w, ["mix", "cores", "scheme", "tasks", "wall_s"],
            result.Outcomes.Select((o, i) => (IReadOnlyList<string>)[o.Mix, Whole(o.Cores), o.Scheme, result.Tasks[i].ToString(CultureInfo.InvariantCulture), Csv.Number(result.WallSeconds[i])])));
        var tables = plan.Cores.Select(c => (c, MixAggregate.Compute([.. result.Outcomes.Where(o => o.Cores == c && plan.Generated.Contains(o.Mix))], schemes))).ToList();
        folder.WriteText("aggregate.csv", w => Csv.Write(w, ["cores", "scheme", "mixes", "incomplete", "wins", "near_best", "geomean_stp_ratio_to_best_other", "worst_stp_ratio", "worst_mix", "moves_per_s", "handovers_per_s"],
            tables.SelectMany(t => t.Item2.Select(a => (IReadOnlyList<string>)[Whole(t.c), a.Scheme, Whole(a.Mixes), Whole(a.Incomplete), Whole(a.Wins), Whole(a.NearBest),
                Csv.Number(a.GeoMeanRatio), Csv.Number(a.WorstRatio), a.WorstMix ?? string.Empty, Csv.Number(a.MovesPerSecond), Csv.Number(a.HandoversPerSecond)]))));
        folder.WriteText("summary.md", w =>
        {
            w.WriteLine(string.Create(CultureInfo.InvariantCulture, $"# SIMULATED: {schemes.Length} schemes on {plan.Generated.Count} generated mixes and {plan.Mixes.Count - plan.Generated.Count} fixed ones"));
            w.WriteLine();
            w.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"Every figure comes from the discrete-event simulator (src/Simulator) replaying recorded task trees on {string.Join(" and ", plan.Cores)} simulated cores, {plan.TimeLimit.TotalSeconds:0.###} simulated seconds per test; not a measurement. The mixes are in `mixes.csv`, each scheme's figures per mix in `outcomes.csv`, per program in `programs.csv`; how the mixes are drawn and what the metrics mean: src/Simulator/README.md, \"Generated mixes\"."));
            w.WriteLine();
            foreach (string line in settings)
            {
                w.WriteLine("- " + line);
            }

            w.WriteLine();
            foreach (var (cores, table) in tables)
            {
                w.WriteLine(string.Create(CultureInfo.InvariantCulture, $"## {cores} cores: {plan.Generated.Count} generated mixes"));
                w.WriteLine();
                WriteAggregate(w, table);
                w.WriteLine();
            }

            var fixedMixes = plan.Mixes.Where(m => !plan.Generated.Contains(m.Id)).ToList();
            if (fixedMixes.Count > 0)
            {
                w.WriteLine("## Fixed mixes: STP / ANTT per scheme (best STP in bold)");
                w.WriteLine();
                var table = new MarkdownTable(["mix", "cores", .. schemes]);
                foreach (int cores in plan.Cores)
                {
                    foreach (var mix in fixedMixes)
                    {
                        var rows = result.Outcomes.Where(o => o.Cores == cores && o.Mix == mix.Id).ToList();
                        double best = rows.Where(o => !double.IsNaN(o.Stp)).Select(o => o.Stp).DefaultIfEmpty(double.NaN).Max();
                        table.AddRow([mix.Id, Whole(cores), .. schemes.Select(s => rows.FirstOrDefault(o => o.Scheme == s) is { } o
                            ? (o.Stp == best ? $"**{NumberText.Fixed(o.Stp)}**" : NumberText.Fixed(o.Stp)) + " / " + NumberText.Fixed(o.Antt)
                            : "-")]);
                    }
                }

                table.WriteTo(w);
                w.WriteLine();
                w.WriteLine("Fixed mixes: " + string.Join("; ", fixedMixes.Select(m => $"`{m.Id}` {m.Description}")) + ".");
                w.WriteLine();
            }

            w.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"Cost: {result.Outcomes.Count} simulations, {result.Tasks.Sum():N0} tasks, {result.TotalWallSeconds:0.0} s wall on {Environment.ProcessorCount} CPUs ({plan.Parallelism} at once); per simulation in `cost.csv` (wall times depend on the machine's load, the results do not)."));
            w.WriteLine();
            MarkdownStamp.Write(w, folder.Stamp);
        });
        return [.. tables.Select(t => (t.c, t.Item2))];
    }

    /// <summary>The aggregate table in Markdown.</summary>
    /// <param name="writer">Destination.</param>
    /// <param name="table">One line per scheme.</param>
    public static void WriteAggregate(TextWriter writer, IReadOnlyList<SchemeAggregate> table)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(table);
        var md = new MarkdownTable(["scheme", "mixes", "wins", "best or within 1% STP and 2% ANTT", "geo-mean STP / best other", "worst STP / best other (mix)", "moves/s", "handovers/s", "incomplete"]);
        foreach (var a in table)
        {
            md.AddRow(a.Scheme, Whole(a.Mixes), Whole(a.Wins), Whole(a.NearBest), NumberText.Fixed(a.GeoMeanRatio), $"{NumberText.Fixed(a.WorstRatio)} ({a.WorstMix ?? "-"})",
                NumberText.Fixed(a.MovesPerSecond, 1), NumberText.Fixed(a.HandoversPerSecond, 1), Whole(a.Incomplete));
        }

        md.WriteTo(writer);
    }

    private static string Whole(int value) => value.ToString(CultureInfo.InvariantCulture);
}
