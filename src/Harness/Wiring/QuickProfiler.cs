using System.Diagnostics;
using DivCon.Programs;
using DivCon.Schedulers.Multiprogram.Profiles;

namespace DivCon.Harness.Wiring;

/// <summary>
/// Measures a quick scalability profile when none is stored: one warm-up run, then the fastest of
/// <see cref="Runs"/> sequential runs (on one pinned core) and of as many parallel runs on 1 and on all workers (the
/// minimum resists a noisy machine better than the mean). Good enough to split cores in proportion; the
/// <c>scalability</c> command measures proper profiles (repeated, every core count).
/// </summary>
public static class QuickProfiler
{
    /// <summary>Text appended to the machine description of quick profiles, so they can be told apart in the store.</summary>
    public const string QuickMarker = " (quick profile)";

    /// <summary>Runs per configuration; the fastest counts.</summary>
    public const int Runs = 2;

    /// <summary>Measures the profile of one program.</summary>
    /// <param name="program">The program (not running).</param>
    /// <param name="machine">The machine.</param>
    /// <param name="workers">The run's worker count.</param>
    /// <param name="machineText">Machine description stored with the profile.</param>
    /// <param name="time">The clock.</param>
    /// <param name="cancellationToken">Cancels the measurement.</param>
    /// <returns>The profile.</returns>
    public static async Task<ScalabilityProfile> MeasureAsync(
        BenchmarkProgram program, HarnessMachine machine, int workers, string machineText, TimeProvider time, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(program);
        ArgumentNullException.ThrowIfNull(machine);
        ArgumentNullException.ThrowIfNull(time);
        IReadOnlyList<int> cpus = machine.CpusFor(workers);
        var timings = new List<CoreTiming>();
        TimeSpan sequential;
        var one = SchedulerFactory.Create(machine, cpus.Take(1).ToArray());
        try
        {
            await Task.Run(() => program.RunParallelAsync(one, cancellationToken: cancellationToken), cancellationToken).ConfigureAwait(false); // warm-up
            sequential = await FastestAsync(() => SchedulerFactory.RunSequentialAsync(program, one, cancellationToken), time).ConfigureAwait(false);
            timings.Add(new CoreTiming(1, await FastestAsync(() => program.RunParallelAsync(one, cancellationToken: cancellationToken), time).ConfigureAwait(false)));
        }
        finally
        {
            await SchedulerFactory.DisposeOffWorkersAsync(one).ConfigureAwait(false);
        }

        if (workers > 1)
        {
            var all = SchedulerFactory.Create(machine, cpus);
            try
            {
                timings.Add(new CoreTiming(workers, await FastestAsync(() => program.RunParallelAsync(all, cancellationToken: cancellationToken), time).ConfigureAwait(false)));
            }
            finally
            {
                await SchedulerFactory.DisposeOffWorkersAsync(all).ConfigureAwait(false);
            }
        }

        return ScalabilityProfile.FromTimings(program.Name, Key(program), sequential, timings, machineText + QuickMarker, time.GetUtcNow());
    }

    /// <summary>The store key of a program's size.</summary>
    /// <param name="program">The program.</param>
    /// <returns>Its problem size as invariant text.</returns>
    public static string Key(BenchmarkProgram program)
    {
        ArgumentNullException.ThrowIfNull(program);
        return program.ProblemSize.ToString(System.Globalization.CultureInfo.InvariantCulture);
    }

    private static async Task<TimeSpan> FastestAsync(Func<Task> run, TimeProvider time)
    {
        TimeSpan best = TimeSpan.MaxValue;
        for (int i = 0; i < Runs; i++)
        {
            TimeSpan elapsed = await TimeAsync(run, time).ConfigureAwait(false);
            best = elapsed < best ? elapsed : best;
        }

        return best;
    }

    private static async Task<TimeSpan> TimeAsync(Func<Task> run, TimeProvider time)
    {
        long start = time.GetTimestamp();
        // Task.Run: start from the thread pool, never from a worker of a scheduler that is about to be disposed.
        await Task.Run(run).ConfigureAwait(false);
        TimeSpan elapsed = time.GetElapsedTime(start);
        Debug.Assert(elapsed >= TimeSpan.Zero, "a monotonic clock never goes back");
        return elapsed > TimeSpan.Zero ? elapsed : TimeSpan.FromTicks(1);
    }
}
