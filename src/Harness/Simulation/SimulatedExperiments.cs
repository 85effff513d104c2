using System.Diagnostics;
using System.Globalization;
using DivCon.Harness.Experiments;
using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using DivCon.Harness.Workload;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Simulator;

namespace DivCon.Harness.Simulation;

/// <summary>
/// Runs the simulator's cyclic tests and alone runs and turns them into the harness's own result types, so the same
/// metrics code (<see cref="MultiprogramMetrics"/>) and report writers (<see cref="CyclicReportWriter"/>) produce
/// simulated results that read like measured ones. Every title says "simulated" and the core count, and the folder
/// gets a <c>simulation.md</c> with the model's settings.
/// </summary>
public static class SimulatedExperiments
{
    /// <summary>The cyclic protocol under each scheme (symmetric workloads are the same with k instances).</summary>
    /// <param name="simulator">The simulator.</param>
    /// <param name="programs">The workload.</param>
    /// <param name="schemes">The schemes.</param>
    /// <param name="timeLimit">The time limit.</param>
    /// <param name="workload">Workload name (the report's titles add "simulated, N cores").</param>
    /// <param name="context">Output and progress.</param>
    /// <param name="cancellationToken">Stops the simulation.</param>
    /// <returns>The result, with the wall-clock seconds each scheme's simulation took (schemes run in parallel, one per CPU).</returns>
    public static (CyclicExperimentResult Result, IReadOnlyList<(string Scheme, double WallSeconds, SimulationCounters Counters)> Costs) RunCyclic(
        WorkloadSimulator simulator, IReadOnlyList<SimulatedProgram> programs, IReadOnlyList<SimulatedScheme> schemes, TimeSpan timeLimit,
        string workload, ExperimentContext context, CancellationToken cancellationToken)
    {
        var simulated = SimulateCyclic(simulator, programs, schemes, timeLimit, workload, context, cancellationToken);
        CyclicReportWriter.Write(context.Output, simulated.Result);
        WriteEstimates(context.Output, simulator, programs, simulated.Tests, cancellationToken);
        return (simulated.Result, simulated.Costs);
    }

    /// <summary>
    /// Writes <c>estimates.csv</c> when a scheme recorded online estimates (<c>dynamic</c>): per decision and program,
    /// the cores held, the estimated speedup on them and on every core, and the profiled (simulated alone) speedup on
    /// the same counts, with the relative error of the estimated efficiency.
    /// </summary>
    private static void WriteEstimates(ResultsFolder folder, WorkloadSimulator simulator, IReadOnlyList<SimulatedProgram> programs,
        IReadOnlyList<SimulatedCyclicTest> tests, CancellationToken cancellationToken)
    {
        var withEstimates = tests.Where(t => t.Estimates.Count > 0).ToList();
        if (withEstimates.Count == 0)
        {
            return;
        }

        var tables = programs.Select(p => simulator.SpeedupTable(p, cancellationToken)).ToList();
        int cores = simulator.Options.Cores;
        folder.WriteText("estimates.csv", w => Csv.Write(w,
            ["scheme", "time_s", "program", "held_cores", "estimated_speedup_held", "profiled_speedup_held", "estimated_speedup_all", "profiled_speedup_all", "efficiency_error_held", "observed_core_s"],
            withEstimates.SelectMany(t => t.Estimates.Select(e =>
            {
                var table = tables[e.Program];
                double profiledHeld = table.SpeedupAt(e.HeldCores);
                double error = e.HeldCores > 0 ? (e.SpeedupAtHeld / profiledHeld) - 1 : double.NaN;
                return (IReadOnlyList<string>)[t.Scheme.Name(), Csv.Number(e.Time.TotalSeconds), programs[e.Program].Name, e.HeldCores.ToString(CultureInfo.InvariantCulture),
                    Csv.Number(e.SpeedupAtHeld), Csv.Number(profiledHeld), Csv.Number(e.SpeedupAtAll), Csv.Number(table.SpeedupAt(cores)), Csv.Number(error), Csv.Number(e.ObservedCoreSeconds)];
            }))));
    }

