namespace DivCon.Harness.Measurement;
/// <summary>What a cyclic test measured: every finished run, counted or discarded, and the test's timing.</summary>
/// <param name="Programs">Program names in workload order.</param>
/// <param name="Runs">All finished runs in completion order.</param>
/// <param name="TimeLimit">The time limit after which programs were no longer restarted.</param>
/// <param name="Elapsed">Time from start until the last in-flight run finished (at least the limit, usually more).</param>
public sealed record CyclicTestResult(
    IReadOnlyList<string> Programs,
    IReadOnlyList<RunRecord> Runs,
    TimeSpan TimeLimit,
    TimeSpan Elapsed)
{
    /// <summary>The counted runs of one program, in run order.</summary>
    /// <param name="program">Program name.</param>
    /// <returns>Its counted runs.</returns>
    public IReadOnlyList<RunRecord> CountedRuns(string program) =>
        Runs.Where(r => r.Counted && r.Program == program).OrderBy(r => r.RunIndex).ToList();

    /// <summary>Durations in seconds of one program's counted runs (its C_MP sample).</summary>
    /// <param name="program">Program name.</param>
    /// <returns>The durations.</returns>
    public IReadOnlyList<double> CountedSeconds(string program) =>
        CountedRuns(program).Select(r => r.Duration.TotalSeconds).ToList();

    /// <summary>
    /// Pairs these workload timings with isolated timings into the input of <see cref="MultiprogramMetrics"/>.
    /// </summary>
    /// <param name="singleProgram">Isolated timings per program (the isolated measurement of the cyclic experiment).</param>
    /// <returns>One <see cref="ProgramMeasurements"/> per program, in workload order.</returns>
    /// <exception cref="ArgumentException">A program has no isolated timings.</exception>
    public IReadOnlyList<ProgramMeasurements> ToMeasurements(IReadOnlyList<ProgramTimings> singleProgram)
    {
        ArgumentNullException.ThrowIfNull(singleProgram);
        var byName = singleProgram.ToDictionary(t => t.Program, StringComparer.Ordinal);
        var result = new List<ProgramMeasurements>(Programs.Count);
        foreach (string program in Programs)
        {
            if (!byName.TryGetValue(program, out ProgramTimings? timings))
            {
                throw new ArgumentException($"No single-program timings for '{program}'.", nameof(singleProgram));
            }

            result.Add(new ProgramMeasurements(program, timings.Seconds, CountedSeconds(program)));
        }

        return result;
    }
}
