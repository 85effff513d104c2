namespace DivCon.Harness.Performance;

/// <summary>
/// Accumulates per-phase, per-level times of one or more D&amp;C runs, as reported by a skeleton's observer
/// hook (phase, depth, elapsed). Thread-safe: observers fire from every worker.
/// </summary>
/// <remarks>Feeds the phases chart (stacked split/execute/merge per level) and the execute sum used for work
/// inflation (<see cref="PerformanceModel.WorkInflation"/>).</remarks>
public sealed class PhaseProfile
{
    private readonly Lock _gate = new();
    private readonly SortedDictionary<int, long[]> _ticks = [];

    /// <summary>Adds one observation.</summary>
    /// <param name="phase">The phase.</param>
    /// <param name="depth">Recursion depth (≥ 0).</param>
    /// <param name="elapsed">Its duration (≥ 0).</param>
    /// <exception cref="ArgumentOutOfRangeException">A negative depth or duration, or an unknown phase.</exception>
    public void Add(DcPhase phase, int depth, TimeSpan elapsed)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(depth);
        ArgumentOutOfRangeException.ThrowIfLessThan(elapsed, TimeSpan.Zero);
        if (!Enum.IsDefined(phase))
        {
            throw new ArgumentOutOfRangeException(nameof(phase), phase, "Unknown phase.");
        }

        Accumulate(phase, depth, elapsed, 1);
    }

    /// <summary>
    /// Adds <paramref name="count"/> invocations of one phase at one depth whose times sum to
    /// <paramref name="total"/> (e.g. a cell of the skeleton's aggregating observer).
    /// </summary>
    /// <param name="phase">The phase.</param>
    /// <param name="depth">Recursion depth, 0 at the root.</param>
    /// <param name="total">Their summed time, non-negative.</param>
    /// <param name="count">How many invocations, at least 1.</param>
    public void AddMany(DcPhase phase, int depth, TimeSpan total, long count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(depth);
        ArgumentOutOfRangeException.ThrowIfLessThan(total, TimeSpan.Zero);
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        if (!Enum.IsDefined(phase))
        {
            throw new ArgumentOutOfRangeException(nameof(phase), phase, "Unknown phase.");
        }

        Accumulate(phase, depth, total, count);
    }

    /// <summary>Adds validated time and invocations to one phase at one depth.</summary>
    private void Accumulate(DcPhase phase, int depth, TimeSpan total, long count)
    {
        lock (_gate)
        {
            if (!_ticks.TryGetValue(depth, out long[]? row))
            {
                row = new long[4]; // split, execute, merge, count
                _ticks[depth] = row;
            }

            row[(int)phase] += total.Ticks;
            row[3] += count;
        }
    }

    /// <summary>Σ execute time over all levels.</summary>
    public TimeSpan TotalExecute => Levels().Aggregate(TimeSpan.Zero, (sum, l) => sum + l.Execute);

    /// <summary>The accumulated times, one entry per observed level in depth order.</summary>
    /// <returns>A snapshot.</returns>
    public IReadOnlyList<PhaseLevelTimes> Levels()
    {
        lock (_gate)
        {
            return _ticks.Select(kv => new PhaseLevelTimes(
                kv.Key,
                TimeSpan.FromTicks(kv.Value[(int)DcPhase.Split]),
                TimeSpan.FromTicks(kv.Value[(int)DcPhase.Execute]),
                TimeSpan.FromTicks(kv.Value[(int)DcPhase.Merge]),
                kv.Value[3])).ToList();
        }
    }
}
