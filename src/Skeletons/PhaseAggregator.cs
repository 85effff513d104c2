using System.Collections.Concurrent;

namespace DivCon.Skeletons;

/// <summary>
/// A thread-safe <see cref="IDivideAndConquerObserver"/> that counts calls and sums durations per phase and per
/// depth: the data for a "where does the time go, level by level" profile of a run.
/// </summary>
/// <remarks>
/// Recording is lock-free: each (phase, depth) pair has its own counter cell, updated with
/// <see cref="Interlocked.Add(ref long, long)"/>. Depths below <see cref="PreallocatedDepths"/> use a
/// preallocated array; deeper levels (a degenerate recursion) get cells on demand. Reads taken while a run is
/// recording see each cell's own count and ticks but not necessarily a consistent cut across cells; read after
/// the run's task completed for exact figures. One aggregator may observe several runs; <see cref="Reset"/>
/// clears it between them.
/// </remarks>
/// <example>
/// <code>
/// var phases = new PhaseAggregator();
/// await program.RunAsync(problem, DivideAndConquerOptions.Default with { Observer = phases });
/// foreach (var level in phases.Snapshot())
///     Console.WriteLine($"{level.Phase} depth {level.Depth}: {level.Count} calls, {level.TotalTime}");
/// </code>
/// </example>
public sealed class PhaseAggregator : IDivideAndConquerObserver
#if !NETCOREAPP
    , Engines.ILegacyOptionalObserver