    /// <summary>As <see cref="RunCyclic"/>, without writing the reports (the context serves only for progress).</summary>
    /// <param name="simulator">The simulator.</param>
    /// <param name="programs">The workload.</param>
    /// <param name="schemes">The schemes.</param>
    /// <param name="timeLimit">The time limit.</param>
    /// <param name="workload">Workload name (the result's title adds "simulated, N cores").</param>
    /// <param name="context">Progress.</param>
    /// <param name="cancellationToken">Stops the simulation.</param>
    /// <returns>The result (move latencies included for the partitioning schemes), the cost per scheme and each scheme's simulation.</returns>
    public static (CyclicExperimentResult Result, IReadOnlyList<(string Scheme, double WallSeconds, SimulationCounters Counters)> Costs, IReadOnlyList<SimulatedCyclicTest> Tests) SimulateCyclic(
        WorkloadSimulator simulator, IReadOnlyList<SimulatedProgram> programs, IReadOnlyList<SimulatedScheme> schemes, TimeSpan timeLimit,
        string workload, ExperimentContext context, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(simulator);
        ArgumentNullException.ThrowIfNull(programs);
        ArgumentNullException.ThrowIfNull(schemes);
        ArgumentNullException.ThrowIfNull(context);
        int cores = simulator.Options.Cores;
        string title = string.Create(CultureInfo.InvariantCulture, $"{workload} (simulated, {cores} cores)");
        context.Progress.BeginPhase("simulated isolated runs", programs.Count);
        var isolated = new List<ProgramTimings>();
        foreach (var program in programs)
        {
            isolated.Add(new ProgramTimings(program.Name, [.. simulator.RunIsolated(program, cancellationToken: cancellationToken).Select(t => t.TotalSeconds)]));
            context.Progress.Report("simulated isolated runs", isolated.Count, program.Name);
        }

        context.Progress.EndPhase("simulated isolated runs");
        var tests = new List<(string, CyclicTestResult)>();
        var metrics = new List<SchemeMetrics>();
        var charts = new List<(string, AllocationChart)>();
        var incomplete = new List<IncompleteScheme>();
        var costs = new List<(string, double, SimulationCounters)>();
        var moveLatencies = new List<MoveLatencySummary>();
        var moveSamples = new List<(string, MoveSample)>();
        string[] names = [.. programs.Select(p => p.Name)];
        // Schemes are independent simulations: run them on all CPUs at once (each is single-threaded and
        // deterministic, so the results do not depend on the parallelism), then assemble them in scheme order.
        var simulated = new SimulatedCyclicTest[schemes.Count];
        var wall = new double[schemes.Count];
        Parallel.For(0, schemes.Count, new ParallelOptions { MaxDegreeOfParallelism = Environment.ProcessorCount, CancellationToken = cancellationToken }, i =>
        {
            string phase = $"simulated {schemes[i].Name()}";
            context.Progress.BeginPhase(phase, timeLimit.TotalSeconds);
            long start = Stopwatch.GetTimestamp();
            simulated[i] = simulator.RunCyclic(programs, schemes[i], timeLimit, new SynchronousProgress(context, phase, timeLimit), cancellationToken);
            wall[i] = Stopwatch.GetElapsedTime(start).TotalSeconds;
            context.Progress.EndPhase(phase);
        });
        for (int i = 0; i < schemes.Count; i++)
        {
            var scheme = schemes[i];
            SimulatedCyclicTest test = simulated[i];
            costs.Add((scheme.Name(), wall[i], test.Counters));
            var result = new CyclicTestResult(names, [.. test.Runs.Select(r => new RunRecord(r.Program, r.RunIndex, r.Start, r.End, r.Counted))], test.TimeLimit, test.Elapsed);
            tests.Add((scheme.Name(), result));
            if (scheme.Partitions())
            {
                // The same move-latency report as the measured experiments (decision to the new owner served).
                moveLatencies.Add(MoveLatencySummary.Compute(scheme.Name(), [.. test.Moves.Select(m => m.Latency)]));
                moveSamples.AddRange(test.Moves.Select(m => (scheme.Name(), new MoveSample(m.DecidedAt, $"cpu {m.Cpu}: {names[m.From]} -> {names[m.To]}", m.Latency))));
            }

            string[] starved = [.. names.Where(p => result.CountedSeconds(p).Count == 0)];
            if (starved.Length > 0)
            {
                incomplete.Add(new IncompleteScheme(scheme.Name(), starved));
                continue;
            }

            metrics.Add(new SchemeMetrics(scheme.Name(), MultiprogramMetrics.Compute(result.ToMeasurements(isolated))));
            if (test.Allocations.Count > 0)
            {
                var samples = test.Allocations.Select(a => new AllocationSample(a.Time, a.Cores)).ToList();
                TimeSpan end = test.Elapsed > samples[^1].Time ? test.Elapsed : samples[^1].Time + TimeSpan.FromMilliseconds(1);
                charts.Add((scheme.Name(), new AllocationChart($"Cores per program, {title}, {scheme.Name()}", names, cores, samples, end)));
            }
        }

        if (metrics.Count == 0)
        {
            throw new InvalidOperationException(
                $"No simulated scheme has metrics: {string.Join("; ", incomplete.Select(i => i.ToString()))}. Use a longer --duration.");
        }

        var experiment = new CyclicExperimentResult(title, isolated, tests, metrics, charts, Oracle: null)
        {
            Incomplete = incomplete,
            MoveLatencies = moveLatencies,
            MoveSamples = moveSamples,
        };
        return (experiment, costs, simulated);
    }

