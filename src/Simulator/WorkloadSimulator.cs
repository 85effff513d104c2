using DivCon.Schedulers.Multiprogram.Profiles;
using DivCon.Simulator.Engine;

namespace DivCon.Simulator;

/// <summary>
/// Replays recorded task graphs on simulated cores: cyclic multiprogram tests under any <see cref="SimulatedScheme"/>,
/// isolated runs (C_SP) and speedup tables. Deterministic: the same options (seed included) and inputs give the
/// same results.
/// </summary>
/// <remarks>Thread-safe: each call simulates on its own state, so several schemes may be simulated in parallel; the
/// only shared state is the cache of alone times, behind a lock.</remarks>
/// <example>
/// <code>
/// var simulator = new WorkloadSimulator(new SimulationOptions { Cores = 64 });
/// var programs = files.Select(f => new SimulatedProgram(name, TaskGraph.FromTree(TaskTreeFile.Read(f)))).ToList();
/// SimulatedCyclicTest test = simulator.RunCyclic(programs, SimulatedScheme.Dynamic, TimeSpan.FromSeconds(400));
/// </code>
/// </example>
public sealed class WorkloadSimulator
{
    // Alone times by (graph, cores), shared by concurrent RunCyclic calls: every access holds the lock.
    private readonly Dictionary<(TaskGraph Graph, int Cores), TimeSpan> _aloneTimes = [];
    private readonly Lock _aloneGate = new();

    /// <summary>Creates a simulator.</summary>
    /// <param name="options">The machine and costs.</param>
    /// <exception cref="ArgumentOutOfRangeException">An option is out of range (the message names it).</exception>
    public WorkloadSimulator(SimulationOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        Options = options;
    }

    /// <summary>The options.</summary>
    public SimulationOptions Options { get; }

    /// <summary>
    /// A cyclic test: every program starts at time 0 and is restarted the moment it finishes until
    /// <paramref name="timeLimit"/>; runs ending after the limit are not counted; the test ends when the last
    /// in-flight run ends. A program with an <see cref="SimulatedProgram.Arrival"/> starts then instead, and one with
    /// <see cref="SimulatedProgram.MaxRuns"/> or <see cref="SimulatedProgram.LeaveAt"/> departs when either is reached.
    /// Partitioning schemes other than <see cref="SimulatedScheme.Dynamic"/> (which learns while running) get speedup
    /// tables from simulated alone runs (see <see cref="SpeedupTable"/>); the dynamic scheme gets them as its
    /// estimators' priors with <see cref="SimulationOptions.DynamicPriors"/>.
    /// </summary>
    /// <param name="programs">The workload (at least one program, names unique).</param>
    /// <param name="scheme">The scheme.</param>
    /// <param name="timeLimit">The time limit (positive).</param>
    /// <param name="progress">Receives the simulated time reached, now and then.</param>
    /// <param name="cancellationToken">Stops the simulation.</param>
    /// <returns>The runs, allocations and counters.</returns>
    /// <exception cref="ArgumentException">The workload is empty or has duplicate names.</exception>
    /// <exception cref="ArgumentOutOfRangeException">The time limit is not positive or the scheme undefined.</exception>
    public SimulatedCyclicTest RunCyclic(
        IReadOnlyList<SimulatedProgram> programs, SimulatedScheme scheme, TimeSpan timeLimit,
        IProgress<TimeSpan>? progress = null, CancellationToken cancellationToken = default)
    {
        ValidateWorkload(programs);
        if (!Enum.IsDefined(scheme))
        {
            throw new ArgumentOutOfRangeException(nameof(scheme), scheme, "Not a defined SimulatedScheme.");
        }

        if (timeLimit <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(timeLimit), timeLimit, "The time limit must be positive.");
        }

