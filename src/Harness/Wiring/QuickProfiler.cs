using DivCon.Programs;
using DivCon.Schedulers.Multiprogram.Profiles;
using DivCon.Schedulers.Multiprogram.Profiling;

namespace DivCon.Harness.Wiring;

/// <summary>
/// Measures a quick scalability profile when none is stored, with the schedulers' <see cref="ScalabilityProfiler"/>:
/// the mean of <see cref="Repetitions"/> runs (after a warm-up) on 1 and on all workers of the run, pinned, and a
/// sequential run. Good enough to split cores in proportion; the <c>scalability</c> command measures proper profiles
/// (every core count, more runs, the sequential baseline on a pinned core).
/// </summary>
public static class QuickProfiler
{
    /// <summary>Timed runs per configuration.</summary>
    public const int Repetitions = 2;

    /// <summary>Measures the profile of one program.</summary>
    /// <param name="program">The program (not running).</param>
    /// <param name="machine">The machine.</param>
    /// <param name="workers">The run's worker count.</param>
    /// <param name="cancellationToken">Cancels the measurement.</param>
    /// <returns>The profile, keyed by the program's name and size.</returns>
    public static Task<ScalabilityProfile> MeasureAsync(BenchmarkProgram program, HarnessMachine machine, int workers, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(program);
        ArgumentNullException.ThrowIfNull(machine);
        var profiler = new ScalabilityProfiler(machine.Topology.Subset(machine.CpusFor(workers)), Repetitions);
        return profiler.MeasureAsync(
            program.Name,
            Key(program),
            _ =>
            {
                program.RunSequential();
                return Task.CompletedTask;
            },
            async (scheduler, ct) =>
            {
                // ForceYielding, not false: the profiler disposes the scheduler after the last run, and a scheduler cannot
                // wait for its own worker, which is the thread that completes the run; a forced yield without the
                // captured context always continues on a thread-pool thread (Task.Yield would post to the worker's
                // own TaskScheduler.Current).
                await program.RunParallelAsync(scheduler, cancellationToken: ct).ConfigureAwait(ConfigureAwaitOptions.ForceYielding);
            },
            workers > 1 ? [1, workers] : [1],
            cancellationToken);
    }

    /// <summary>The store key of a program's size.</summary>
    /// <param name="program">The program.</param>
    /// <returns>Its problem size as invariant text.</returns>
    public static string Key(BenchmarkProgram program)
    {
        ArgumentNullException.ThrowIfNull(program);
        return program.ProblemSize.ToString(System.Globalization.CultureInfo.InvariantCulture);
    }
}
