using System.Diagnostics;
using System.Globalization;
using DivCon.Harness.Measurement;
using DivCon.Harness.Workload;

namespace DivCon.Harness.Experiments;
/// <summary>
/// Runs the cyclic multiprogram protocol: every program starts at once and is restarted the moment it
/// finishes, until a time limit; runs that end after the limit are discarded.
/// </summary>
/// <remarks>
/// <para>
/// Why cyclic: running each program of a workload once and waiting for all leaves the longest program alone
/// on the machine at the end, which skews system metrics. Restarting every program as soon as it finishes
/// keeps the degree of multiprogramming constant for the whole measured interval, and gives many C_MP
/// samples per program in one test.
/// </para>
/// <para>
/// The protocol, per program: while the time since the test started is below the limit, start a run, await
/// it, and record (program, run index, start, end). A run that ends at or before the limit is counted; one
/// that ends after it is recorded as discarded, and the program is not restarted. The runner returns only
/// when every in-flight run has finished, because those runs still occupy the machine (the next test must
/// not start on a loaded machine).
/// </para>
/// <para>
/// Time comes from a <see cref="TimeProvider"/> (<see cref="TimeProvider.System"/> by default), so tests
/// drive the protocol with a manual clock. A faulted or cancelled run faults or cancels the whole test after
/// the other programs' in-flight runs have finished.
/// </para>
/// <example><code>
/// var result = await new CyclicRunner(TimeSpan.FromMinutes(8)).RunAsync(programs, cancellationToken);
/// var metrics = MultiprogramMetrics.Compute(result.ToMeasurements(isolatedTimings));
/// </code></example>
/// </remarks>
public sealed class CyclicRunner
{
    private readonly TimeProvider _time;
    private readonly IProgressSink _progress;

    /// <summary>Creates a runner.</summary>
    /// <param name="timeLimit">How long programs are restarted; positive.</param>
    /// <param name="timeProvider">The clock; <see cref="TimeProvider.System"/> when null.</param>
    /// <param name="progress">Where progress goes; nowhere when null.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="timeLimit"/> is not positive.</exception>
    public CyclicRunner(TimeSpan timeLimit, TimeProvider? timeProvider = null, IProgressSink? progress = null)
    {
        if (timeLimit <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(timeLimit), timeLimit, "The time limit must be positive.");
        }

        TimeLimit = timeLimit;
        _time = timeProvider ?? TimeProvider.System;
        _progress = progress ?? NullProgressSink.Instance;
    }

    /// <summary>How long programs are restarted.</summary>
    public TimeSpan TimeLimit { get; }

    /// <summary>Runs the cyclic test over <paramref name="programs"/>.</summary>
    /// <param name="programs">The workload (at least one program, names unique).</param>
    /// <param name="cancellationToken">Passed to every run; cancelling stops the test.</param>
    /// <returns>Every finished run and the test's timing.</returns>
    /// <exception cref="ArgumentException">The workload is empty or has duplicate names.</exception>
    public async Task<CyclicTestResult> RunAsync(IReadOnlyList<WorkloadProgram> programs, CancellationToken cancellationToken = default)
    {
        ValidateWorkload(programs);
        var records = new List<RunRecord>();
        var gate = new Lock();
        string phase = string.Create(CultureInfo.InvariantCulture, $"cyclic ({programs.Count} programs, {TimeLimit.TotalSeconds:0.###} s)");
        _progress.BeginPhase(phase, TimeLimit.TotalSeconds);

        long startTimestamp = _time.GetTimestamp();
        var loops = new Task[programs.Count];
        for (int i = 0; i < programs.Count; i++)
        {
            // Started from this thread, in order: each loop runs synchronously until its first await.
            loops[i] = RunProgramLoopAsync(programs[i], startTimestamp, records, gate, phase, cancellationToken);
        }

        try
        {
            await Task.WhenAll(loops).ConfigureAwait(false);
        }
        finally
        {
            _progress.EndPhase(phase);
        }

        RunRecord[] snapshot;
        lock (gate)
        {
            snapshot = records.ToArray();
        }

        // The last completion time, read on the completing thread, is when the machine became idle.
        TimeSpan elapsed = snapshot.Length > 0 ? snapshot.Max(r => r.End) : _time.GetElapsedTime(startTimestamp);

        return new CyclicTestResult(programs.Select(p => p.Name).ToArray(), snapshot, TimeLimit, elapsed);
    }

    internal static void ValidateWorkload(IReadOnlyList<WorkloadProgram> programs)
    {
        ArgumentNullException.ThrowIfNull(programs);
        if (programs.Count == 0)
        {
            throw new ArgumentException("A workload needs at least one program.", nameof(programs));
        }

        var names = new HashSet<string>(StringComparer.Ordinal);
        foreach (WorkloadProgram program in programs)
        {
            if (program is null)
            {
                throw new ArgumentException("The workload contains a null program.", nameof(programs));
            }

            if (!names.Add(program.Name))
            {
                throw new ArgumentException($"Program name '{program.Name}' appears twice in the workload.", nameof(programs));
            }
        }
    }

    private async Task RunProgramLoopAsync(
        WorkloadProgram program, long startTimestamp, List<RunRecord> records, Lock gate, string phase, CancellationToken cancellationToken)
    {
        int runIndex = 0;
        while (true)
        {
            TimeSpan start = _time.GetElapsedTime(startTimestamp);
            if (start >= TimeLimit)
            {
                return; // The limit is reached: no restart.
            }

            cancellationToken.ThrowIfCancellationRequested();
            long endTimestamp = await TimingLoop.CompletionTimestampAsync(program.RunOnceAsync(cancellationToken), _time).ConfigureAwait(false);
            TimeSpan end = _time.GetElapsedTime(startTimestamp, endTimestamp);
            Debug.Assert(end >= start, "a monotonic clock never goes back");
            var record = new RunRecord(program.Name, runIndex, start, end, Counted: end <= TimeLimit);
            lock (gate)
            {
                records.Add(record);
            }

            _progress.Report(phase, Math.Min(end.TotalSeconds, TimeLimit.TotalSeconds),
                string.Create(CultureInfo.InvariantCulture, $"{program.Name} run {runIndex} {record.Duration.TotalSeconds:0.###} s{(record.Counted ? string.Empty : " (after limit, discarded)")}"));
            runIndex++;
        }
    }
}
