using System.Diagnostics;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Multiprogram.Placement;

/// <summary>
/// Turns core counts into CPU sets: which CPUs each program's workers run on, keeping programs contiguous and
/// cache-aligned where it can, and moving few workers between decisions. Pure: no threads, no state between calls.
/// </summary>
/// <remarks>
/// <para>
/// CPUs are laid on a line in topology order (package, then L3 group, then core, then id), so that neighbours on
/// the line share a cache or a package. "Contiguous" means one run on this line.
/// </para>
/// <para>Three candidate layouts are built and scored; the cheapest wins:</para>
/// <list type="bullet">
/// <item>
/// <b>fewest-moves</b> (greedy): a program that keeps its count keeps its CPUs; a program that shrinks gives up CPUs
/// at the ends of its runs (smallest run first, then an end next to a free CPU or a growing program); a program
/// that grows takes free CPUs next to its own, else the start of the best-fitting free run. It moves exactly
/// sum over programs of max(0, new count - CPUs kept), the fewest possible.
/// </item>
/// <item>
/// <b>packed</b>: programs keep their order along the line (by their first CPU; newcomers last) and are packed
/// into consecutive runs. Always contiguous; equally cheap when the programs that change are neighbours.
/// </item>
/// <item>
/// <b>aligned</b>: programs whose count is a whole number of packages first, then whole L3 groups, then the rest by
/// size, packed. On a regular machine (4 packages of 16) every 16-CPU program then gets exactly one package.
/// </item>
/// </list>
/// <para>
/// When the caller says which CPUs are inside tasks, each candidate is also tried with its <i>handovers</i> (moved
/// CPUs inside a task of another program than their new owner, whose task the new owner's first work would share the
/// core with) swapped for idle CPUs their donors keep.
/// </para>
/// <para>
/// Cost = moved CPUs + <see cref="ContiguityWorth"/> x fragments (extra runs) + <see cref="HandoverWorth"/> x
/// handovers; ties go to the layout that crosses
/// fewer package and L3 boundaries beyond the minimum its size needs, then to the order above.
/// </para>
/// <para>
/// Honesty: this is a heuristic. Exact minimisation over program orders is factorial in the number of programs;
/// these three candidates cover the cases that matter in practice (neighbours trading cores, arrivals and
/// departures, first placement) at O(n x moved CPUs) cost.
/// </para>
/// </remarks>
internal sealed class CpuPlacement
{
    private const int Free = -1;

    private readonly int[] _cpuAt;
    private readonly Dictionary<int, int> _positionOf;
    private readonly int[] _packageAt;
    private readonly int[] _l3At;
    private readonly int _packageSize;
    private readonly int _l3Size;
    private readonly bool _uniformPackages;
    private readonly bool _uniformL3;

    /// <summary>Creates a placement planner for one machine.</summary>
    /// <param name="topology">The CPUs to place programs on.</param>
    /// <param name="contiguityWorth">
    /// How many extra moved CPUs one fragment avoided is worth (at least 0; default 2). 0 always picks the fewest
    /// moves; a large value always picks a contiguous layout.
    /// </param>
    /// <param name="handoverWorth">
    /// How many extra moved CPUs one avoided handover is worth when <see cref="Place"/> is told which CPUs are inside
    /// tasks (at least 0; default 5, more than the two fragments a swap usually costs at the default contiguity
    /// worth). 0 ignores running tasks.
    /// </param>
    public CpuPlacement(CpuTopology topology, int contiguityWorth = 2, int handoverWorth = 5)
    {
        ArgumentNullException.ThrowIfNull(topology);
        ArgumentOutOfRangeException.ThrowIfNegative(contiguityWorth);
        ArgumentOutOfRangeException.ThrowIfNegative(handoverWorth);
        Topology = topology;
        ContiguityWorth = contiguityWorth;
        HandoverWorth = handoverWorth;
        var ordered = topology.Cpus
            .OrderBy(c => c.PackageId).ThenBy(c => c.L3GroupId).ThenBy(c => c.CoreId).ThenBy(c => c.Id)
            .ToArray();
        _cpuAt = [.. ordered.Select(c => c.Id)];
        _packageAt = [.. ordered.Select(c => c.PackageId)];
        _l3At = [.. ordered.Select(c => c.L3GroupId)];
        _positionOf = [];
        for (int pos = 0; pos < _cpuAt.Length; pos++)
        {
            _positionOf[_cpuAt[pos]] = pos;
        }

        var packageSizes = ordered.GroupBy(c => c.PackageId).Select(g => g.Count()).ToArray();
        var l3Sizes = ordered.GroupBy(c => c.L3GroupId).Select(g => g.Count()).ToArray();
        _packageSize = packageSizes.Max();
        _l3Size = l3Sizes.Max();
        _uniformPackages = packageSizes.All(s => s == _packageSize);
        _uniformL3 = l3Sizes.All(s => s == _l3Size);
        CpuOrder = Array.AsReadOnly(_cpuAt);
    }

