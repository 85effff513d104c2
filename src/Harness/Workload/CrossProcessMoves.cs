using System.Diagnostics;
using System.Globalization;
using DivCon.Harness.Measurement;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Harness.Workload;

/// <summary>
/// A joined child's cross-process moves: every CPU that a machine domain's grant gave its program (a CPU another process
/// held, or nobody), timed from the client's receipt of the grant to the first task boundary at which a worker of
/// that CPU served the program (the in-process move's arrival). The Grant message carries no decision time, so the
/// coordinator's decision and the message's way are not included; on Linux both ends use <c>CLOCK_MONOTONIC</c>.
/// Appended to a CSV file beside the child's completions as the moves resolve (arrived, or superseded by a later
/// decision); the parent reads them back (<see cref="Read"/>).
/// </summary>
public sealed class CrossProcessMoves : IDisposable
{
    private const string Header = "decided_seconds,cpu,receipt_to_decision_ms,latency_ms";
    private readonly MultiprogramScheduler _scheduler;
    private readonly string _path;
    private readonly Lock _gate = new();
    private readonly List<(RebalanceEvent Decision, int Move)> _pending = [];
    private readonly long _start = Stopwatch.GetTimestamp();

    /// <summary>Starts recording a scheduler's grant moves.</summary>
    /// <param name="scheduler">The joined child's scheduler.</param>
    /// <param name="path">The CSV file.</param>
    public CrossProcessMoves(MultiprogramScheduler scheduler, string path)
    {
        ArgumentNullException.ThrowIfNull(scheduler);
        ArgumentNullException.ThrowIfNull(path);
        _scheduler = scheduler;
        _path = path;
        _scheduler.Rebalanced += OnRebalanced;
    }

    /// <summary>The moves file beside a completions file.</summary>
    /// <param name="completionsPath">The child's completions CSV.</param>
    /// <returns>The path.</returns>
    public static string PathFor(string completionsPath)
    {
        ArgumentNullException.ThrowIfNull(completionsPath);
        return Path.ChangeExtension(completionsPath, null) + "-moves.csv";
    }

    /// <summary>Reads moves files back as move samples (latency from the grant's receipt to the arrival).</summary>
    /// <param name="paths">The files.</param>
    /// <returns>The samples, file by file in the given order.</returns>
    public static IReadOnlyList<MoveSample> Read(IEnumerable<string> paths)
    {
        ArgumentNullException.ThrowIfNull(paths);
        var samples = new List<MoveSample>();
        foreach (string path in paths)
        {
            foreach (string line in File.ReadLines(path).Skip(1))
            {
                string[] f = line.Split(',');
                if (f.Length == 4 && double.TryParse(f[0], NumberStyles.Float, CultureInfo.InvariantCulture, out double at))
                {
                    TimeSpan? latency = double.TryParse(f[3], NumberStyles.Float, CultureInfo.InvariantCulture, out double ms) && ms >= 0 ? TimeSpan.FromMilliseconds(ms) : null;
                    samples.Add(new MoveSample(TimeSpan.FromSeconds(at), $"cpu {f[1]}: another process -> {Path.GetFileNameWithoutExtension(path)}", latency));
                }
            }
        }

        return samples;
    }

    /// <summary>Writes the moves resolved so far (all of them, arrived or not, when <paramref name="final"/>).</summary>
    /// <param name="final">Whether this is the last flush (unresolved moves are written as not arrived).</param>
    public void Flush(bool final)
    {
        var lines = new List<string>();
        lock (_gate)
        {
            for (int i = 0; i < _pending.Count; i++)
            {
                (RebalanceEvent decision, int move) = _pending[i];
                TimeSpan? latency = decision.Arrivals.LatencyOf(move);
                bool superseded = i + 1 < _pending.Count && _pending.Skip(i + 1).Any(p => p.Decision.Moves.Any(m => m.CpuId == decision.Moves[move].CpuId));
                if (latency is null && !superseded && !final)
                {
                    continue;
                }

                long received = decision.DomainGrantReceivedAt!.Value;
                double toDecision = (decision.Timestamp - received) * 1000.0 / Stopwatch.Frequency;
                string total = latency is { } l ? (toDecision + l.TotalMilliseconds).ToString("0.###", CultureInfo.InvariantCulture) : string.Empty;
                lines.Add(string.Create(CultureInfo.InvariantCulture,
                    $"{(received - _start) / (double)Stopwatch.Frequency:0.######},{decision.Moves[move].CpuId},{toDecision:0.###},{total}"));
                _pending.RemoveAt(i--);
            }
        }

        if (lines.Count > 0 || !File.Exists(_path))
        {
            bool header = !File.Exists(_path);
            File.AppendAllText(_path, (header ? Header + "\r\n" : string.Empty) + string.Concat(lines.Select(l => l + "\r\n")));
        }
    }

    /// <summary>Stops recording and writes what is left.</summary>
    public void Dispose()
    {
        _scheduler.Rebalanced -= OnRebalanced;
        Flush(final: true);
    }

    private void OnRebalanced(object? sender, RebalanceEvent decision)
    {
        if (decision.Skipped || decision.DomainGrantReceivedAt is null)
        {
            return;
        }

        lock (_gate)
        {
            for (int i = 0; i < decision.Moves.Count; i++)
            {
                if (decision.Moves[i].To is not null)
                {
                    _pending.Add((decision, i)); // a CPU this process's program gains: from another process (or nobody)
                }
            }
        }
    }
}
