using System.Globalization;
using DivCon.Harness.Terminal;

namespace DivCon.Harness.Cyclic;

/// <summary>
/// Measures single-program (isolated) times: each program runs alone, <see cref="Repetitions"/> times in a
/// row, after <see cref="WarmupRuns"/> unrecorded runs; programs are timed one after the other.
/// </summary>
/// <remarks>
/// The mean of a program's isolated runs is its C_SP, the denominator of NTT. The programs given here must
/// be bound to a scheduler that owns the whole machine (the isolated scheme), not to a multiprogram scheme.
/// </remarks>
public sealed class SingleProgramTimer
{
    /// <summary>Isolated runs per program when none is given (5, as in the thesis).</summary>
    public const int DefaultRepetitions = 5;

    private readonly TimeProvider _time;
    private readonly IProgressSink _progress;

    /// <summary>Creates a timer.</summary>
    /// <param name="repetitions">Recorded runs per program; at least 1.</param>
    /// <param name="warmupRuns">Unrecorded runs before them (JIT, caches); at least 0.</param>
    /// <param name="timeProvider">The clock; <see cref="TimeProvider.System"/> when null.</param>
    /// <param name="progress">Where progress goes; nowhere when null.</param>
    /// <exception cref="ArgumentOutOfRangeException">A count is out of range.</exception>
    public SingleProgramTimer(int repetitions = DefaultRepetitions, int warmupRuns = 0, TimeProvider? timeProvider = null, IProgressSink? progress = null)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(repetitions, 1);
        ArgumentOutOfRangeException.ThrowIfNegative(warmupRuns);
        Repetitions = repetitions;
        WarmupRuns = warmupRuns;
        _time = timeProvider ?? TimeProvider.System;
        _progress = progress ?? NullProgressSink.Instance;
    }

    /// <summary>Recorded runs per program.</summary>
    public int Repetitions { get; }

    /// <summary>Unrecorded runs per program before the recorded ones.</summary>
    public int WarmupRuns { get; }

    /// <summary>Times every program alone.</summary>
    /// <param name="programs">The programs (at least one, names unique).</param>
    /// <param name="cancellationToken">Cancels the measurement.</param>
    /// <returns>One <see cref="ProgramTimings"/> per program, in input order.</returns>
    /// <exception cref="ArgumentException">The list is empty or has duplicate names.</exception>
    public async Task<IReadOnlyList<ProgramTimings>> MeasureAsync(IReadOnlyList<IWorkloadProgram> programs, CancellationToken cancellationToken = default)
    {
        CyclicRunner.ValidateWorkload(programs);
        var result = new List<ProgramTimings>(programs.Count);
        const string Phase = "single-program runs";
        _progress.BeginPhase(Phase, programs.Count * (Repetitions + WarmupRuns));
        try
        {
            int done = 0;
            foreach (IWorkloadProgram program in programs)
            {
                var seconds = new List<double>(Repetitions);
                for (int run = 0; run < WarmupRuns + Repetitions; run++)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    long start = _time.GetTimestamp();
                    long end = await CompletionClock.TimestampAsync(program.RunOnceAsync(cancellationToken), _time).ConfigureAwait(false);
                    TimeSpan duration = _time.GetElapsedTime(start, end);
                    if (run >= WarmupRuns)
                    {
                        seconds.Add(duration.TotalSeconds);
                    }

                    _progress.Report(Phase, ++done, string.Create(CultureInfo.InvariantCulture, $"{program.Name} alone: {duration.TotalSeconds:0.###} s{(run < WarmupRuns ? " (warm-up)" : string.Empty)}"));
                }

                result.Add(new ProgramTimings(program.Name, seconds));
            }
        }
        finally
        {
            _progress.EndPhase(Phase);
        }

        return result;
    }
}