    /// <summary>The machine.</summary>
    public CpuTopology Topology { get; }

    /// <summary>Extra moved CPUs one avoided fragment is worth.</summary>
    public int ContiguityWorth { get; }

    /// <summary>Extra moved CPUs one avoided handover is worth.</summary>
    public int HandoverWorth { get; }

    /// <summary>CPU ids in topology order (the line that contiguity refers to).</summary>
    public IReadOnlyList<int> CpuOrder { get; }

    /// <summary>Computes the new CPU sets.</summary>
    /// <param name="previous">The current placement (<see cref="CpuAssignment.Empty"/> the first time).</param>
    /// <param name="counts">
    /// The new count of every program; ids unique, counts at least 0, summing to the number of CPUs when any
    /// program is listed. Programs of <paramref name="previous"/> that are not listed have departed.
    /// </param>
    /// <param name="running">
    /// Optional: for each CPU whose worker is inside a task now, the program that task belongs to (CPUs not listed are
    /// idle). A CPU moved while it runs a task of a program other than its new owner is handed over with that task
    /// unfinished (the standby shares the core until it ends, or the move waits for it): each candidate layout is also
    /// tried with such moves swapped for idle CPUs their donors keep (see <see cref="AvoidHandovers"/>), and handovers
    /// count <see cref="HandoverWorth"/> each in the score.
    /// </param>
    public PlacementResult Place(CpuAssignment previous, IReadOnlyList<ProgramAllocation> counts, IReadOnlyDictionary<int, ProgramId>? running = null)
    {
        ArgumentNullException.ThrowIfNull(previous);
        ArgumentNullException.ThrowIfNull(counts);
        int n = _cpuAt.Length;
        int m = counts.Count;
        var want = new int[m];
        var index = new Dictionary<ProgramId, int>(m);
        long sum = 0;
        for (int i = 0; i < m; i++)
        {
            if (counts[i].Cores < 0)
            {
                throw new ArgumentException($"Count {counts[i].Cores} for {counts[i].Id} is negative.", nameof(counts));
            }

            if (!index.TryAdd(counts[i].Id, i))
            {
                throw new ArgumentException($"Program {counts[i].Id} appears more than once.", nameof(counts));
            }

            want[i] = counts[i].Cores;
            sum += want[i];
        }

        if (m > 0 && sum != n)
        {
            throw new ArgumentException($"Counts sum to {sum}, not to the {n} CPUs.", nameof(counts));
        }

        // What each position held before: the program (as an index into counts, Free when unassigned or departed).
        var before = new int[n];
        var beforeId = new ProgramId?[n];
        Array.Fill(before, Free);
        foreach (var program in previous.Programs)
        {
            int i = index.GetValueOrDefault(program, Free);
            foreach (int cpu in previous.CpusOf(program))
            {
                if (!_positionOf.TryGetValue(cpu, out int pos))
                {
                    throw new ArgumentException($"CPU {cpu} of {program} is not in the topology.", nameof(previous));
                }

                before[pos] = i;
                beforeId[pos] = program;
            }
        }

        var candidates = new (PlacementStrategy Name, int[] Owner)[]
        {
            (PlacementStrategy.FewestMoves, FewestMoves(before, want)),
            (PlacementStrategy.Packed, Pack(PreviousOrder(before, m))),
            (PlacementStrategy.Aligned, Pack(AlignedOrder(want))),
        };

        // Handovers are weighed only when some CPU is inside a task and they are worth something; else they cost 0.
        IReadOnlyDictionary<int, ProgramId>? weighed = running is { Count: > 0 } && HandoverWorth > 0 ? running : null;
        if (weighed is not null)
        {
            // Each candidate again with its handovers swapped away where the donor keeps an idle CPU.
            candidates = [.. candidates, .. candidates.Where(c => c.Owner.Length > 0).Select(c => (c.Name, AvoidHandovers((int[])c.Owner.Clone(), before, counts, weighed)))];
        }

        int best = -1;
        (long Cost, int Misalignment) bestScore = default;
        int bestFragments = 0;
        for (int c = 0; c < candidates.Length; c++)
        {
            var owner = candidates[c].Owner;
            if (owner.Length == 0)
            {
                continue;
            }

            int fragments = Fragments(owner, m);
            long cost = Moves(owner, beforeId, counts) + ((long)ContiguityWorth * fragments)
                + (weighed is null ? 0 : (long)HandoverWorth * Handovers(owner, before, counts, weighed));
            var score = (cost, Misalignment(owner, want));
            if (best < 0 || score.CompareTo(bestScore) < 0)
            {
                (best, bestScore, bestFragments) = (c, score, fragments);
            }
        }

        return Build(candidates[best].Owner, beforeId, counts, candidates[best].Name, bestFragments);

        int[] Pack(int[] order)
        {
            var owner = new int[n];
            Array.Fill(owner, Free);
            int pos = 0;
            foreach (int i in order)
            {
                for (int k = 0; k < want[i]; k++)
                {
                    owner[pos++] = i;
                }
            }

            Debug.Assert(m == 0 || pos == n, "packed layout covers the machine");
            return owner;
        }
    }

