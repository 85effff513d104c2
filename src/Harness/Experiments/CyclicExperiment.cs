using System.Globalization;
using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using DivCon.Harness.Workload;

namespace DivCon.Harness.Experiments;

/// <summary>
/// The cyclic multiprogram experiment: time every program alone, run the workload cyclically under each
/// scheme, compute NTT/NP/ANTT/STP/MNTT per scheme, compare with the static-partition oracle, and write the
/// reports (see <see cref="CyclicReportWriter"/>).
/// </summary>
/// <remarks>
/// <para>
/// Steps: (1) an optional uncounted warm-up round (<see cref="CyclicExperimentOptions.WarmupTime"/>): every program
/// alone, then every scheme's cyclic test for the warm-up time; (2) <see cref="CyclicExperimentOptions.Rounds"/>
/// measured rounds, each running the isolated measurement (C_SP, <see cref="SingleProgramTimer"/>) and every scheme's
/// cyclic test (<see cref="CyclicRunner"/>, <c>TimeLimit / Rounds</c> each) in the order <see cref="RoundOrder"/>
/// gives; every block opens its own session and closes it before the next starts (the next block starts on an idle
/// machine), and the heap is settled between blocks; (3) metrics with <see cref="MultiprogramMetrics"/>, per round and
/// pooled, and across rounds with <see cref="SchemeRanking"/>; (4) the oracle with <see cref="StaticPartitionOracle"/>
/// if speedup tables are given; (5) files and the console table.
/// </para>
/// <para>
/// Why rounds: run as one block after another, the scheme run second won by 14-23% in both orders of a two-scheme
/// comparison, through the short program (Strassen), whose NTT was two to four times higher in the first block. The
/// first block is the first to run the multiprogram paths (the scheme's schedulers, the cyclic runner's restarts, a
/// program's runs beside other programs): its code is still at tier 0 or instrumented for dynamic PGO, and the heap
/// and the thread pool have not grown to the multiprogram load; the isolated warm-up runs covered none of this. The
/// warm-up round runs every one of these paths before anything is counted, the settled heap removes the carry-over of
/// one block's garbage into the next, and rotating the order makes whatever order effect remains a spread across
/// rounds (visible in the intervals) instead of a bias of one scheme. <c>blocks.csv</c> records, per block, what the
/// JIT compiled and what the GC did, so the first-block effect can be checked on any machine: in a one-block run the
/// first multiprogram block compiled about eight times the methods of the second, with ten times its JIT time, while
/// GC pauses did not follow the order.
/// </para>
/// <para>
/// Pooled metrics (<see cref="CyclicExperimentResult.Metrics"/>): C_SP is the mean of all rounds' isolated runs and
/// C_MP pools every counted run of every round; their intervals are per-run (within-test) intervals. Across-round
/// intervals (<see cref="CyclicExperimentResult.AcrossRounds"/>) come from one ANTT/STP/MNTT per round, each computed
/// with that round's own C_SP; rankings are stated only where those intervals separate.
/// </para>
/// <para>
/// A scheme under which some program finished no counted run in any round (e.g. a partitioning scheme that gave it no
/// core) gets no metrics; it is listed in <see cref="CyclicExperimentResult.Incomplete"/> and its runs are still
/// written. Symmetric tests are the same experiment over a workload of k instances of one program (named apart, e.g.
/// "quicksort#1" .. "quicksort#8"), reported by MNTT.
/// </para>
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
        if (options.TimeLimit <= TimeSpan.Zero || options.SingleProgramRuns < 1 || options.WarmupRuns < 0 || options.Cores < 1
            || options.Rounds < 1 || options.WarmupTime < TimeSpan.Zero)
        {
            throw new ArgumentException($"Bad options: {options}.", nameof(options));
        }

        StudentT.ValidateConfidenceLevel(options.ConfidenceLevel);
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

        var blocks = new List<BlockDiagnostics>();
        int rounds = _options.Rounds;
        bool warmedUp = _options.WarmupTime > TimeSpan.Zero;
        string[]? programNames = null;
        if (warmedUp)
        {
            // The warm-up round: every program alone, then every scheme briefly, nothing recorded but diagnostics.
            IReadOnlyList<ProgramTimings> warm = await TimedBlockAsync(blocks, 0, 0, BlockDiagnostics.IsolatedBlock, context,
                () => MeasureIsolatedAsync(isolated, Math.Max(1, _options.WarmupRuns), 0, "warm-up: ", context, cancellationToken)).ConfigureAwait(false);
            programNames = warm.Select(t => t.Program).ToArray();
            for (int i = 0; i < schemes.Count; i++)
            {
                IWorkloadScheme scheme = schemes[i];
                string[] names = programNames;
                await TimedBlockAsync(blocks, 0, i + 1, scheme.Name, context,
                    () => RunSchemeAsync(scheme, names, _options.WarmupTime, $"warm-up {scheme.Name}", context, cancellationToken)).ConfigureAwait(false);
            }
        }

        bool bracketed = _options.Bracketed;
        int isolatedBlocks = bracketed ? (rounds * schemes.Count) + 1 : rounds;
        int isolatedRunsPerBlock = (_options.SingleProgramRuns + isolatedBlocks - 1) / isolatedBlocks;
        var measured = new List<CyclicRound>(rounds);
        var lastTraces = new Dictionary<string, AllocationTrace>(StringComparer.Ordinal);
        var moveSamples = new List<(string Scheme, MoveSample Move)>();
        var partitioning = new HashSet<string>(StringComparer.Ordinal);
        var finishedIsolated = new List<IReadOnlyList<ProgramTimings>>();
        var finishedTests = new List<(string Scheme, CyclicTestResult Result)>();
        TimeSpan perRound = _options.TimeLimit / rounds;
        // Bracketed: the isolated block that ran last (the one before the next scheme block) and the scheme block
        // waiting for the isolated block after it.
        IReadOnlyList<ProgramTimings>? previousIsolated = null;
        string? awaitingBracket = null;
        for (int round = 1; round <= rounds; round++)
        {
            IReadOnlyList<int> order = bracketed ? RoundOrder.Bracketed(schemes.Count, round - 1) : RoundOrder.Rotated(schemes.Count + 1, round - 1);
            var roundIsolated = new List<IReadOnlyList<ProgramTimings>>();
            var brackets = new List<(string Scheme, IReadOnlyList<ProgramTimings> Isolated)>();
            var tests = new List<(int Slot, string Scheme, CyclicTestResult Result)>();
            for (int position = 0; position < order.Count; position++)
            {
                int slot = order[position];
                string prefix = rounds == 1 ? string.Empty : string.Create(CultureInfo.InvariantCulture, $"round {round}/{rounds} ");
                if (slot == 0)
                {
                    // Every isolated block opens a fresh session, whose programs' first run pays for what a session's
                    // first run touches first (the input's pages after the heap was settled, per-session caches): a
                    // thesis-size sumsq took 0.22 s in its first recorded run of a block and 0.03 s after. A cyclic test
                    // amortises that over hundreds of runs; C_SP must not carry it, so every block warms up first.
                    IReadOnlyList<ProgramTimings> single = await TimedBlockAsync(blocks, round, position, BlockDiagnostics.IsolatedBlock, context,
                        () => MeasureIsolatedAsync(isolated, isolatedRunsPerBlock, _options.WarmupRuns, prefix, context, cancellationToken)).ConfigureAwait(false);
                    programNames ??= single.Select(t => t.Program).ToArray();
                    if (!single.Select(t => t.Program).Order(StringComparer.Ordinal).SequenceEqual(programNames.Order(StringComparer.Ordinal), StringComparer.Ordinal))
                    {
                        throw new ArgumentException(
                            $"The isolated scheme runs [{string.Join(", ", single.Select(t => t.Program))}] but the schemes run [{string.Join(", ", programNames)}].",
                            nameof(isolated));
                    }

                    roundIsolated.Add(single);
                    finishedIsolated.Add(single);
                    if (awaitingBracket is not null)
                    {
                        brackets.Add((awaitingBracket, PoolIsolated([previousIsolated!, single])));
                        awaitingBracket = null;
                    }

                    previousIsolated = single;
                    // Kept should a later block fail or be cancelled: every finished isolated block's runs.
                    CyclicReportWriter.WriteIsolated(context.Output, PoolIsolated(finishedIsolated));
                    continue;
                }

                IWorkloadScheme scheme = schemes[slot - 1];
                // Program names are known here: the warm-up round, or round 1 (which starts with the isolated block),
                // set them; every scheme session is checked against them.
                (CyclicTestResult result, AllocationTrace? trace, IReadOnlyList<MoveSample>? moves) = await TimedBlockAsync(blocks, round, position, scheme.Name, context,
                    () => RunSchemeAsync(scheme, programNames, perRound, prefix + scheme.Name, context, cancellationToken)).ConfigureAwait(false);
                tests.Add((slot, scheme.Name, result));
                finishedTests.Add((scheme.Name, result));
                awaitingBracket = bracketed ? scheme.Name : null;
                CyclicReportWriter.WriteRuns(context.Output, finishedTests); // the finished blocks, kept should a later one fail
                if (moves is not null)
                {
                    partitioning.Add(scheme.Name);
                    moveSamples.AddRange(moves.Select(m => (scheme.Name, m)));
                }

                if (trace is not null && trace.Samples().Count > 0)
                {
                    lastTraces[scheme.Name] = trace;
                }
            }

            // Every round runs at least one isolated block (bracketed rounds end with one).
            ProgramTimings[] roundSingle = PoolIsolated(roundIsolated);
            var thisRound = new CyclicRound(round, [.. order.Select(s => s == 0 ? BlockDiagnostics.IsolatedBlock : schemes[s - 1].Name)], roundSingle,
                [.. tests.OrderBy(t => t.Slot).Select(t => (t.Scheme, t.Result))], [])
            {
                Brackets = brackets,
            };
            SchemeMetrics[] roundMetrics = [.. thisRound.Tests
                .Where(t => programNames!.All(p => t.Result.CountedSeconds(p).Count > 0))
                .Select(t => new SchemeMetrics(t.Scheme, MultiprogramMetrics.Compute(t.Result.ToMeasurements(thisRound.IsolatedFor(t.Scheme)), _options.ConfidenceLevel)))];
            measured.Add(thisRound with { Metrics = roundMetrics });
        }

        return Finish(schemes, programNames!, measured, blocks, lastTraces, partitioning, moveSamples, context);
    }

    private CyclicExperimentResult Finish(
        IReadOnlyList<IWorkloadScheme> schemes, string[] programNames, List<CyclicRound> measured, List<BlockDiagnostics> blocks,
        Dictionary<string, AllocationTrace> lastTraces, HashSet<string> partitioning, List<(string Scheme, MoveSample Move)> moveSamples, ExperimentContext context)
    {
        // Pooled C_SP: every round's isolated runs of a program, in round order.
        ProgramTimings[] single = PoolIsolated([.. measured.Select(r => r.Isolated)]);
        var tests = new List<(string, CyclicTestResult)>();
        var metrics = new List<SchemeMetrics>();
        var allocations = new List<(string, AllocationChart)>();
        var incomplete = new List<IncompleteScheme>();
        var moveLatencies = new List<MoveLatencySummary>();
        foreach (IWorkloadScheme scheme in schemes)
        {
            if (partitioning.Contains(scheme.Name))
            {
                // Every measured round's moves of this scheme (partitioning schemes only; the warm-up round is not recorded).
                moveLatencies.Add(MoveLatencySummary.Compute(scheme.Name, [.. moveSamples.Where(m => m.Scheme == scheme.Name).Select(m => m.Move.Latency)]));
            }

            CyclicTestResult pooled = Pool(measured.Select(r => r.Tests.Single(t => t.Scheme == scheme.Name).Result).ToArray());
            tests.Add((scheme.Name, pooled));
            string[] starved = programNames.Where(p => pooled.CountedSeconds(p).Count == 0).ToArray();
            if (starved.Length > 0)
            {
                // No C_MP for some program: the scheme has no metrics, but its runs are kept and the other
                // schemes' results are not lost.
                incomplete.Add(new IncompleteScheme(scheme.Name, starved));
                continue;
            }

            // Bracketed: every block's runs in the pooled C_SP's terms (see DriftCorrected); otherwise the runs as they are.
            CyclicTestResult forMetrics = _options.Bracketed
                ? Pool(measured.Select(r => DriftCorrected(r.Tests.Single(t => t.Scheme == scheme.Name).Result, r.IsolatedFor(scheme.Name), single)).ToArray())
                : pooled;
            WorkloadMetrics computed = MultiprogramMetrics.Compute(forMetrics.ToMeasurements(single), _options.ConfidenceLevel);
            // Unpinned schemes may use every CPU the process may use even when fewer workers were asked for.
            metrics.Add(new SchemeMetrics(scheme.Name, computed) { Flags = MetricFlag.Of(computed, Math.Max(_options.Cores, Environment.ProcessorCount)) });
            if (lastTraces.TryGetValue(scheme.Name, out AllocationTrace? trace))
            {
                string title = measured.Count == 1
                    ? $"Cores per program, {_options.Workload}, {scheme.Name}"
                    : $"Cores per program, {_options.Workload}, {scheme.Name}, round {measured.Count}";
                allocations.Add((scheme.Name, AllocationChart.Of(trace, title, _options.Cores)));
            }
        }

        if (metrics.Count == 0)
        {
            throw new InvalidOperationException(
                $"No scheme has metrics: {string.Join("; ", incomplete.Select(i => i.ToString()))}. Use a longer time limit or smaller problems.");
        }

        IReadOnlyList<AcrossRounds> acrossRounds = SchemeRanking.Summarize(
            [.. schemes.Select(s => (s.Name, (IReadOnlyList<WorkloadMetrics>)[.. measured.SelectMany(r => r.Metrics.Where(m => m.Scheme == s.Name).Select(m => m.Metrics))]))],
            _options.ConfidenceLevel);
        OracleResult? oracle = _options.SpeedupTables is { } tables
            ? StaticPartitionOracle.Solve(tables.Where(t => programNames.Contains(t.Program, StringComparer.Ordinal)).ToArray(), _options.Cores)
            : null;
        var experiment = new CyclicExperimentResult(_options.Workload, single, tests, metrics, allocations, oracle)
        {
            Incomplete = incomplete,
            Rounds = measured,
            AcrossRounds = measured.Count > 1 ? acrossRounds : [],
            Ranking = measured.Count > 1 ? SchemeRanking.Separated(acrossRounds) : [],
            Blocks = blocks,
            MoveLatencies = moveLatencies,
            MoveSamples = moveSamples,
        };
        CyclicReportWriter.Write(context.Output, experiment);

        return experiment;
    }

    /// <summary>
    /// One scheme's rounds as one test: every round's runs, run indices renumbered per program in round order so that
    /// they stay unique; times stay relative to the start of their own round's test.
    /// </summary>
    private static CyclicTestResult Pool(CyclicTestResult[] rounds)
    {
        if (rounds.Length == 1)
        {
            return rounds[0];
        }

        var next = new Dictionary<string, int>(StringComparer.Ordinal);
        var runs = new List<RunRecord>();
        foreach (CyclicTestResult round in rounds)
        {
            int Offset(string program) => next.GetValueOrDefault(program);
            RunRecord[] renumbered = [.. round.Runs.Select(r => r with { RunIndex = Offset(r.Program) + r.RunIndex })];
            foreach (string program in round.Programs)
            {
                next[program] = Offset(program) + round.Runs.Count(r => r.Program == program);
            }

            runs.AddRange(renumbered);
        }

        return new CyclicTestResult(rounds[0].Programs, runs, rounds[0].TimeLimit, TimeSpan.FromTicks(rounds.Sum(r => r.Elapsed.Ticks)));
    }

    /// <summary>
    /// A bracketed block's runs expressed at the pooled C_SP's machine speed: each run of program p lasts
    /// <c>duration x C_SP(p) / C_SP_bracket(p)</c>, so that its NTT against the pooled C_SP is its NTT against the
    /// isolated runs around its own block (start times are kept; only the durations, which the metrics read, change).
    /// </summary>
    private static CyclicTestResult DriftCorrected(CyclicTestResult test, IReadOnlyList<ProgramTimings> bracket, IReadOnlyList<ProgramTimings> pooled)
    {
        var factor = bracket.ToDictionary(t => t.Program, t => pooled.Single(p => p.Program == t.Program).Seconds.Average() / t.Seconds.Average(), StringComparer.Ordinal);
        RunRecord[] runs = [.. test.Runs.Select(r => r with { End = r.Start + (r.Duration * factor[r.Program]) })];
        return new CyclicTestResult(test.Programs, runs, test.TimeLimit, test.Elapsed);
    }

    /// <summary>Every round's isolated runs of each program, in round order (programs in the first round's order).</summary>
    private static ProgramTimings[] PoolIsolated(List<IReadOnlyList<ProgramTimings>> rounds) =>
        [.. rounds[0].Select(t => new ProgramTimings(t.Program, [.. rounds.SelectMany(r => r.Single(x => x.Program == t.Program).Seconds)]))];

    private static async Task<IReadOnlyList<ProgramTimings>> MeasureIsolatedAsync(
        IWorkloadScheme isolated, int runs, int warmupRuns, string prefix, ExperimentContext context, CancellationToken cancellationToken)
    {
        IWorkloadSession session = await isolated.OpenAsync(cancellationToken).ConfigureAwait(false);
        await using (session.ConfigureAwait(false))
        {
            IProgressSink progress = prefix.Length == 0 ? context.Progress : new PrefixedProgressSink(prefix.TrimEnd(), context.Progress);
            return await new SingleProgramTimer(runs, warmupRuns, context.Time, progress).MeasureAsync(session.Programs, cancellationToken).ConfigureAwait(false);
        }
    }

    private static async Task<(CyclicTestResult Result, AllocationTrace? Trace, IReadOnlyList<MoveSample>? Moves)> RunSchemeAsync(
        IWorkloadScheme scheme, IReadOnlyList<string>? programNames, TimeSpan limit, string label, ExperimentContext context, CancellationToken cancellationToken)
    {
        IWorkloadSession session = await scheme.OpenAsync(cancellationToken).ConfigureAwait(false);
        await using (session.ConfigureAwait(false))
        {
            if (programNames is not null
                && !session.Programs.Select(p => p.Name).Order(StringComparer.Ordinal).SequenceEqual(programNames.Order(StringComparer.Ordinal), StringComparer.Ordinal))
            {
                throw new ArgumentException(
                    $"Scheme '{scheme.Name}' runs [{string.Join(", ", session.Programs.Select(p => p.Name))}] but the isolated runs were [{string.Join(", ", programNames)}].",
                    nameof(scheme));
            }

            var runner = new CyclicRunner(limit, context.Time, new PrefixedProgressSink(label, context.Progress));
            CyclicTestResult result = await runner.RunAsync(session.Programs, cancellationToken).ConfigureAwait(false);
            // Read at the end of the test, before the departures: moves still under way count as not arrived.
            return (result, session.Allocations, session.Allocations?.Moves());
        }
    }

    /// <summary>Runs one block, records its diagnostics, then settles the heap (outside the block's time).</summary>
    private async Task<T> TimedBlockAsync<T>(
        List<BlockDiagnostics> blocks, int round, int position, string name, ExperimentContext context, Func<Task<T>> block)
    {
        var counters = BlockDiagnostics.Counters.Now();
        long start = context.Time.GetTimestamp();
        T result = await block().ConfigureAwait(false);
        double seconds = context.Time.GetElapsedTime(start).TotalSeconds;
        blocks.Add(BlockDiagnostics.Counters.Now().Since(counters, round, position, name, seconds));
        if (_options.SettleBetweenBlocks)
        {
            BlockDiagnostics.SettleHeap();
        }

        return result;
    }
}
