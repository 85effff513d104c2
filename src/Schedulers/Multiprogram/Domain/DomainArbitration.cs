using DivCon.Schedulers.Multiprogram.Decisions;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Placement;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Multiprogram.Domain;

/// <summary>One joined process as the coordinator's decision sees it.</summary>
/// <param name="Key">The process's number in the domain (unique while it is joined).</param>
/// <param name="AllowedCpus">The CPUs it may use (its affinity mask / cpuset, as it said when joining).</param>
/// <param name="Programs">Its programs with their states, ids as the process numbers them.</param>
internal sealed record DomainParticipant(int Key, IReadOnlyList<int> AllowedCpus, IReadOnlyList<ProgramState> Programs);

/// <summary>The outcome of one domain decision.</summary>
/// <param name="CpusByParticipant">Per process key, per program (its local id), the CPUs it holds; disjoint.</param>
/// <param name="Assignment">The same on domain-wide program ids (the previous placement of the next decision).</param>
/// <param name="Decision">The policy's decision over all programs, or null when there were none.</param>
internal sealed record DomainOutcome(
    IReadOnlyDictionary<int, IReadOnlyDictionary<int, IReadOnlyList<int>>> CpusByParticipant,
    CpuAssignment Assignment,
    AllocationDecision? Decision);

/// <summary>
/// The coordinator's decision, pure: the same policy and placement as inside one process, run over the programs of
/// every joined process at once, then fitted to each process's allowed CPUs.
/// </summary>
/// <remarks>
/// <para>Steps: (1) one snapshot of every program (ids re-keyed domain-wide by <c>globalId</c>), over the union of the
/// allowed CPUs; (2) the policy's counts; (3) the placement over the whole machine from the previous assignment;
/// (4) CPUs to processes: each keeps what the placement gave its programs inside its allowed set, and the rest of its
/// demand is met by augmenting paths (a bipartite matching with capacities: a process may take a CPU from another
/// that can move to a free CPU of its own set); a demand that no matching can meet is cut, and CPUs no demand reached
/// go to a process allowed on them; (5) inside each process, the placement of its programs over its CPUs.</para>
/// <para>Guarantees: no CPU in two places; every CPU of a process inside its allowed set; every CPU of the machine
/// given whenever some program may use it. Deterministic for equal inputs.</para>
/// </remarks>
internal static class DomainArbitration
{
    /// <summary>Decides.</summary>
    /// <param name="participants">The joined processes, in a stable order (join order).</param>
    /// <param name="globalId">The domain-wide id of (process key, local program id); stable while both live.</param>
    /// <param name="previous">The previous <see cref="DomainOutcome.Assignment"/> (<see cref="CpuAssignment.Empty"/> at first).</param>
    /// <param name="policy">The allocation policy.</param>
    /// <param name="machine">The topology of the union of the allowed CPUs (at least those).</param>
    /// <param name="guard">
    /// The domain's starvation guard (state across decisions), or null: with fewer CPUs than busy programs the policy
    /// leaves some without a core, and the guard time-shares the CPUs among them across decisions, as it does inside
    /// one process (the scheduler's own guard does not act under a grant: a process granted nothing runs nothing).
    /// </param>
    /// <returns>The outcome.</returns>
    public static DomainOutcome Decide(
        IReadOnlyList<DomainParticipant> participants,
        Func<int, int, int> globalId,
        CpuAssignment previous,
        IAllocationPolicy policy,
        CpuTopology machine,
        StarvationGuard? guard = null)
    {
        ArgumentNullException.ThrowIfNull(participants);
        ArgumentNullException.ThrowIfNull(globalId);
        ArgumentNullException.ThrowIfNull(previous);
        ArgumentNullException.ThrowIfNull(policy);
        ArgumentNullException.ThrowIfNull(machine);

        var empty = new Dictionary<int, IReadOnlyDictionary<int, IReadOnlyList<int>>>();
        int[] cpus = [.. participants.SelectMany(p => p.AllowedCpus).Distinct().Order()];
        var programs = new List<(int Participant, ProgramState Local, ProgramId Global)>();
        for (int i = 0; i < participants.Count; i++)
        {
            foreach (var state in participants[i].Programs)
            {
                programs.Add((i, state, new ProgramId(globalId(participants[i].Key, state.Id.Value), state.Id.Name)));
            }
        }

        if (cpus.Length == 0 || programs.Count == 0)
        {
            foreach (var p in participants)
            {
                empty[p.Key] = p.Programs.ToDictionary(s => s.Id.Value, _ => (IReadOnlyList<int>)[]);
            }

            return new DomainOutcome(empty, CpuAssignment.Empty, null);
        }

        var topology = machine.Subset(cpus);
        var cpuSet = cpus.ToHashSet();

        // (1), (2): one snapshot, the policy's counts. Current cores are what the domain gave last time.
        var snapshot = new AllocationSnapshot(cpus.Length, programs.Select(p => Rekey(p.Local, p.Global, previous.CpusOf(p.Global).Count)));
        var decision = policy.Allocate(snapshot);
        if (guard is not null)
        {
            decision = guard.Apply(decision);
        }

        // (3): placement over the whole machine, from the previous assignment restricted to this machine.
        var counts = programs.Select((p, i) => new ProgramAllocation(p.Global, decision.Cores[i])).ToArray();
        var placement = new CpuPlacement(topology);
        var wide = placement.Place(Restrict(previous, counts.Select(c => c.Id).ToHashSet(), cpuSet), counts).Assignment;

        // (4): CPUs to processes.
        int n = participants.Count;
        var allowed = participants.Select(p => p.AllowedCpus.ToHashSet()).ToArray();
        var demand = new int[n];
        for (int k = 0; k < programs.Count; k++)
        {
            demand[programs[k].Participant] += decision.Cores[k];
        }

        var owner = new Dictionary<int, int>(); // cpu -> participant index
        var have = new int[n];
        for (int k = 0; k < programs.Count; k++)
        {
            int p = programs[k].Participant;
            foreach (int cpu in wide.CpusOf(programs[k].Global))
            {
                if (allowed[p].Contains(cpu) && have[p] < demand[p])
                {
                    owner[cpu] = p;
                    have[p]++;
                }
            }
        }

        for (int p = 0; p < n; p++)
        {
            while (have[p] < demand[p] && Augment(p, cpus, allowed, owner))
            {
                have[p]++;
            }
        }

        var extra = new int[n];
        foreach (int cpu in cpus)
        {
            if (owner.ContainsKey(cpu))
            {
                continue;
            }

            // A CPU no demand reached (a process's allowed set cut another's demand): to the allowed process with
            // the fewest CPUs that has programs.
            int best = -1;
            for (int p = 0; p < n; p++)
            {
                if (participants[p].Programs.Count > 0 && allowed[p].Contains(cpu) && (best < 0 || have[p] < have[best]))
                {
                    best = p;
                }
            }

            if (best >= 0)
            {
                owner[cpu] = best;
                have[best]++;
                extra[best]++;
            }
        }

        // (5): inside each process, its programs' counts fitted to its CPUs, then placed.
        var result = new Dictionary<int, IReadOnlyDictionary<int, IReadOnlyList<int>>>();
        var all = new List<KeyValuePair<ProgramId, IEnumerable<int>>>();
        for (int p = 0; p < n; p++)
        {
            int[] mine = [.. owner.Where(kv => kv.Value == p).Select(kv => kv.Key).Order()];
            var indices = Enumerable.Range(0, programs.Count).Where(k => programs[k].Participant == p).ToArray();
            var local = indices.Select(k => decision.Cores[k]).ToArray();
            Fit(local, mine.Length);
            var byProgram = new Dictionary<int, IReadOnlyList<int>>();
            if (mine.Length > 0)
            {
                var localCounts = indices.Select((k, j) => new ProgramAllocation(programs[k].Global, local[j])).ToArray();
                var mineSet = mine.ToHashSet();
                var placed = new CpuPlacement(topology.Subset(mine))
                    .Place(Restrict(wide, localCounts.Select(c => c.Id).ToHashSet(), mineSet), localCounts).Assignment;
                foreach (int k in indices)
                {
                    var held = placed.CpusOf(programs[k].Global);
                    byProgram[programs[k].Local.Id.Value] = held;
                    all.Add(new(programs[k].Global, held));
                }
            }
            else
            {
                foreach (int k in indices)
                {
                    byProgram[programs[k].Local.Id.Value] = [];
                }
            }

            result[participants[p].Key] = byProgram;
        }

        return new DomainOutcome(result, new CpuAssignment(all), decision);
    }