    private PlacementResult Build(int[] owner, ProgramId?[] beforeId, IReadOnlyList<ProgramAllocation> counts, PlacementStrategy strategy, int fragments)
    {
        var sets = new List<int>[counts.Count];
        for (int i = 0; i < sets.Length; i++)
        {
            sets[i] = new List<int>(counts[i].Cores);
        }

        var moves = new List<CpuMove>();
        for (int pos = 0; pos < owner.Length; pos++)
        {
            ProgramId? now = owner[pos] == Free ? null : counts[owner[pos]].Id;
            if (owner[pos] != Free)
            {
                sets[owner[pos]].Add(_cpuAt[pos]);
            }

            if (now != beforeId[pos])
            {
                moves.Add(new CpuMove(_cpuAt[pos], beforeId[pos], now));
            }
        }

        var assignment = new CpuAssignment(
            counts.Select((c, i) => new KeyValuePair<ProgramId, IEnumerable<int>>(c.Id, sets[i])));
        if (strategy == PlacementStrategy.FewestMoves && moves.Count == 0)
        {
            strategy = PlacementStrategy.Keep;
        }

        return new PlacementResult(assignment, moves, strategy, fragments);
    }

    /// <summary>
    /// <paramref name="owner"/> with each handover (a moved CPU inside a task of a program other than its new owner)
    /// swapped, where it can be, for the nearest CPU the same donor keeps that the receiver can use at once (idle, or
    /// inside one of the receiver's tasks): the donor keeps the CPU whose task is running, the receiver gets one it can
    /// serve now. Counts and the number of moved CPUs are unchanged; fragments may grow (the scoring weighs them).
    /// </summary>
    private int[] AvoidHandovers(int[] owner, int[] before, IReadOnlyList<ProgramAllocation> counts, IReadOnlyDictionary<int, ProgramId> running)
    {
        int n = owner.Length;
        for (int pos = 0; pos < n; pos++)
        {
            int donor = before[pos], receiver = owner[pos];
            if (!IsHandover(pos, donor, receiver, counts, running))
            {
                continue;
            }

            for (int d = 1; d < n; d++)
            {
                int q = pos - d >= 0 && Keeps(pos - d) ? pos - d : pos + d < n && Keeps(pos + d) ? pos + d : -1;
                if (q >= 0)
                {
                    owner[pos] = donor;
                    owner[q] = receiver;
                    break;
                }
            }

            bool Keeps(int q) => before[q] == donor && owner[q] == donor && !IsHandover(q, donor, receiver, counts, running);
        }

        return owner;
    }

    /// <summary>Moved CPUs that would be handed over inside another program's task (see <see cref="AvoidHandovers"/>).</summary>
    private int Handovers(int[] owner, int[] before, IReadOnlyList<ProgramAllocation> counts, IReadOnlyDictionary<int, ProgramId> running)
    {
        int handovers = 0;
        for (int pos = 0; pos < owner.Length; pos++)
        {
            if (IsHandover(pos, before[pos], owner[pos], counts, running))
            {
                handovers++;
            }
        }

        return handovers;
    }

