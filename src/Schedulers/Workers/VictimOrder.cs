using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Workers;

/// <summary>
/// Which slots a worker tries to steal from, nearest first: a list of levels (same L3 group, same package, the
/// rest), each a list of slot indices. Within a level the thief starts at a random position, so thieves that share
/// a level do not all hit the same victim first. Pure: computed once per slot from plain data.
/// </summary>
internal static class VictimOrder
{
    /// <summary>One level holding every other slot: for unpinned workers, where nearness is unknown.</summary>
    /// <param name="slotCount">Number of slots.</param>
    /// <returns>For each slot, its levels of victims.</returns>
    public static int[][][] Flat(int slotCount)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(slotCount, 1);
        var orders = new int[slotCount][][];
        for (int self = 0; self < slotCount; self++)
        {
            int[] others = Enumerable.Range(0, slotCount).Where(i => i != self).ToArray();
            orders[self] = others.Length == 0 ? [] : [others];
        }

        return orders;
    }

    /// <summary>
    /// Levels by hardware distance: slots whose CPU shares this slot's L3 group, then its package, then all others.
    /// Empty levels are left out.
    /// </summary>
    /// <param name="slotCpus">The CPU each slot's worker runs on, by slot index.</param>
    /// <returns>For each slot, its levels of victims.</returns>
    public static int[][][] ByTopology(IReadOnlyList<LogicalCpu> slotCpus)
    {
        ArgumentNullException.ThrowIfNull(slotCpus);
        ArgumentOutOfRangeException.ThrowIfLessThan(slotCpus.Count, 1, nameof(slotCpus));
        var orders = new int[slotCpus.Count][][];
        for (int self = 0; self < slotCpus.Count; self++)
        {
            LogicalCpu me = slotCpus[self];
            var sameCache = new List<int>();
            var samePackage = new List<int>();
            var rest = new List<int>();
            for (int other = 0; other < slotCpus.Count; other++)
            {
                if (other == self)
                {
                    continue;
                }

                LogicalCpu cpu = slotCpus[other];
                if (cpu.L3GroupId == me.L3GroupId)
                {
                    sameCache.Add(other);
                }
                else if (cpu.PackageId == me.PackageId)
                {
                    samePackage.Add(other);
                }
                else
                {
                    rest.Add(other);
                }
            }

            orders[self] = new[] { sameCache, samePackage, rest }
                .Where(level => level.Count > 0)
                .Select(level => level.ToArray())
                .ToArray();
        }

        return orders;
    }
}
