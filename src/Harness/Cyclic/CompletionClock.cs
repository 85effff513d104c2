namespace DivCon.Harness.Cyclic;

/// <summary>Reads the clock on the thread that completes a run, not after a hop to wherever an await resumes.</summary>
/// <remarks>
/// An <c>await</c> on a task that a custom scheduler's worker completes resumes on the thread pool, and under
/// the .NET default scheduler scheme that pool is saturated by the programs themselves, so a timestamp taken
/// after the await can lag the real completion. A synchronous continuation runs on the completing thread, so
/// its timestamp is the completion time.
/// </remarks>
internal static class CompletionClock
{
    /// <summary>The timestamp at which <paramref name="run"/> completed; faults or cancels as the run did.</summary>
    public static async Task<long> TimestampAsync(Task run, TimeProvider time)
    {
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
