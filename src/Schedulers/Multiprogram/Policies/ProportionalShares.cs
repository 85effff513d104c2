using System.Diagnostics;
using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram.Policies;

/// <summary>Arithmetic shared by the scalability-proportional policies.</summary>
internal static class ProportionalShares
{
    /// <summary>Each program's exact share: cores x speedup / sum of speedups.</summary>
    public static double[] Shares(AllocationSnapshot snapshot)
    {
        var programs = snapshot.Programs;
        double total = 0;
        foreach (var p in programs)
        {
            total += p.Speedup;
        }

        var shares = new double[programs.Count];
        for (int i = 0; i < shares.Length; i++)
        {
            shares[i] = snapshot.CoreCount * programs[i].Speedup / total;
        }

        return shares;
    }

    /// <summary>
    /// Largest-remainder rounding of <paramref name="shares"/> to integers summing to the core count, then the
    /// at-least-one-core guarantee when there are enough cores. Ties on the remainder go to the higher speedup,
    /// then to the earlier program.
    /// </summary>
    public static int[] Base(AllocationSnapshot snapshot, double[] shares)
    {
        var programs = snapshot.Programs;
        int m = programs.Count;
        var cores = new int[m];
        if (m == 0)
        {
            return cores;
        }

        int given = 0;
        for (int i = 0; i < m; i++)
        {
            cores[i] = (int)Math.Floor(shares[i]);
            given += cores[i];
        }

        int left = snapshot.CoreCount - given;
        if (left != 0)
        {
            var order = new int[m];
            for (int i = 0; i < m; i++)
            {
                order[i] = i;
            }

            Array.Sort(order, (a, b) =>
            {
                int byRemainder = (shares[b] - cores[b]).CompareTo(shares[a] - cores[a]);
                if (byRemainder != 0)
                {
                    return byRemainder;
                }

                int bySpeedup = programs[b].Speedup.CompareTo(programs[a].Speedup);
                return bySpeedup != 0 ? bySpeedup : a.CompareTo(b);
            });

            // Rounding error in the shares can leave the floors off by one in either direction; walk the order
            // as often as needed (normally exactly once, giving 0 <= left < m cores).
            for (int k = 0; left > 0; k++, left--)
            {
                cores[order[k % m]]++;
            }

            for (int k = m - 1; left < 0; k--)
            {
                int i = order[((k % m) + m) % m];
                if (cores[i] > 0)
                {
                    cores[i]--;
                    left++;
                }
            }
        }

        if (snapshot.CoreCount >= m)
        {
            GiveEveryProgramOne(cores, shares, programs);
        }

        Debug.Assert(cores.Sum() == snapshot.CoreCount, "base allocation must cover the machine");
        return cores;
    }

    /// <summary>
    /// A program whose share rounds to zero takes one core from the most over-served program (highest
    /// cores / share among those with more than one core; ties to the lower speedup, then the later program).
    /// Leaves allocations where everyone already has a core untouched, so the thesis's examples are unchanged.
    /// </summary>
    private static void GiveEveryProgramOne(int[] cores, double[] shares, IReadOnlyList<ProgramState> programs)
    {
        for (int i = 0; i < cores.Length; i++)
        {
            if (cores[i] > 0)
            {
                continue;
            }

            int donor = -1;
            for (int j = 0; j < cores.Length; j++)
            {
                if (cores[j] <= 1)
                {
                    continue;
                }

                if (donor < 0)
                {
                    donor = j;
                    continue;
                }

                int cmp = (cores[j] / shares[j]).CompareTo(cores[donor] / shares[donor]);
                if (cmp == 0)
                {
                    cmp = programs[donor].Speedup.CompareTo(programs[j].Speedup);
                }

                if (cmp >= 0)
                {
                    donor = j;
                }
            }

            Debug.Assert(donor >= 0, "with cores >= programs some program holds two cores while one holds none");
            cores[donor]--;
            cores[i]++;
        }
    }

    /// <summary>Whether two snapshots have the same cores, programs (in order) and scalability data.</summary>
    public static bool SameProgramsAndScalability(AllocationSnapshot a, AllocationSnapshot b)
    {
        if (a.CoreCount != b.CoreCount || a.Programs.Count != b.Programs.Count)
        {
            return false;
        }

        for (int i = 0; i < a.Programs.Count; i++)
        {
            var pa = a.Programs[i];
            var pb = b.Programs[i];
            if (pa.Id != pb.Id || pa.Speedup != pb.Speedup || !Equals(pa.Table, pb.Table))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Whether two snapshots list the same program ids in the same order, on the same core count.</summary>
    public static bool SamePrograms(AllocationSnapshot a, AllocationSnapshot b)
    {
        if (a.CoreCount != b.CoreCount || a.Programs.Count != b.Programs.Count)
        {
            return false;
        }

        for (int i = 0; i < a.Programs.Count; i++)
        {
            if (a.Programs[i].Id != b.Programs[i].Id)
            {
                return false;
            }
        }

        return true;
    }
}