    /// <summary>Alone runs at each core count: time and speedup over one core, per program.</summary>
    /// <param name="simulator">The simulator.</param>
    /// <param name="programs">The programs.</param>
    /// <param name="coreCounts">Core counts (ascending).</param>
    /// <param name="cancellationToken">Stops the simulation.</param>
    /// <returns>Rows of (program, cores, mean seconds, speedup).</returns>
    public static IReadOnlyList<(string Program, int Cores, double Seconds, double Speedup)> RunScalability(
        WorkloadSimulator simulator, IReadOnlyList<SimulatedProgram> programs, IReadOnlyList<int> coreCounts, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(simulator);
        ArgumentNullException.ThrowIfNull(programs);
        ArgumentNullException.ThrowIfNull(coreCounts);
        var rows = new List<(string, int, double, double)>();
        foreach (var program in programs)
        {
            double one = simulator.RunIsolated(program, 1, cancellationToken).Average(t => t.TotalSeconds);
            foreach (int c in coreCounts)
            {
                double seconds = simulator.RunIsolated(program, c, cancellationToken).Average(t => t.TotalSeconds);
                rows.Add((program.Name, c, seconds, one / seconds));
            }
        }

        return rows;
    }

    /// <summary>Writes <c>simulation.md</c>: the label, the options and the traces used.</summary>
    /// <param name="folder">The results folder.</param>
    /// <param name="options">The simulator's options.</param>
    /// <param name="traces">Program name and trace file per program.</param>
    /// <param name="costs">Wall-clock cost per scheme, if any.</param>
    /// <param name="total">Cost of the whole simulation (isolated runs and every scheme), if known.</param>
    /// <returns>The file's path.</returns>
    public static string WriteLabel(ResultsFolder folder, SimulationOptions options, IReadOnlyList<(string Program, string Path, string Details)> traces,
        IReadOnlyList<(string Scheme, double WallSeconds, SimulationCounters Counters)>? costs = null, SimulationCost? total = null)
    {
        ArgumentNullException.ThrowIfNull(folder);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(traces);
        return folder.WriteText("simulation.md", w =>
        {
            w.WriteLine("# SIMULATED results");
            w.WriteLine();
            w.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"Every number in this folder comes from the discrete-event simulator (src/Simulator) replaying recorded task trees on {options.Cores} simulated cores, not from a measurement on such a machine."));
            w.WriteLine();
            var table = new MarkdownTable(["setting", "value"]);
            table.AddRow("cores", options.Cores.ToString(CultureInfo.InvariantCulture));
            table.AddRow("seed", options.Seed.ToString(CultureInfo.InvariantCulture));
            table.AddRow("task / steal / wake / move overhead (ns)", string.Create(CultureInfo.InvariantCulture, $"{options.TaskOverheadNs} / {options.StealOverheadNs} / {options.WakeOverheadNs} / {options.MoveOverheadNs}"));
            table.AddRow("time sharing: quantum / context switch", string.Create(CultureInfo.InvariantCulture, $"{options.Quantum.TotalMilliseconds} ms / {options.ContextSwitchNs} ns"));
            table.AddRow("restart delay (run end to next root)", string.Create(CultureInfo.InvariantCulture, $"{options.RestartDelayNs / 1000.0} us"));
            table.AddRow("restart race in a shared queue (gap)", options.RestartRace && options.RestartDelayNs == 0
                ? string.Create(CultureInfo.InvariantCulture, $"on ({options.RestartGapNs / 1000.0} us)")
                : "off");
            table.AddRow("rebalance interval", string.Create(CultureInfo.InvariantCulture, $"{options.RebalanceInterval.TotalMilliseconds} ms"));
            table.AddRow("task-availability's availability signal", options.Availability.ToString());
            table.AddRow("lending (preference) / standby handover (threshold)", string.Create(CultureInfo.InvariantCulture,
                $"{options.Lending} ({options.LendingPreference}) / {options.StandbyHandover} ({options.HandoverThreshold.TotalMilliseconds} ms)"));
            table.AddRow("thread-pool extra threads", options.ThreadPoolExtraThreads.ToString(CultureInfo.InvariantCulture));
            table.AddRow("thread-pool starvation injection (gate interval, delay per thread)", string.Create(CultureInfo.InvariantCulture,
                $"{options.ThreadPoolStarvationInjection} ({options.ThreadPoolGateInterval.TotalMilliseconds} ms, {options.ThreadPoolStarvationDelayPerThread.TotalMilliseconds} ms)"));
            table.AddRow("thread-pool hill-climbing wave (magnitude, samples)", string.Create(CultureInfo.InvariantCulture,
                $"{options.ThreadPoolWaveMagnitude} ({options.ThreadPoolSampleIntervalLow.TotalMilliseconds}-{options.ThreadPoolSampleIntervalHigh.TotalMilliseconds} ms)"));
            table.AddRow("work inflation", options.Inflation.ToString());
            if (options.Machine is { } machine)
            {
                table.AddRow("machine", machine.ToString());
            }

            table.AddRow("coarsening / flattening", string.Create(CultureInfo.InvariantCulture, $"{options.CoarsenBelow.TotalMicroseconds} us / {options.FlattenBelowNs} ns"));
            table.AddRow("outlier clamping (x median of phase and depth; 0 off)", options.ClampOutliers.ToString(CultureInfo.InvariantCulture));
            table.AddRow("isolated runs per program", options.IsolatedRuns.ToString(CultureInfo.InvariantCulture));
            table.WriteTo(w);
            w.WriteLine();
            var files = new MarkdownTable(["program", "trace", "recorded"]);
            foreach (var (program, path, details) in traces)
            {
                files.AddRow(program, Path.GetFileName(path), details);
            }

            files.WriteTo(w);
            if (costs is { Count: > 0 })
            {
                w.WriteLine();
                var cost = new MarkdownTable(["scheme", "wall (s)", "events", "tasks", "steals", "moves", "handovers", "decisions", "lends", "pool threads at end"]);
                foreach (var (scheme, wall, c) in costs)
                {
                    cost.AddRow(scheme, NumberText.Fixed(wall, 2), Count(c.Events), Count(c.Tasks), Count(c.Steals), Count(c.Moves), Count(c.Handovers), Count(c.Decisions), Count(c.Lends), Count(c.PoolThreads));
                }

                cost.WriteTo(w);
            }

            if (total is { } whole)
            {
                w.WriteLine();
                w.WriteLine(whole.Describe());
            }
        });

        static string Count(long value) => value.ToString(CultureInfo.InvariantCulture);
    }

    /// <summary>Forwards the simulator's progress straight to the sink (the simulator calls it on its own thread).</summary>
    private sealed class SynchronousProgress(ExperimentContext context, string phase, TimeSpan limit) : IProgress<TimeSpan>
    {
        public void Report(TimeSpan value) => context.Progress.Report(phase, Math.Min(value.TotalSeconds, limit.TotalSeconds));
    }
}

