namespace DivCon.Harness.Measurement;

/// <summary>
/// The harness's one warm-up-and-repeat timing loop: each item (a program alone, a sweep configuration) runs
/// <see cref="WarmupRuns"/> unrecorded times and then <see cref="Repetitions"/> recorded times, one item after the
/// other, every run timed by <see cref="CompletionTimestampAsync"/> on one clock and reported to one progress phase.
/// The isolated measurement (C_SP) and the granularity and scalability sweeps are its callers; the recorded seconds
/// go on to <see cref="SampleSummary"/> or the multiprogram metrics.
/// </summary>
public sealed class TimingLoop
{
    private readonly IProgressSink _progress;

    /// <summary>Creates a loop.</summary>
    /// <param name="repetitions">Recorded runs per item; at least 1.</param>
    /// <param name="warmupRuns">Unrecorded runs before them (JIT, caches); at least 0.</param>
    /// <param name="timeProvider">The clock; <see cref="TimeProvider.System"/> when null.</param>
    /// <param name="progress">Where progress goes; nowhere when null.</param>
    /// <exception cref="ArgumentOutOfRangeException">A count is out of range.</exception>
    public TimingLoop(int repetitions, int warmupRuns, TimeProvider? timeProvider = null, IProgressSink? progress = null)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(repetitions, 1);
        ArgumentOutOfRangeException.ThrowIfNegative(warmupRuns);
        Repetitions = repetitions;
        WarmupRuns = warmupRuns;
        Time = timeProvider ?? TimeProvider.System;
        _progress = progress ?? NullProgressSink.Instance;
    }

    /// <summary>Recorded runs per item.</summary>
    public int Repetitions { get; }

    /// <summary>Unrecorded runs per item before the recorded ones.</summary>
    public int WarmupRuns { get; }

    /// <summary>The clock every run is timed with.</summary>
    public TimeProvider Time { get; }

    /// <summary>Times every item in order.</summary>
    /// <typeparam name="T">The item type.</typeparam>
    /// <param name="phase">The progress phase (its total is items x (warm-up + recorded runs)).</param>
    /// <param name="items">The items.</param>
    /// <param name="runOnce">Runs an item once.</param>
    /// <param name="describe">The progress line of a run: the item, its seconds, and whether it was a warm-up run.</param>
    /// <param name="completed">Called after each item with its recorded seconds (e.g. to keep partial results); null for none.</param>
    /// <param name="cancellationToken">Cancels before the next run.</param>
    /// <returns>The recorded seconds of every item, in item order.</returns>
    public async Task<IReadOnlyList<IReadOnlyList<double>>> RunAsync<T>(
        string phase,
        IReadOnlyList<T> items,
        Func<T, CancellationToken, Task> runOnce,
        Func<T, double, bool, string> describe,
        Action<T, IReadOnlyList<double>>? completed = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(phase);
        ArgumentNullException.ThrowIfNull(items);
        ArgumentNullException.ThrowIfNull(runOnce);
        ArgumentNullException.ThrowIfNull(describe);
        var result = new List<IReadOnlyList<double>>(items.Count);
        _progress.BeginPhase(phase, items.Count * (WarmupRuns + Repetitions));
        try
        {
            int done = 0;
            foreach (T item in items)
            {
                var seconds = new List<double>(Repetitions);
                for (int run = 0; run < WarmupRuns + Repetitions; run++)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    long start = Time.GetTimestamp();
                    long end = await CompletionTimestampAsync(runOnce(item, cancellationToken), Time).ConfigureAwait(false);
                    double elapsed = Time.GetElapsedTime(start, end).TotalSeconds;
                    bool warmup = run < WarmupRuns;
                    if (!warmup)
                    {
                        seconds.Add(elapsed);
                    }

                    _progress.Report(phase, ++done, describe(item, elapsed, warmup));
                }

                result.Add(seconds);
                completed?.Invoke(item, seconds);
            }
        }
        finally
        {
            _progress.EndPhase(phase);
        }

        return result;
    }

    /// <summary>
    /// The timestamp at which <paramref name="run"/> completed, read on the thread that completes it, not after a hop
    /// to wherever an await resumes; faults or cancels as the run did.
    /// </summary>
    /// <remarks>
    /// An <c>await</c> on a task that a custom scheduler's worker completes resumes on the thread pool, and under the
    /// .NET default scheduler scheme that pool is saturated by the programs themselves, so a timestamp taken after the
    /// await can lag the real completion. A synchronous continuation runs on the completing thread, so its timestamp is
    /// the completion time.
    /// </remarks>
    /// <param name="run">The run.</param>
    /// <param name="time">The clock.</param>
    /// <returns>The completion timestamp.</returns>
    public static async Task<long> CompletionTimestampAsync(Task run, TimeProvider time)
    {
        ArgumentNullException.ThrowIfNull(run);
        ArgumentNullException.ThrowIfNull(time);
        Task<long> stamped = run.ContinueWith(
            static (completed, state) =>
            {
                long timestamp = ((TimeProvider)state!).GetTimestamp();
                completed.GetAwaiter().GetResult(); // rethrow the run's exception, if any
                return timestamp;
            },
            time,
            CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously,
            TaskScheduler.Default);
        return await stamped.ConfigureAwait(false);
    }
}
