using System.Globalization;
using DivCon.Harness.Measurement;
using DivCon.Harness.Workload;

namespace DivCon.Harness.Experiments;
/// <summary>
/// Measures single-program (isolated) times on the <see cref="TimingLoop"/>: each program runs alone,
/// <see cref="Repetitions"/> times in a row, after <see cref="WarmupRuns"/> unrecorded runs; programs are timed one
/// after the other.
/// </summary>
/// <remarks>
/// The mean of a program's isolated runs is its C_SP, the denominator of NTT. The programs given here must
/// be bound to a scheduler that owns the whole machine (the isolated scheme), not to a multiprogram scheme.
/// </remarks>
public sealed class SingleProgramTimer
{
    /// <summary>Isolated runs per program when none is given (5, as in the thesis).</summary>
    public const int DefaultRepetitions = 5;

    private readonly TimingLoop _loop;

    /// <summary>Creates a timer.</summary>
    /// <param name="repetitions">Recorded runs per program; at least 1.</param>
    /// <param name="warmupRuns">Unrecorded runs before them (JIT, caches); at least 0.</param>
    /// <param name="timeProvider">The clock; <see cref="TimeProvider.System"/> when null.</param>
    /// <param name="progress">Where progress goes; nowhere when null.</param>
    /// <exception cref="ArgumentOutOfRangeException">A count is out of range.</exception>
    public SingleProgramTimer(int repetitions = DefaultRepetitions, int warmupRuns = 0, TimeProvider? timeProvider = null, IProgressSink? progress = null) =>
        _loop = new TimingLoop(repetitions, warmupRuns, timeProvider, progress);

    /// <summary>Recorded runs per program.</summary>
    public int Repetitions => _loop.Repetitions;

    /// <summary>Unrecorded runs per program before the recorded ones.</summary>
    public int WarmupRuns => _loop.WarmupRuns;

    /// <summary>Times every program alone.</summary>
    /// <param name="programs">The programs (at least one, names unique).</param>
    /// <param name="cancellationToken">Cancels the measurement.</param>
    /// <returns>One <see cref="ProgramTimings"/> per program, in input order.</returns>
    /// <exception cref="ArgumentException">The list is empty or has duplicate names.</exception>
    public async Task<IReadOnlyList<ProgramTimings>> MeasureAsync(IReadOnlyList<WorkloadProgram> programs, CancellationToken cancellationToken = default)
    {
        CyclicRunner.ValidateWorkload(programs);
        IReadOnlyList<IReadOnlyList<double>> seconds = await _loop.RunAsync(
            "single-program runs",
            programs,
            static (program, ct) => program.RunOnceAsync(ct),
            static (program, elapsed, warmup) => string.Create(CultureInfo.InvariantCulture, $"{program.Name} alone: {elapsed:0.###} s{(warmup ? " (warm-up)" : string.Empty)}"),
            cancellationToken: cancellationToken).ConfigureAwait(false);
        return [.. programs.Select((program, i) => new ProgramTimings(program.Name, seconds[i]))];
    }
}
