using System.Collections.ObjectModel;

namespace DivCon.Schedulers.Multiprogram.Profiles;

/// <summary>
/// One program's measured scalability at one problem size on one machine: the sequential time, the parallel time
/// on several core counts, and the speedup table derived from them (sequential / parallel).
/// </summary>
/// <remarks>
/// Profiles are measured once (by the profiler, which runs programs on the affinity scheduler) and stored with
/// <see cref="ScalabilityProfileStore"/> so that later runs reuse them. Build one with <see cref="FromTimings"/>.
/// </remarks>
public sealed record ScalabilityProfile
{
    private ScalabilityProfile(
        string programName, string problemSize, TimeSpan sequentialTime, CoreTiming[] parallelTimes, string machine, DateTimeOffset measuredAt)
    {
        ProgramName = programName;
        ProblemSize = problemSize;
        SequentialTime = sequentialTime;
        ParallelTimes = new ReadOnlyCollection<CoreTiming>(parallelTimes);
        Machine = machine;
        MeasuredAt = measuredAt;
        Speedups = new ScalabilityTable(parallelTimes.Select(t => new ScalabilityPoint(t.Cores, sequentialTime / t.Time)));
    }

    /// <summary>The program's name (for example "quicksort").</summary>
    public string ProgramName { get; }

    /// <summary>The problem size as the program describes it (for example "10000000" or "2048x2048").</summary>
    public string ProblemSize { get; }

    /// <summary>Mean time of the sequential baseline.</summary>
    public TimeSpan SequentialTime { get; }

    /// <summary>Mean parallel time by core count, ascending by cores.</summary>
    public IReadOnlyList<CoreTiming> ParallelTimes { get; }

    /// <summary>Speedup by core count: <see cref="SequentialTime"/> / parallel time.</summary>
    public ScalabilityTable Speedups { get; }

    /// <summary>The machine it was measured on (free text: CPU model, CPU count, OS).</summary>
    public string Machine { get; }

    /// <summary>When it was measured.</summary>
    public DateTimeOffset MeasuredAt { get; }

    /// <summary>The speedup on the largest measured core count (the single number the proportional policies use).</summary>
    public double WholeMachineSpeedup => Speedups.Points[^1].Speedup;

    /// <summary>Builds a profile from measured times.</summary>
    /// <param name="programName">Non-empty program name.</param>
    /// <param name="problemSize">Non-empty problem size.</param>
    /// <param name="sequentialTime">Positive sequential time.</param>
    /// <param name="parallelTimes">At least one timing; core counts at least 1 and distinct; times positive. Any order.</param>
    /// <param name="machine">Machine description (may be empty, not null).</param>
    /// <param name="measuredAt">Measurement date.</param>
    /// <returns>The profile, with timings sorted by core count.</returns>
    /// <exception cref="ArgumentNullException">A reference argument is null.</exception>
    /// <exception cref="ArgumentException">A value breaks a rule above; the message names it.</exception>
    public static ScalabilityProfile FromTimings(
        string programName,
        string problemSize,
        TimeSpan sequentialTime,
        IEnumerable<CoreTiming> parallelTimes,
        string machine,
        DateTimeOffset measuredAt)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(programName);
        ArgumentException.ThrowIfNullOrWhiteSpace(problemSize);
        ArgumentNullException.ThrowIfNull(parallelTimes);
        ArgumentNullException.ThrowIfNull(machine);
        if (sequentialTime <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(sequentialTime), sequentialTime, "Sequential time must be positive.");
        }

        var timings = parallelTimes.OrderBy(t => t.Cores).ToArray();
        if (timings.Length == 0)
        {
            throw new ArgumentException("At least one parallel timing is needed.", nameof(parallelTimes));
        }

        for (int i = 0; i < timings.Length; i++)
        {
            if (timings[i].Cores < 1)
            {
                throw new ArgumentException($"Core count {timings[i].Cores} is below 1.", nameof(parallelTimes));
            }

            if (timings[i].Time <= TimeSpan.Zero)
            {
                throw new ArgumentException(
                    $"Time {timings[i].Time} on {timings[i].Cores} cores is not positive.", nameof(parallelTimes));
            }

            if (i > 0 && timings[i].Cores == timings[i - 1].Cores)
            {
                throw new ArgumentException($"Core count {timings[i].Cores} is measured twice.", nameof(parallelTimes));
            }
        }

        return new ScalabilityProfile(programName, problemSize, sequentialTime, timings, machine, measuredAt);
    }
}

/// <summary>A measured parallel run time on a given number of cores.</summary>
/// <param name="Cores">Core count (at least 1).</param>
/// <param name="Time">Mean wall-clock time of the run (positive).</param>
public readonly record struct CoreTiming(int Cores, TimeSpan Time);
