using DivCon.Harness.Measurement;
using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Harness.Workload;

/// <summary>
/// Records how many cores each program held over time, for the allocation chart of a multiprogram scheme.
/// A scheme's rebalancer calls <see cref="Record"/> whenever it applies a new allocation, and
/// <see cref="RecordMoves"/> for every decision that moves cores (their practical latencies are read later, once the
/// workers have arrived). Thread-safe.
/// </summary>
public sealed class AllocationTrace
{
    private readonly TimeProvider _time;
    private readonly long _start;
    private readonly Lock _gate = new();
    private readonly List<AllocationSample> _samples = [];
    private readonly List<(TimeSpan At, IReadOnlyList<string> Labels, IMoveArrivals Arrivals)> _moves = [];

    /// <summary>Starts a trace now.</summary>
    /// <param name="programs">Program names, the order of every recorded allocation (at least one).</param>
    /// <param name="timeProvider">The clock; system clock when null.</param>
    public AllocationTrace(IReadOnlyList<string> programs, TimeProvider? timeProvider = null)
    {
        ArgumentNullException.ThrowIfNull(programs);
        if (programs.Count == 0)
        {
            throw new ArgumentException("At least one program is needed.", nameof(programs));
        }

        Programs = programs.ToArray();
        _time = timeProvider ?? TimeProvider.System;
        _start = _time.GetTimestamp();
    }

    /// <summary>Program names.</summary>
    public IReadOnlyList<string> Programs { get; }

    /// <summary>Time since the trace started.</summary>
    public TimeSpan Elapsed => _time.GetElapsedTime(_start);

    /// <summary>Records the allocation in force from now on.</summary>
    /// <param name="cores">Cores per program, in <see cref="Programs"/> order, non-negative.</param>
    /// <exception cref="ArgumentException">Wrong length or a negative count.</exception>
    public void Record(IReadOnlyList<int> cores)
    {
        ArgumentNullException.ThrowIfNull(cores);
        if (cores.Count != Programs.Count || cores.Any(c => c < 0))
        {
            throw new ArgumentException($"Expected {Programs.Count} non-negative core counts, got [{string.Join(", ", cores)}].", nameof(cores));
        }

        var sample = new AllocationSample(Elapsed, cores.ToArray());
        lock (_gate)
        {
            _samples.Add(sample);
        }
    }

    /// <summary>Records a decision's moves, now; their latencies are read later by <see cref="Moves"/>.</summary>
    /// <param name="arrivals">The decision's <see cref="RebalanceEvent.Arrivals"/>.</param>
    /// <param name="labels">One description per move (e.g. "cpu 1: a -> b"), or null for none.</param>
    /// <exception cref="ArgumentException"><paramref name="labels"/> does not have one entry per move.</exception>
    public void RecordMoves(IMoveArrivals arrivals, IReadOnlyList<string>? labels = null)
    {
        ArgumentNullException.ThrowIfNull(arrivals);
        if (labels is not null && labels.Count != arrivals.Count)
        {
            throw new ArgumentException($"{labels.Count} labels for {arrivals.Count} moves.", nameof(labels));
        }

        var entry = (Elapsed, labels ?? [.. Enumerable.Repeat(string.Empty, arrivals.Count)], arrivals);
        lock (_gate)
        {
            _moves.Add(entry);
        }
    }

    /// <summary>Every recorded move so far with its latency as known now, in decision order.</summary>
    /// <returns>A snapshot.</returns>
    public IReadOnlyList<MoveSample> Moves()
    {
        (TimeSpan At, IReadOnlyList<string> Labels, IMoveArrivals Arrivals)[] decisions;
        lock (_gate)
        {
            decisions = [.. _moves];
        }

        return [.. decisions.SelectMany(d => d.Arrivals.Latencies.Select((latency, i) => new MoveSample(d.At, d.Labels[i], latency)))];
    }

    /// <summary>
    /// The practical latency of every recorded move so far, in decision order (null: the move had not arrived when
    /// read, or a later decision superseded it).
    /// </summary>
    /// <returns>A snapshot.</returns>
    public IReadOnlyList<TimeSpan?> MoveLatencies()
    {
        return [.. Moves().Select(m => m.Latency)];
    }

    /// <summary>The recorded allocations in order.</summary>
    /// <returns>A snapshot.</returns>
    public IReadOnlyList<AllocationSample> Samples()
    {
        lock (_gate)
        {
            return _samples.ToArray();
        }
    }
}

/// <summary>The cores each program held from <paramref name="Time"/> until the next sample.</summary>
/// <param name="Time">Time since the start of the test.</param>
/// <param name="Cores">Cores per program, in the chart's program order.</param>
public sealed record AllocationSample(TimeSpan Time, IReadOnlyList<int> Cores);