/// <summary>What a whole simulation cost on the machine that ran it.</summary>
/// <param name="WallSeconds">Wall-clock time, s.</param>
/// <param name="CpuSeconds">CPU time the process used meanwhile, s (schemes run in parallel, so it can exceed the wall).</param>
/// <param name="Cpus">Logical CPUs of the machine.</param>
/// <remarks>
/// The share of the CPUs' time the process got (CPU time over wall x CPUs) tells a quiet run from a loaded one: the
/// simulation keeps every CPU busy while schemes remain, so it is near 100% on an idle machine (less only while the
/// last scheme finishes alone) and lower when something else competed for the CPUs.
/// </remarks>
public sealed record SimulationCost(double WallSeconds, double CpuSeconds, int Cpus)
{
    /// <summary>The sentence <c>simulation.md</c> ends with.</summary>
    /// <returns>The text.</returns>
    public string Describe() => string.Create(CultureInfo.InvariantCulture,
        $"Whole simulation: {WallSeconds:0.00} s wall, {CpuSeconds:0.0} s CPU time on {Cpus} CPUs (schemes in parallel; the process had {Share:0%} of the CPUs' time).");

    /// <summary>CPU time over wall time x CPUs.</summary>
    public double Share => WallSeconds > 0 && Cpus > 0 ? CpuSeconds / (WallSeconds * Cpus) : 0;
}