        // The default policy (dynamic) learns scalability while running: it gets no profile, unless the options give it
        // the others' tables as its estimators' priors.
        IReadOnlyList<ScalabilityTable>? tables = scheme.Partitions() && (scheme != SimulatedScheme.Dynamic || Options.DynamicPriors)
            ? [.. programs.Select(p => SpeedupTable(p, cancellationToken))]
            : null;
        var simulation = new Simulation(Options, scheme, programs, tables, SimulationOptions.Nanoseconds(timeLimit), Options.Seed, StatedLifetimeScales(programs, scheme, cancellationToken))
        {
            Progress = progress is null ? null : ns => progress.Report(TimeSpan.FromTicks(ns / 100)),
        };
        return simulation.Run(cancellationToken);
    }

    /// <summary>Tests only: a cyclic test whose partitioning moves are scripted (time, core, program index) instead of decided.</summary>
    internal SimulatedCyclicTest RunScripted(IReadOnlyList<SimulatedProgram> programs, SimulatedScheme scheme, IReadOnlyList<(TimeSpan At, int Core, int Program)> moves, TimeSpan timeLimit)
    {
        ValidateWorkload(programs);
        var simulation = new Simulation(Options, scheme, programs, null, SimulationOptions.Nanoseconds(timeLimit), Options.Seed, StatedLifetimeScales(programs, scheme, CancellationToken.None))
        {
            Script = [.. moves.Select(m => (SimulationOptions.Nanoseconds(m.At), m.Core, m.Program))],
        };
        return simulation.Run(CancellationToken.None);
    }

    /// <summary>
    /// Each program's run time alone, the scale of the lifetime it states under <see cref="SimulationOptions.LifetimeHints"/>
    /// (a program that states its lifetime knows how long a run takes; the metrics' C_SP, cached per graph); null when
    /// no program states one (hints off, or a scheme other than dynamic).
    /// </summary>
    private double[]? StatedLifetimeScales(IReadOnlyList<SimulatedProgram> programs, SimulatedScheme scheme, CancellationToken cancellationToken) =>
        scheme == SimulatedScheme.Dynamic && Options.LifetimeHints ? [.. programs.Select(p => AloneTime(p, cancellationToken: cancellationToken))] : null;

    /// <summary>
    /// <see cref="SimulationOptions.IsolatedRuns"/> runs of one program alone on <paramref name="cores"/> cores of
    /// one work-stealing pool (the harness's isolated scheme), each with its own random stream: the C_SP sample.
    /// </summary>
    /// <param name="program">The program.</param>
    /// <param name="cores">Cores (default: <see cref="SimulationOptions.Cores"/>).</param>
    /// <param name="cancellationToken">Stops the simulation.</param>
    /// <returns>The run times.</returns>
    public IReadOnlyList<TimeSpan> RunIsolated(SimulatedProgram program, int? cores = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(program);
        int c = cores ?? Options.Cores;
        ArgumentOutOfRangeException.ThrowIfLessThan(c, 1, nameof(cores));
        var options = Options with { Cores = c, Packages = 1 };
        var times = new TimeSpan[Options.IsolatedRuns];
        for (int i = 0; i < times.Length; i++)
        {
            // A limit of 1 ns: the first run starts at 0 and is never restarted.
            // Alone means from time 0, once: a generated mix's arrival and departure do not apply.
            var alone = program.IsCyclic ? program : new SimulatedProgram(program.Name, program.Graph);
            var simulation = new Simulation(options, SimulatedScheme.Shared, [alone], null, timeLimit: 1, seed: unchecked(Options.Seed + (7919 * (i + 1))));
            var run = simulation.Run(cancellationToken).Runs.Single();
            times[i] = run.End - run.Start;
        }

        return times;
    }

    /// <summary>
    /// The program's simulated speedup table: mean alone time on 1 core over the mean alone time on 1, 2, 4, ... cores
    /// and on <see cref="SimulationOptions.Cores"/>. What the real schemes read from a measured profile.
    /// </summary>
    /// <param name="program">The program.</param>
    /// <param name="cancellationToken">Stops the simulation.</param>
    /// <returns>The table (cached per graph).</returns>
    public ScalabilityTable SpeedupTable(SimulatedProgram program, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(program);
        var counts = new List<int>();
        for (int c = 1; c < Options.Cores; c *= 2)
        {
            counts.Add(c);
        }

        counts.Add(Options.Cores);
        double one = AloneSeconds(program, 1, cancellationToken);
        return new ScalabilityTable(counts.Select(c => new ScalabilityPoint(c, one / AloneSeconds(program, c, cancellationToken))));
    }

    /// <summary>
    /// The program's mean alone time (over <see cref="SimulationOptions.IsolatedRuns"/> runs) on <paramref name="cores"/>
    /// cores (default: all), cached per graph: the C_SP of the metrics.
    /// </summary>
    /// <param name="program">The program (its arrival and departure do not apply).</param>
    /// <param name="cores">Cores (default: <see cref="SimulationOptions.Cores"/>).</param>
    /// <param name="cancellationToken">Stops the simulation.</param>
    /// <returns>The mean time, seconds.</returns>
    public double AloneTime(SimulatedProgram program, int? cores = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(program);
        int c = cores ?? Options.Cores;
        ArgumentOutOfRangeException.ThrowIfLessThan(c, 1, nameof(cores));
        return AloneSeconds(program, c, cancellationToken);
    }

    private double AloneSeconds(SimulatedProgram program, int cores, CancellationToken cancellationToken)
    {
        TimeSpan time;
        lock (_aloneGate)
        {
            if (_aloneTimes.TryGetValue((program.Graph, cores), out time))
            {
                return Math.Max(time.TotalSeconds, 1e-9);
            }
        }

        // Computed outside the lock (two threads may both compute it; the results are identical).
        var runs = RunIsolated(program, cores, cancellationToken);
        time = TimeSpan.FromTicks((long)runs.Average(r => r.Ticks));
        lock (_aloneGate)
        {
            _aloneTimes[(program.Graph, cores)] = time;
        }

        return Math.Max(time.TotalSeconds, 1e-9);
    }

    private static void ValidateWorkload(IReadOnlyList<SimulatedProgram> programs)
    {
        ArgumentNullException.ThrowIfNull(programs);
        if (programs.Count == 0)
        {
            throw new ArgumentException("A workload needs at least one program.", nameof(programs));
        }

        string? repeated = programs.GroupBy(p => p?.Name, StringComparer.Ordinal).FirstOrDefault(g => g.Count() > 1)?.Key;
        if (programs.Any(p => p is null) || repeated is not null)
        {
            throw new ArgumentException($"Programs must be non-null with unique names (repeated: '{repeated}').", nameof(programs));
        }

        foreach (var program in programs)
        {
            if (program.Arrival < TimeSpan.Zero || program.MaxRuns < 1 || program.LeaveAt <= program.Arrival)
            {
                throw new ArgumentException(
                    $"Program '{program.Name}': arrival {program.Arrival} must not be negative, MaxRuns ({program.MaxRuns}) must be at least 1 and LeaveAt ({program.LeaveAt}) after the arrival.",
                    nameof(programs));
            }
        }
    }
}
