using System.Diagnostics;
using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram.Policies;

/// <summary>
/// Dynamic repartitioning by task availability (the thesis's Figure 5.20): scalability-proportional base
/// allocations, cut down to what each program can use now, with the freed cores handed to the programs that are
/// furthest below their proportional share.
/// </summary>
/// <remarks>
/// <para>
/// Why: a divide-and-conquer program's parallelism is bounded by its recursion depth. During its first splits
/// and last merges it has only a handful of tasks, so cores allotted by scalability alone would sit idle.
/// </para>
/// <para>Algorithm, for n cores and m programs:</para>
/// <list type="number">
/// <item>Base = <see cref="ProportionalPolicy"/>'s allocation; share_i = the exact proportional share.</item>
/// <item>
/// Limit_i = available tasks, but at least 1 when n >= m (a program between tasks keeps one core, so that tasks it
/// spawns next are not stranded until the next decision) and at most n.
/// </item>
/// <item>Fast path, O(m): if every limit is at least the base, return the base unchanged.</item>
/// <item>Cap: allocation_i = min(base_i, limit_i); the cores cut off are the ones to hand out.</item>
/// <item>
/// Pass 1: give each core to the eligible program (allocation below its limit) with the lowest score =
/// allocation / share, ties to the higher speedup, then the earlier program. A binary heap keeps this at
/// O(log m) a core.
/// </item>
/// <item>Pass 2, when cores remain but no program is eligible: the same without the limit.</item>
/// </list>
/// <para>
/// Example (Figure 5.20): 32 cores, speedups 15.18, 10.43, 9.71 -> base 14, 9, 9; available tasks 18, 1, 12 ->
/// capped 14, 1, 9; pass 1 hands 7 cores to programs 0, 2, 0, 2, 0, 0, 2 (-> 18, 1, 12), and pass 2 gives the
/// last one to program 1 -> 18, 2, 12. <see cref="Explain"/> returns this table row by row.
/// </para>
/// <para>
/// Invariants: the sum is n; after pass 1 no program holds more than its limit; every core in pass 1 goes to the
/// lowest score among the eligible programs.
/// </para>
/// </remarks>
public sealed class TaskAvailabilityPolicy : IAllocationPolicy
{
    /// <inheritdoc />
    public string Name => "task-availability";

    /// <inheritdoc />
    public AllocationDecision Allocate(AllocationSnapshot snapshot)
    {
        ArgumentNullException.ThrowIfNull(snapshot);
        return Run(snapshot, steps: null, out _, out _, out _);
    }

    /// <summary>Runs the policy and records every step, for tests and diagnostics (slower than <see cref="Allocate"/>).</summary>
    /// <param name="snapshot">The workload.</param>
    /// <returns>The dry run and the decision.</returns>
    internal TaskAvailabilityTrace Explain(AllocationSnapshot snapshot)
    {
        ArgumentNullException.ThrowIfNull(snapshot);
        var steps = new List<RepartitionStep>();
        var decision = Run(snapshot, steps, out var shares, out var baseCores, out var capped);
        return new TaskAvailabilityTrace(shares, baseCores, capped, steps, decision);
    }

    /// <inheritdoc />
    /// <remarks>
    /// Valid when programs and scalability are unchanged and either every limit is unchanged, or the previous
    /// decision took the fast path and every program still has at least its base in available tasks.
    /// </remarks>
    public bool IsStillValid(AllocationSnapshot current, AllocationDecision previous)
    {
        ArgumentNullException.ThrowIfNull(current);
        ArgumentNullException.ThrowIfNull(previous);
        var before = previous.Snapshot;
        if (!ProportionalShares.SameProgramsAndScalability(current, before))
        {
            return false;
        }

        bool sameLimits = true;
        bool fastPathHolds = previous.UsedFastPath;
        for (int i = 0; i < current.Programs.Count; i++)
        {
            int limit = Limit(current, i);
            sameLimits &= limit == Limit(before, i);
            fastPathHolds &= limit >= previous.Cores[i];
        }

        return sameLimits || fastPathHolds;
    }

    private static int Limit(AllocationSnapshot snapshot, int index)
    {
        int floor = snapshot.CoreCount >= snapshot.Programs.Count ? 1 : 0;
        return Math.Min(snapshot.CoreCount, Math.Max(snapshot.Programs[index].AvailableTasks, floor));
    }

