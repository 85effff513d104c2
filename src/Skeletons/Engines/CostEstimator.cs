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

    // The smallest execute ticks per unit of size seen, as double bits; +infinity until the first leaf.
    private long _minimumLeafCostBits = BitConverter.DoubleToInt64Bits(double.PositiveInfinity);

    /// <summary>Records that a subtree at <paramref name="depth"/> of <paramref name="units"/> units cost <paramref name="ticks"/>.</summary>
    public void AddSubtree(int depth, long units, long ticks)
    {
        int cell = Math.Min(depth, Depths - 1);
        // Interlocked: many workers report samples of the same depth at the same time.
        Interlocked.Add(ref _ticks[cell], Math.Max(ticks, 1));
        Interlocked.Add(ref _units[cell], Math.Max(units, 1));
    }

    /// <summary>Records that a leaf of <paramref name="size"/> units took <paramref name="ticks"/> to execute.</summary>
    public void AddLeaf(long size, long ticks)
    {
        if (size <= 0)
        {
            return;
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
    }

    /// <summary>
    /// The predicted execute ticks of a leaf of <paramref name="size"/> units (from the cheapest unit seen), or
    /// <see cref="Unknown"/> before the first leaf.
    /// </summary>
    public long PredictLeaf(long size)
    {
        double perUnit = BitConverter.Int64BitsToDouble(Volatile.Read(ref _minimumLeafCostBits));
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

        return Unknown;
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
