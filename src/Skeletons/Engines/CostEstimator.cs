namespace DivCon.Skeletons.Engines;

/// <summary>
/// What a run has learned about the cost of its subtrees and leaves, from its own measurements: one cell per depth
/// (summed Stopwatch ticks and summed units, a unit being one unit of the program's size, or one subtree when the
/// program reports no size), and the smallest execute cost per unit of size seen so far.
/// </summary>
/// <remarks>
/// Samples come from task nodes (their subtree's summed work, reported when they finish) and from inline subtrees
/// (one pair of timestamps around the whole subtree), never from single inline nodes, so the inline path reads the
/// clock once per subtree. The two sums of a cell are updated with separate interlocked adds and read without a
/// lock: a reader may see one sample's ticks without its units. That skews one prediction by one sample at most,
/// which only moves a cut-off a little; it never breaks the run's correctness.
/// </remarks>
internal sealed class CostEstimator
{
    /// <summary>Depths with their own cell; deeper nodes share the last one.</summary>
    public const int Depths = 64;

    /// <summary>"No estimate": the caller treats the subtree as large.</summary>
    public const long Unknown = long.MaxValue;

    private readonly long[] _ticks = new long[Depths];
    private readonly long[] _units = new long[Depths];

    /// <summary>Leaves measured before <see cref="PredictLeaf"/> predicts: the first ones include JIT compilation.</summary>
    public const int LeavesBeforePrediction = 4;

    // The smallest execute ticks per unit of size seen, as double bits; +infinity until the first leaf.
    private long _minimumLeafCostBits = BitConverter.DoubleToInt64Bits(double.PositiveInfinity);

    // Leaves measured so far (saturates at LeavesBeforePrediction; only the threshold matters).
    private int _leaves;

    // What earlier runs of the same program learned (null: nothing is carried between runs).
    private readonly LeafCostMemory? _memory;

    /// <summary>An estimator that starts empty.</summary>
    public CostEstimator()
    {
    }

    /// <summary>
    /// An estimator that predicts leaves from <paramref name="memory"/> (what an earlier run of the same program
    /// measured) until this run has measured <see cref="LeavesBeforePrediction"/> leaves of its own, and then
    /// writes its own cheapest unit back into it for the next run.
    /// </summary>
    /// <param name="memory">What earlier runs measured.</param>
    /// <param name="predictSubtreesFromMemory">
    /// Whether <see cref="PredictSubtree"/> also falls back on the remembered leaf cost (size times cost per unit) while
    /// no depth has been measured: for the short nested loops, which a node starts afresh each time and which would
    /// otherwise begin every run with all their upper nodes as tasks.
    /// </param>
    public CostEstimator(LeafCostMemory memory, bool predictSubtreesFromMemory = false)
    {
        _memory = memory;
        _predictSubtreesFromMemory = predictSubtreesFromMemory;
    }

    private readonly bool _predictSubtreesFromMemory;

    /// <summary>A sample counts for at most this many times the cell's current cost per unit.</summary>
    public const int OutlierFactor = 4;

    /// <summary>
    /// Records that a subtree at <paramref name="depth"/> of <paramref name="units"/> units cost <paramref name="ticks"/>.
    /// A sample above <see cref="OutlierFactor"/> times what the cell predicts counts as that much: wall-clock samples
    /// include preemption (a time slice is milliseconds, far longer than the subtrees measured), and a mean would
    /// otherwise follow the rare preempted sample and turn cheap subtrees back into tasks.
    /// </summary>
    public void AddSubtree(int depth, long units, long ticks)
    {
        int cell = Math.Min(depth, Depths - 1);
        units = Math.Max(units, 1);
        ticks = Math.Max(ticks, 1);
        long seenUnits = Volatile.Read(ref _units[cell]);
        if (seenUnits > 0)
        {
            double cap = (double)Volatile.Read(ref _ticks[cell]) / seenUnits * units * OutlierFactor;
            ticks = (long)Math.Min(ticks, Math.Max(cap, 1));
        }

        // Interlocked: many workers report samples of the same depth at the same time.
        Interlocked.Add(ref _ticks[cell], ticks);
        Interlocked.Add(ref _units[cell], units);
    }

    /// <summary>Records that a leaf of <paramref name="size"/> units took <paramref name="ticks"/> to execute.</summary>
    public void AddLeaf(long size, long ticks)
    {
        if (size <= 0)
        {
            return;
        }

        if (Volatile.Read(ref _leaves) < LeavesBeforePrediction)
        {
            // Interlocked: leaves finish on many workers at once.
            Interlocked.Increment(ref _leaves);
        }

        double perUnit = (double)Math.Max(ticks, 1) / size;
        long seen = Volatile.Read(ref _minimumLeafCostBits);
        // CompareExchange loop: keep the minimum under concurrent updates.
        while (perUnit < BitConverter.Int64BitsToDouble(seen))
        {
            long witnessed = Interlocked.CompareExchange(ref _minimumLeafCostBits, BitConverter.DoubleToInt64Bits(perUnit), seen);
            if (witnessed == seen)
            {
                break;
            }

            seen = witnessed;
        }

        if (_memory is { } memory && Volatile.Read(ref _leaves) >= LeavesBeforePrediction)
        {
            memory.Remember(BitConverter.Int64BitsToDouble(Volatile.Read(ref _minimumLeafCostBits)));
        }
    }