    private AllocationDecision Run(
        AllocationSnapshot snapshot,
        List<RepartitionStep>? steps,
        out double[] shares,
        out int[] baseCores,
        out int[] capped)
    {
        var programs = snapshot.Programs;
        int m = programs.Count;
        shares = ProportionalShares.Shares(snapshot);
        baseCores = m == 0 ? [] : ProportionalShares.Base(snapshot, shares);
        capped = baseCores;
        if (m == 0)
        {
            return new AllocationDecision(Name, snapshot, [], usedFastPath: true, "no programs");
        }

        var limits = new int[m];
        bool fast = true;
        for (int i = 0; i < m; i++)
        {
            limits[i] = Limit(snapshot, i);
            fast &= limits[i] >= baseCores[i];
        }

        if (fast)
        {
            return new AllocationDecision(Name, snapshot, baseCores, usedFastPath: true,
                "fast path: every program has at least its base allocation in available tasks");
        }

        var cores = new int[m];
        int remaining = snapshot.CoreCount;
        for (int i = 0; i < m; i++)
        {
            cores[i] = Math.Min(baseCores[i], limits[i]);
            remaining -= cores[i];
        }

        var cappedCores = (int[])cores.Clone();
        capped = cappedCores;
        var heap = new PriorityQueue<int, HeapKey>(m, HeapKeyComparer.Instance);
        for (int i = 0; i < m; i++)
        {
            if (cores[i] < limits[i])
            {
                heap.Enqueue(i, Key(i, cores, shares, programs));
            }
        }

        int pass1Given = 0;
        while (remaining > 0 && heap.TryDequeue(out int chosen, out _))
        {
            steps?.Add(Step(1, remaining, cores, shares, chosen));
            cores[chosen]++;
            remaining--;
            pass1Given++;
            if (cores[chosen] < limits[chosen])
            {
                heap.Enqueue(chosen, Key(chosen, cores, shares, programs));
            }
        }

        Debug.Assert(Enumerable.Range(0, m).All(i => cores[i] <= Math.Max(limits[i], cappedCores[i])), "pass 1 respects the caps");
        int pass2Given = remaining;
        if (remaining > 0)
        {
            steps?.Add(Step(1, remaining, cores, shares, chosen: null));
            heap.Clear();
            for (int i = 0; i < m; i++)
            {
                heap.Enqueue(i, Key(i, cores, shares, programs));
            }

            while (remaining > 0)
            {
                int chosen = heap.Dequeue();
                steps?.Add(Step(2, remaining, cores, shares, chosen));
                cores[chosen]++;
                remaining--;
                heap.Enqueue(chosen, Key(chosen, cores, shares, programs));
            }
        }

        Debug.Assert(cores.Sum() == snapshot.CoreCount, "every core is handed out");
        string explanation = pass2Given > 0
            ? $"capped at available tasks; {pass1Given} cores by score within the caps, {pass2Given} beyond them"
            : $"capped at available tasks; {pass1Given} cores by score within the caps";
        return new AllocationDecision(Name, snapshot, cores, usedFastPath: false, explanation);
    }

    private static HeapKey Key(int i, int[] cores, double[] shares, IReadOnlyList<ProgramState> programs) =>
        new(cores[i] / shares[i], programs[i].Speedup, i);

    private static RepartitionStep Step(int pass, int remaining, int[] cores, double[] shares, int? chosen)
    {
        var scores = new double[cores.Length];
        for (int i = 0; i < cores.Length; i++)
        {
            scores[i] = cores[i] / shares[i];
        }

        return new RepartitionStep(pass, remaining, (int[])cores.Clone(), scores, chosen);
    }

    /// <summary>Heap order: lowest score first, then the higher speedup, then the earlier program.</summary>
    private readonly record struct HeapKey(double Score, double Speedup, int Index);

    private sealed class HeapKeyComparer : IComparer<HeapKey>
    {
        public static readonly HeapKeyComparer Instance = new();

        public int Compare(HeapKey x, HeapKey y)
        {
            int c = x.Score.CompareTo(y.Score);
            if (c != 0)
            {
                return c;
            }

            c = y.Speedup.CompareTo(x.Speedup);
            return c != 0 ? c : x.Index.CompareTo(y.Index);
        }
    }
}
