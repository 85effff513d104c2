using DivCon.Harness.Cyclic;
using DivCon.Harness.Metrics;
using DivCon.Harness.Oracle;
using DivCon.Harness.Reports.Charts;
using DivCon.Harness.Terminal;

namespace DivCon.Harness.Experiments;

/// <summary>
/// The cyclic multiprogram experiment: time every program alone, run the workload cyclically under each
/// scheme, compute NTT/NP/ANTT/STP/MNTT per scheme, compare with the static-partition oracle, and write the
/// reports (see <see cref="CyclicReportWriter"/>).
/// </summary>
/// <remarks>
/// Steps: (1) open the isolated scheme and measure C_SP with <see cref="SingleProgramTimer"/>; (2) for each
/// scheme, open a session, run <see cref="CyclicRunner"/> for the time limit, and close the session (the
/// next scheme starts on an idle machine); (3) metrics with <see cref="MultiprogramMetrics"/>; (4) the
/// oracle with <see cref="StaticPartitionOracle"/> if speedup tables are given; (5) files and the console
/// table. A scheme under which some program finished no run within the time limit (e.g. a partitioning scheme
/// that gave it no core) gets no metrics; it is listed in <see cref="CyclicExperimentResult.Incomplete"/> and its runs
/// are still written. Symmetric tests are the same experiment over a workload of k instances of one program (named
/// apart, e.g. "quicksort#1" .. "quicksort#8"), reported by MNTT.
/// </remarks>
public sealed class CyclicExperiment
{
    private readonly CyclicExperimentOptions _options;

    /// <summary>Creates the experiment.</summary>
    /// <param name="options">Its settings.</param>
    /// <exception cref="ArgumentException">An option is out of range.</exception>
    public CyclicExperiment(CyclicExperimentOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentException.ThrowIfNullOrWhiteSpace(options.Workload, nameof(options));
        if (options.TimeLimit <= TimeSpan.Zero || options.SingleProgramRuns < 1 || options.WarmupRuns < 0 || options.Cores < 1)
        {
            throw new ArgumentException($"Bad options: {options}.", nameof(options));
        }

        Statistics.StudentT.ValidateConfidenceLevel(options.ConfidenceLevel);
        _options = options;
    }

    /// <summary>Runs the experiment, writes its files, and shows the summary.</summary>
    /// <param name="isolated">The scheme giving each program the whole machine (C_SP).</param>
    /// <param name="schemes">The schemes to compare (at least one, names unique).</param>
    /// <param name="context">Output, progress, console and clock.</param>
    /// <param name="cancellationToken">Cancels the experiment.</param>
    /// <returns>The measurements and metrics.</returns>
    /// <exception cref="ArgumentException">No schemes, duplicate names, or a session whose programs differ from the isolated ones.</exception>
    public async Task<CyclicExperimentResult> RunAsync(
        IWorkloadScheme isolated, IReadOnlyList<IWorkloadScheme> schemes, ExperimentContext context, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(isolated);
        ArgumentNullException.ThrowIfNull(schemes);
        ArgumentNullException.ThrowIfNull(context);
        if (schemes.Count == 0 || schemes.Select(s => s.Name).Distinct(StringComparer.Ordinal).Count() != schemes.Count)
        {
            throw new ArgumentException("At least one scheme is needed, and scheme names must be unique.", nameof(schemes));
        }

        IReadOnlyList<ProgramTimings> single;
        await using (IWorkloadSession session = await isolated.OpenAsync(cancellationToken).ConfigureAwait(false))
        {
            single = await new SingleProgramTimer(_options.SingleProgramRuns, _options.WarmupRuns, context.Time, context.Progress)
                .MeasureAsync(session.Programs, cancellationToken).ConfigureAwait(false);
        }

        CyclicReportWriter.WriteIsolated(context.Output, single); // kept should a later scheme fail or be cancelled

        string[] programNames = single.Select(t => t.Program).ToArray();
        var tests = new List<(string, CyclicTestResult)>();
        var metrics = new List<SchemeMetrics>();
        var allocations = new List<(string, AllocationChart)>();
        var incomplete = new List<IncompleteScheme>();
        foreach (IWorkloadScheme scheme in schemes)
        {
            IWorkloadSession session = await scheme.OpenAsync(cancellationToken).ConfigureAwait(false);
            await using (session.ConfigureAwait(false))
            {
                if (!session.Programs.Select(p => p.Name).Order(StringComparer.Ordinal).SequenceEqual(programNames.Order(StringComparer.Ordinal), StringComparer.Ordinal))
                {
                    throw new ArgumentException(
                        $"Scheme '{scheme.Name}' runs [{string.Join(", ", session.Programs.Select(p => p.Name))}] but the isolated runs were [{string.Join(", ", programNames)}].",
                        nameof(schemes));
                }

                var runner = new CyclicRunner(_options.TimeLimit, context.Time, new PrefixedProgressSink(scheme.Name, context.Progress));
                CyclicTestResult result = await runner.RunAsync(session.Programs, cancellationToken).ConfigureAwait(false);
                tests.Add((scheme.Name, result));
                CyclicReportWriter.WriteRuns(context.Output, tests); // the finished schemes, kept should a later one fail
                string[] starved = programNames.Where(p => result.CountedSeconds(p).Count == 0).ToArray();
                if (starved.Length > 0)
                {
                    // No C_MP for some program: the scheme has no metrics, but its runs are kept and the other
                    // schemes' results are not lost.
                    incomplete.Add(new IncompleteScheme(scheme.Name, starved));
                    continue;
                }

                WorkloadMetrics computed = MultiprogramMetrics.Compute(result.ToMeasurements(single), _options.ConfidenceLevel);
                // Unpinned schemes may use every CPU the process may use even when fewer workers were asked for.
                metrics.Add(new SchemeMetrics(scheme.Name, computed) { Flags = MetricFlag.Of(computed, Math.Max(_options.Cores, Environment.ProcessorCount)) });
                if (session.Allocations is { } trace && trace.Samples().Count > 0)
                {
                    allocations.Add((scheme.Name, trace.ToChart($"Cores per program, {_options.Workload}, {scheme.Name}", _options.Cores)));
                }
            }
        }

        if (metrics.Count == 0)
        {
            throw new InvalidOperationException(
                $"No scheme has metrics: {string.Join("; ", incomplete.Select(i => i.ToString()))}. Use a longer time limit or smaller problems.");
        }

        OracleResult? oracle = _options.SpeedupTables is { } tables
            ? StaticPartitionOracle.Solve(tables.Where(t => programNames.Contains(t.Program, StringComparer.Ordinal)).ToArray(), _options.Cores)
            : null;
        var experiment = new CyclicExperimentResult(_options.Workload, single, tests, metrics, allocations, oracle) { Incomplete = incomplete };
        CyclicReportWriter.Write(context.Output, experiment);
        if (context.Console is { } console)
        {
            SummaryTable.Render(console, metrics);
        }

        return experiment;
    }
}