#endif
{
    /// <summary>The number of depths (0 .. this value - 1) whose counters live in a preallocated array.</summary>
    public const int PreallocatedDepths = 64;

    private static readonly DivideAndConquerPhase[] s_phases = Enum.GetValues<DivideAndConquerPhase>();

    // Indexed [phase][depth]; the cells never move, so an Interlocked.Add on a cell is never lost.
    private readonly Cell[][] _shallow;

    // Cells for depth >= PreallocatedDepths, keyed by (phase, depth); GetOrAdd hands every thread the same cell.
    private readonly ConcurrentDictionary<(DivideAndConquerPhase Phase, int Depth), Cell> _deep = new();

    // Summed over the observed runs: nodes that ran as their own task, and nodes that ran inline.
    private long _taskNodes;
    private long _inlineNodes;

    /// <summary>Creates an empty aggregator.</summary>
    public PhaseAggregator()
    {
        _shallow = new Cell[s_phases.Length][];
        for (int p = 0; p < _shallow.Length; p++)
        {
            _shallow[p] = new Cell[PreallocatedDepths];
            for (int d = 0; d < PreallocatedDepths; d++)
            {
                _shallow[p][d] = new Cell();
            }
        }
    }

    /// <summary>
    /// The deepest depth at which any phase was recorded, or -1 when nothing was recorded.
    /// </summary>
    public int MaxDepth
    {
        get
        {
            int max = -1;
            foreach (var phase in s_phases)
            {
                var cells = _shallow[(int)phase];
                for (int d = cells.Length - 1; d > max; d--)
                {
                    if (cells[d].Count > 0)
                    {
                        max = d;
                        break;
                    }
                }
            }

            foreach (var entry in _deep)
            {
                if (entry.Value.Count > 0 && entry.Key.Depth > max)
                {
                    max = entry.Key.Depth;
                }
            }

            return max;
        }
    }

    /// <summary>Nodes that ran as a task of their own, summed over the observed runs.</summary>
    public long TaskNodes => Volatile.Read(ref _taskNodes);

    /// <summary>Nodes that ran inline inside another node's task (serial elision), summed over the observed runs.</summary>
    public long InlineNodes => Volatile.Read(ref _inlineNodes);

    /// <inheritdoc/>
    public void OnNodesRun(long taskNodes, long inlineNodes)
    {
        // Interlocked: runs observed by one aggregator may finish at the same time.
        Interlocked.Add(ref _taskNodes, taskNodes);
        Interlocked.Add(ref _inlineNodes, inlineNodes);
    }

    /// <inheritdoc/>
    public void OnPhase(DivideAndConquerPhase phase, int depth, long elapsedTicks)
    {
        var cell = GetCell(phase, depth);
        // Interlocked: many tasks report the same (phase, depth) concurrently; plain += would lose updates.
        Interlocked.Increment(ref cell.Count);
        Interlocked.Add(ref cell.Ticks, elapsedTicks);
    }

    /// <summary>How many times <paramref name="phase"/> ran at <paramref name="depth"/>.</summary>
    /// <param name="phase">The phase.</param>
    /// <param name="depth">The depth (0 = root).</param>
    /// <returns>The count; 0 for a depth never reached.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="depth"/> is negative or the phase undefined.</exception>
    public long GetCount(DivideAndConquerPhase phase, int depth) => FindCell(phase, depth) is { } cell ? Volatile.Read(ref cell.Count) : 0;

    /// <summary>The summed duration of <paramref name="phase"/> at <paramref name="depth"/>.</summary>
    /// <param name="phase">The phase.</param>
    /// <param name="depth">The depth (0 = root).</param>
    /// <returns>The duration; zero for a depth never reached.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="depth"/> is negative or the phase undefined.</exception>
    public TimeSpan GetTotalTime(DivideAndConquerPhase phase, int depth) =>
        ToTime(FindCell(phase, depth) is { } cell ? Volatile.Read(ref cell.Ticks) : 0);

    /// <summary>How many times <paramref name="phase"/> ran, over all depths.</summary>
    /// <param name="phase">The phase.</param>
    /// <returns>The count.</returns>
    public long TotalCount(DivideAndConquerPhase phase) => Sum(phase, static c => Volatile.Read(ref c.Count));

    /// <summary>The summed duration of <paramref name="phase"/> over all depths.</summary>
    /// <param name="phase">The phase.</param>
    /// <returns>The duration.</returns>
    public TimeSpan TotalTime(DivideAndConquerPhase phase) => ToTime(Sum(phase, static c => Volatile.Read(ref c.Ticks)));

    /// <summary>Sets every counter back to zero. Call it between runs, not during one.</summary>
    public void Reset()
    {
        foreach (var cells in _shallow)
        {
            foreach (var cell in cells)
            {
                cell.Clear();
            }
        }

        foreach (var cell in _deep.Values)
        {
            cell.Clear();
        }

        Interlocked.Exchange(ref _taskNodes, 0);
        Interlocked.Exchange(ref _inlineNodes, 0);
    }

    /// <summary>
    /// The non-empty (phase, depth) cells, ordered by depth, then phase (split, execute, merge).
    /// </summary>
    /// <returns>A new list; later recording does not change it.</returns>
    public IReadOnlyList<PhaseLevelStatistics> Snapshot()
    {
        var list = new List<PhaseLevelStatistics>();
        foreach (var phase in s_phases)
        {
            var cells = _shallow[(int)phase];
            for (int d = 0; d < cells.Length; d++)
            {
                Add(list, phase, d, cells[d]);
            }
        }

        foreach (var entry in _deep)
        {
            Add(list, entry.Key.Phase, entry.Key.Depth, entry.Value);
        }

        list.Sort(static (a, b) => a.Depth != b.Depth ? a.Depth.CompareTo(b.Depth) : a.Phase.CompareTo(b.Phase));
        return list;

        static void Add(List<PhaseLevelStatistics> list, DivideAndConquerPhase phase, int depth, Cell cell)
        {
            long count = Volatile.Read(ref cell.Count);
            if (count > 0)
            {
                list.Add(new PhaseLevelStatistics(phase, depth, count, ToTime(Volatile.Read(ref cell.Ticks))));
            }
        }
    }

    /// <summary>Stopwatch ticks (what observers receive) as a duration.</summary>
    private static TimeSpan ToTime(long ticks) => System.Diagnostics.Stopwatch.GetElapsedTime(0, ticks);

    private long Sum(DivideAndConquerPhase phase, Func<Cell, long> read)
    {
        ValidatePhase(phase);
        long total = 0;
        foreach (var cell in _shallow[(int)phase])
        {
            total += read(cell);
        }

        foreach (var entry in _deep)
        {
            if (entry.Key.Phase == phase)
            {
                total += read(entry.Value);
            }
        }

        return total;
    }

    private Cell GetCell(DivideAndConquerPhase phase, int depth)
    {
        ValidatePhase(phase);
        ArgumentOutOfRangeException.ThrowIfNegative(depth);
        return depth < PreallocatedDepths
            ? _shallow[(int)phase][depth]
            : _deep.GetOrAdd((phase, depth), static _ => new Cell());
    }

    private Cell? FindCell(DivideAndConquerPhase phase, int depth)
    {
        ValidatePhase(phase);
        ArgumentOutOfRangeException.ThrowIfNegative(depth);
        if (depth < PreallocatedDepths)
        {
            return _shallow[(int)phase][depth];
        }

        return _deep.TryGetValue((phase, depth), out var cell) ? cell : null;
    }

    private static void ValidatePhase(DivideAndConquerPhase phase)
    {
        if ((uint)phase >= (uint)s_phases.Length)
        {
            throw new ArgumentOutOfRangeException(nameof(phase), phase, "Not a defined DivideAndConquerPhase.");
        }
    }

    /// <summary>One (phase, depth) counter pair; fields so that Interlocked can take their address.</summary>
    private sealed class Cell
    {
        public long Count;
        public long Ticks;

        public void Clear()
        {
            // Interlocked so a concurrent (misplaced) OnPhase never sees a torn 64-bit value on 32-bit platforms.
            Interlocked.Exchange(ref Count, 0);
            Interlocked.Exchange(ref Ticks, 0);
        }
    }

#if !NETCOREAPP
    // netstandard2.0: the defaults that .NET's interface supplies (see Engines/OptionalObserverMembers.cs).
    bool Engines.ILegacyOptionalObserver.ReportsNodes => false;

    void Engines.ILegacyOptionalObserver.OnNodePhase(in NodePhaseEvent phaseEvent)
    {
    }
#endif
}