    /// <summary>
    /// Whether giving the CPU at <paramref name="pos"/> from <paramref name="from"/> to <paramref name="to"/> (indices
    /// into the counts, or <see cref="Free"/>) is a handover: a move of a CPU inside a task of any program but the new
    /// owner. A CPU nobody held before (or whose program departed) counts as a move of no handover: its old program
    /// is not in the counts to keep it.
    /// </summary>
    private bool IsHandover(int pos, int from, int to, IReadOnlyList<ProgramAllocation> counts, IReadOnlyDictionary<int, ProgramId> running) =>
        from != Free && to != from && running.TryGetValue(_cpuAt[pos], out var inside) && (to == Free || inside != counts[to].Id);

    /// <summary>The greedy minimal-move layout (see the remarks on the type).</summary>
    private static int[] FewestMoves(int[] before, int[] want)
    {
        int n = before.Length;
        int m = want.Length;
        var owner = (int[])before.Clone();
        var have = new int[m];
        foreach (int i in owner)
        {
            if (i != Free)
            {
                have[i]++;
            }
        }

        bool Grows(int i) => i != Free && have[i] < want[i];

        // Shrink: give up run ends, one CPU at a time.
        for (int i = 0; i < m; i++)
        {
            while (have[i] > want[i])
            {
                int bestPos = -1;
                (int RunLength, int Unhelpful, int NegPos) bestKey = default;
                for (int start = 0; start < n; start++)
                {
                    if (owner[start] != i || (start > 0 && owner[start - 1] == i))
                    {
                        continue;
                    }

                    int end = start;
                    while (end + 1 < n && owner[end + 1] == i)
                    {
                        end++;
                    }

                    int length = end - start + 1;
                    foreach (int pos in start == end ? [start] : (int[])[start, end])
                    {
                        int outside = pos == start ? pos - 1 : pos + 1;
                        bool helpful = outside >= 0 && outside < n && (owner[outside] == Free || Grows(owner[outside]));
                        var key = (length, helpful ? 0 : 1, -pos);
                        if (bestPos < 0 || key.CompareTo(bestKey) < 0)
                        {
                            (bestPos, bestKey) = (pos, key);
                        }
                    }
                }

                owner[bestPos] = Free;
                have[i]--;
            }
        }

        // Grow: the largest need first, each taking free CPUs next to its own, else the best-fitting free run.
        var growers = Enumerable.Range(0, m).Where(i => have[i] < want[i])
            .OrderByDescending(i => want[i] - have[i]).ThenBy(i => i).ToArray();
        foreach (int i in growers)
        {
            while (have[i] < want[i])
            {
                int pos = AdjacentFree(owner, i);
                if (pos < 0)
                {
                    pos = BestFreeRunStart(owner, want[i] - have[i]);
                }

                Debug.Assert(pos >= 0 && owner[pos] == Free, "a grower always finds a free CPU");
                owner[pos] = i;
                have[i]++;
            }
        }

        return owner;
    }

    private static int AdjacentFree(int[] owner, int program)
    {
        for (int pos = 0; pos < owner.Length; pos++)
        {
            if (owner[pos] == Free
                && ((pos > 0 && owner[pos - 1] == program) || (pos + 1 < owner.Length && owner[pos + 1] == program)))
            {
                return pos;
            }
        }

        return -1;
    }

    /// <summary>Start of the smallest free run holding <paramref name="need"/> CPUs, else of the longest free run.</summary>
    private static int BestFreeRunStart(int[] owner, int need)
    {
        int fitStart = -1, fitLength = int.MaxValue, longStart = -1, longLength = 0;
        for (int start = 0; start < owner.Length; start++)
        {
            if (owner[start] != Free || (start > 0 && owner[start - 1] == Free))
            {
                continue;
            }

            int length = 1;
            while (start + length < owner.Length && owner[start + length] == Free)
            {
                length++;
            }

            if (length >= need && length < fitLength)
            {
                (fitStart, fitLength) = (start, length);
            }

            if (length > longLength)
            {
                (longStart, longLength) = (start, length);
            }
        }

        return fitStart >= 0 ? fitStart : longStart;
    }

    /// <summary>Programs in the order of their first CPU in the previous placement; newcomers after, in input order.</summary>
    private static int[] PreviousOrder(int[] before, int m)
    {
        var first = new int[m];
        Array.Fill(first, int.MaxValue);
        for (int pos = before.Length - 1; pos >= 0; pos--)
        {
            if (before[pos] != Free)
            {
                first[before[pos]] = pos;
            }
        }

        return [.. Enumerable.Range(0, m).OrderBy(i => first[i]).ThenBy(i => i)];
    }