    /// <summary>
    /// Whether <see cref="PredictLeaf"/> has nothing to go on yet: fewer than <see cref="LeavesBeforePrediction"/>
    /// leaves measured and nothing remembered from an earlier run.
    /// </summary>
    public bool IsLeafCostUnknown =>
        Volatile.Read(ref _leaves) < LeavesBeforePrediction && (_memory is null || double.IsPositiveInfinity(_memory.CostPerUnit));

    /// <summary>
    /// The predicted execute ticks of a leaf of <paramref name="size"/> units (from the cheapest unit seen), or
    /// <see cref="Unknown"/> until <see cref="LeavesBeforePrediction"/> leaves have been measured; until then, from
    /// the cheapest unit an earlier run of the program measured, when there is a <see cref="LeafCostMemory"/>.
    /// </summary>
    public long PredictLeaf(long size)
    {
        double perUnit = Volatile.Read(ref _leaves) < LeavesBeforePrediction
            ? _memory?.CostPerUnit ?? double.PositiveInfinity
            : BitConverter.Int64BitsToDouble(Volatile.Read(ref _minimumLeafCostBits));
        return double.IsPositiveInfinity(perUnit) ? Unknown : Saturate(perUnit * size);
    }

    /// <summary>
    /// The predicted ticks of the subtree at <paramref name="depth"/> whose size is <paramref name="size"/> (negative
    /// when the program reports none), or <see cref="Unknown"/>. From the cell of that depth, else the nearest measured
    /// depth: with a size, the cost per unit carries over; without, the subtree cost is scaled by 2 per level (a
    /// binary tree's subtrees halve per level), an overestimate for more skewed trees, which errs towards tasks.
    /// </summary>
    public long PredictSubtree(int depth, long size)
    {
        int cell = Math.Min(depth, Depths - 1);
        for (int distance = 0; distance < Depths; distance++)
        {
            // Deeper first: during the first descent the deeper levels are measured first.
            int deeper = cell + distance;
            if (deeper < Depths && Estimate(deeper, cell - deeper, size) is long below and not Unknown)
            {
                return below;
            }

            int shallower = cell - distance;
            if (distance > 0 && shallower >= 0 && Estimate(shallower, cell - shallower, size) is long above and not Unknown)
            {
                return above;
            }

            if (deeper >= Depths && shallower < 0)
            {
                break;
            }
        }

        // Nothing measured in this run yet: a nested loop predicts from its remembered leaf cost (an underestimate of a
        // subtree, which also merges; the loops' merges are a single reduce).
        return _predictSubtreesFromMemory && size >= 0 && _memory is { } memory && !double.IsPositiveInfinity(memory.CostPerUnit)
            ? Saturate(memory.CostPerUnit * Math.Max(size, 1))
            : Unknown;
    }

    /// <summary>Predicts from one cell; <paramref name="levelsBelow"/> is how many levels the node lies below the cell (negative: above).</summary>
    private long Estimate(int cell, int levelsBelow, long size)
    {
        long units = Volatile.Read(ref _units[cell]);
        if (units == 0)
        {
            return Unknown;
        }

        double perUnit = (double)Volatile.Read(ref _ticks[cell]) / units;
        if (size >= 0)
        {
            return Saturate(perUnit * Math.Max(size, 1));
        }

        return Saturate(Math.ScaleB(perUnit, -Math.Clamp(levelsBelow, -60, 60)));
    }

    private static long Saturate(double ticks) => ticks >= Unknown - 1 ? Unknown - 1 : (long)ticks;
}

/// <summary>
/// The cheapest execute cost per unit of size that the last run of a program measured (after its first
/// <see cref="CostEstimator.LeavesBeforePrediction"/> leaves), kept by the program instance so that its next run
/// predicts its leaves from the start instead of running its first leaves at the coarse leaf-count size.
/// </summary>
/// <remarks>
/// One double, written and read whole (as 64-bit bits, atomic on every target) without a lock: concurrent runs of one
/// instance may overwrite each other's value, and either is a measurement of the same program. Each run writes its
/// own minimum, not the minimum over all runs, so one unusually fast run does not lower every later prediction.
/// </remarks>
internal sealed class LeafCostMemory
{
    private long _costPerUnitBits = BitConverter.DoubleToInt64Bits(double.PositiveInfinity);

    /// <summary>Stopwatch ticks per unit of size; +infinity until a run has measured enough leaves.</summary>
    public double CostPerUnit => BitConverter.Int64BitsToDouble(Volatile.Read(ref _costPerUnitBits));

    /// <summary>Records a run's cheapest unit.</summary>
    public void Remember(double costPerUnit)
    {
        long bits = BitConverter.DoubleToInt64Bits(costPerUnit);
        // Every measured leaf of a run offers its minimum, which rarely changes: store only a new value, so that the
        // workers finishing leaves read a shared cache line instead of all writing it.
        if (costPerUnit > 0 && !double.IsInfinity(costPerUnit) && !double.IsNaN(costPerUnit)
            && Volatile.Read(ref _costPerUnitBits) != bits)
        {
            Volatile.Write(ref _costPerUnitBits, bits);
        }
    }
}
