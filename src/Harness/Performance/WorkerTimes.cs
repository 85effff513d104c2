namespace DivCon.Harness.Performance;

/// <summary>
/// How one worker thread spent a parallel run: executing program tasks (work), in the scheduler (overhead:
/// queue operations, steals, bookkeeping) and idle (searching with nothing to run, spinning, parked).
/// </summary>
/// <remarks>The schedulers' per-worker statistics map into this record; the harness never reads schedulers directly.</remarks>
/// <param name="Worker">Worker index.</param>
/// <param name="Work">Time executing task bodies.</param>
/// <param name="Overhead">Time in scheduling operations.</param>
/// <param name="Idle">Time with nothing to run.</param>
public sealed record WorkerTimes(int Worker, TimeSpan Work, TimeSpan Overhead, TimeSpan Idle);