    private int[] AlignedOrder(int[] want) =>
        [.. Enumerable.Range(0, want.Length)
            .OrderBy(i => _uniformPackages && want[i] > 0 && want[i] % _packageSize == 0 ? 0 : 1)
            .ThenBy(i => _uniformL3 && want[i] > 0 && want[i] % _l3Size == 0 ? 0 : 1)
            .ThenByDescending(i => want[i])
            .ThenBy(i => i)];

    private static int Moves(int[] owner, ProgramId?[] beforeId, IReadOnlyList<ProgramAllocation> counts)
    {
        int moves = 0;
        for (int pos = 0; pos < owner.Length; pos++)
        {
            ProgramId? now = owner[pos] == Free ? null : counts[owner[pos]].Id;
            if (now != beforeId[pos])
            {
                moves++;
            }
        }

        return moves;
    }

    /// <summary>Runs beyond one per program with CPUs.</summary>
    private static int Fragments(int[] owner, int m)
    {
        var runs = new int[m];
        for (int pos = 0; pos < owner.Length; pos++)
        {
            if (owner[pos] != Free && (pos == 0 || owner[pos - 1] != owner[pos]))
            {
                runs[owner[pos]]++;
            }
        }

        return runs.Sum(r => Math.Max(0, r - 1));
    }

    /// <summary>Packages and L3 groups spanned beyond the minimum each program's count needs.</summary>
    /// <remarks>
    /// Positions are sorted by package then L3 group, and an L3 group lies inside one package, so each program
    /// meets every package and group it touches in one stretch: counting changes counts distinct units.
    /// </remarks>
    private int Misalignment(int[] owner, int[] want)
    {
        int m = want.Length;
        Span<int> lastPackage = m <= 64 ? stackalloc int[m] : new int[m];
        Span<int> lastL3 = m <= 64 ? stackalloc int[m] : new int[m];
        lastPackage.Fill(int.MinValue);
        lastL3.Fill(int.MinValue);
        int excess = 0;
        for (int i = 0; i < m; i++)
        {
            excess -= CeilDiv(want[i], _packageSize) + CeilDiv(want[i], _l3Size);
        }

        for (int pos = 0; pos < owner.Length; pos++)
        {
            int i = owner[pos];
            if (i == Free)
            {
                continue;
            }

            if (lastPackage[i] != _packageAt[pos])
            {
                lastPackage[i] = _packageAt[pos];
                excess++;
            }

            if (lastL3[i] != _l3At[pos])
            {
                lastL3[i] = _l3At[pos];
                excess++;
            }
        }

        return excess;
    }

    private static int CeilDiv(int a, int b) => (a + b - 1) / b;
}

/// <summary>What <see cref="CpuPlacement.Place"/> decided.</summary>
/// <param name="Assignment">The new CPUs of every program.</param>
/// <param name="Moves">Every CPU whose program changed, in topology order.</param>
/// <param name="Winner">Which candidate layout won.</param>
/// <param name="Fragments">Extra runs beyond one per program, in topology order (0 = every program contiguous).</param>
internal sealed record PlacementResult(CpuAssignment Assignment, IReadOnlyList<CpuMove> Moves, PlacementStrategy Winner, int Fragments)
{
    /// <summary>The winner's name as the rebalancer's explanations print it ("keep", "packed", "aligned" or "fewest-moves").</summary>
    public string Strategy => Winner.ToName();
}

/// <summary>The candidate layouts of <see cref="CpuPlacement"/> (see its remarks), in tie-break order.</summary>
internal enum PlacementStrategy
{
    /// <summary>The greedy minimal-move layout.</summary>
    FewestMoves,

    /// <summary>Programs packed in their previous order along the line.</summary>
    Packed,

    /// <summary>Whole packages first, then whole L3 groups, then the rest, packed.</summary>
    Aligned,

    /// <summary>The fewest-moves layout when it moves nothing: the previous placement stands.</summary>
    Keep,
}

/// <summary>The names the rebalancer's explanations (traces, logs) print for a <see cref="PlacementStrategy"/>.</summary>
internal static class PlacementStrategyNames
{
    /// <summary>The name as printed: "fewest-moves", "packed", "aligned" or "keep".</summary>
    public static string ToName(this PlacementStrategy strategy) => strategy switch
    {
        PlacementStrategy.FewestMoves => "fewest-moves",
        PlacementStrategy.Packed => "packed",
        PlacementStrategy.Aligned => "aligned",
        PlacementStrategy.Keep => "keep",
        _ => throw new ArgumentOutOfRangeException(nameof(strategy), strategy, "Unknown placement strategy."),
    };
}