    private static ProgramState Rekey(ProgramState s, ProgramId id, int currentCores) =>
        new(id, s.Speedup, s.AvailableTasks, currentCores, s.Table, s.ServingWorkers, s.RunningTasks)
        {
            Estimate = s.Estimate,
        };

    private static CpuAssignment Restrict(CpuAssignment assignment, HashSet<ProgramId> programs, HashSet<int> cpus) =>
        new(assignment.Programs.Where(programs.Contains)
            .Select(p => new KeyValuePair<ProgramId, IEnumerable<int>>(p, assignment.CpusOf(p).Where(cpus.Contains).ToArray())));

    /// <summary>
    /// One more CPU for participant <paramref name="start"/>: breadth-first over participants, through CPUs of
    /// their allowed sets, to a free CPU; every participant on the path keeps its count.
    /// </summary>
    private static bool Augment(int start, int[] cpus, HashSet<int>[] allowed, Dictionary<int, int> owner)
    {
        int n = allowed.Length;
        var via = new int[n]; // the CPU through which a participant was reached (it gives that CPU up)
        var from = new int[n];
        Array.Fill(from, -2);
        from[start] = -1;
        var queue = new Queue<int>();
        queue.Enqueue(start);
        while (queue.Count > 0)
        {
            int p = queue.Dequeue();
            foreach (int cpu in cpus)
            {
                if (!allowed[p].Contains(cpu))
                {
                    continue;
                }

                if (!owner.TryGetValue(cpu, out int q))
                {
                    // Shift along the path: p takes cpu; each predecessor takes the CPU its successor gave up.
                    int taker = p;
                    int take = cpu;
                    while (taker >= 0)
                    {
                        int giveUp = from[taker] >= 0 ? via[taker] : -1;
                        owner[take] = taker;
                        take = giveUp;
                        taker = from[taker];
                    }

                    return true;
                }

                if (from[q] == -2)
                {
                    from[q] = p;
                    via[q] = cpu;
                    queue.Enqueue(q);
                }
            }
        }

        return false;
    }

    /// <summary>Makes <paramref name="counts"/> sum to <paramref name="total"/>: cuts the largest first, adds to the largest.</summary>
    private static void Fit(int[] counts, int total)
    {
        int sum = counts.Sum();
        while (sum > total)
        {
            int largest = 0;
            for (int i = 1; i < counts.Length; i++)
            {
                if (counts[i] > counts[largest])
                {
                    largest = i;
                }
            }

            counts[largest]--;
            sum--;
        }

        while (sum < total && counts.Length > 0)
        {
            int largest = 0;
            for (int i = 1; i < counts.Length; i++)
            {
                if (counts[i] > counts[largest])
                {
                    largest = i;
                }
            }

            counts[largest]++;
            sum++;
        }
    }
}
