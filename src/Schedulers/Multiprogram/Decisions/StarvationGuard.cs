using System.Diagnostics;
using System.Text;
using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram.Decisions;

/// <summary>
/// Wraps any policy's decision so that, when more programs have tasks than there are cores, the cores are time-shared
/// among them by the time each has actually been served, instead of some program never getting one.
/// </summary>
/// <remarks>
/// <para>
/// Why: with more busy programs than cores every policy gives some program zero cores, and lending only helps when
/// another program is idle. In a busy workload nobody is idle, so without the guard that program never runs.
/// </para>
/// <para>
/// Rule: a program is <em>busy</em> when it has available tasks, or when a core it holds is running one of its tasks
/// (<see cref="ProgramState.RunningTasks"/>): a program on one core empties its queues for a moment every time that
/// core runs its last queued task, and ending its turn then would leave the tasks it spawns next without a core until
/// its next turn, several decisions later. While there are at most as many busy programs as
/// cores the policy's decision stands unchanged. With more, the guard decides instead (time sharing): each core goes
/// to a different busy program, so every holder has exactly one core and the policy's proportions do not matter.
/// Busy programs that hold cores keep one; free cores go to waiting busy programs, least-served first (then
/// longest-waiting, then snapshot order). Then each waiting program, least-served first, replaces the most-served
/// holder if it has been served strictly less. A holder is never replaced before its turn has begun: while it holds
/// a core that no worker has reached yet (nobody serves it, because a worker moves only between tasks).
/// </para>
/// <para>
/// <em>Served</em> is a decayed sum of <see cref="ProgramState.ServingWorkers"/> over the decisions (factor
/// <see cref="ServiceDecay"/> per decision). Because workers move only between tasks, a program with long tasks keeps
/// a core for longer than it was given it; counting what each program actually got gives the next turn to the one
/// that got least, so programs with short tasks are not left with short turns. Without that lag (every worker arrives
/// at once) the rotation is round-robin-like: a busy program gets a core within (busy programs - cores + 1)
/// decisions.
/// </para>
/// <para>
/// Explicit decisions (<see cref="AllocationDecision.IsExplicit"/>: allocations set by hand) are never changed,
/// whatever their policy's name.
/// </para>
/// <para>
/// State: for each program, its decayed service and the numbers of the last decision in which it held a core and the last in which it held none (no clock). Not
/// thread-safe: one caller (the rebalancer) at a time.
/// </para>
/// </remarks>
internal sealed class StarvationGuard
{
    /// <summary>The factor by which a program's served-worker sum decays at each decision (0.95: half-life of about 14 decisions).</summary>
    public const double ServiceDecay = 0.95;

    private readonly Dictionary<ProgramId, double> _service = [];
    private readonly Dictionary<ProgramId, long> _lastHeld = [];
    private readonly Dictionary<ProgramId, long> _lastIdle = [];
    private long _round;

    /// <summary>
    /// Whether a decision is needed on the guard's account: some program has tasks and no core, so an interval
    /// decision must not be skipped (the guard may have to rotate it in).
    /// </summary>
    public static bool MayAct(AllocationSnapshot snapshot)
    {
        ArgumentNullException.ThrowIfNull(snapshot);
        foreach (ProgramState p in snapshot.Programs)
        {
            if (p.AvailableTasks > 0 && p.CurrentCores == 0)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Applies the guard to a policy's decision and records who held cores and who was served.</summary>
    /// <returns><paramref name="decision"/> itself when at most as many programs are busy as there are cores,
    /// otherwise the time-sharing decision, whose explanation says what the guard did.</returns>
    public AllocationDecision Apply(AllocationDecision decision)
    {
        ArgumentNullException.ThrowIfNull(decision);
        _round++;
        IReadOnlyList<ProgramState> programs = decision.Snapshot.Programs;
        RecordService(programs);
        AllocationDecision result = decision.IsExplicit ? decision : Correct(decision);
        RecordHolders(programs, result.Cores);
        return result;
    }

    /// <summary>A program's decayed served-worker sum (0 for a program the guard has not seen).</summary>
    public double Service(ProgramId id) => _service.GetValueOrDefault(id);

    /// <summary>
    /// With no more busy programs than cores, a policy that splits by something other than the queues (equal or
    /// proportional shares with more programs than cores) may still leave a busy program without a core while an idle
    /// one holds some: without lending nobody would ever serve it. Each such program gets one core, taken from the
    /// program holding the most cores beyond what it needs (an idle one needs none, a busy one one).
    /// </summary>
    private static AllocationDecision Fill(AllocationDecision decision, List<int> busy)
    {
        var cores = decision.Cores.ToArray();
        var isBusy = new bool[cores.Length];
        foreach (int b in busy)
        {
            isBusy[b] = true;
        }

        var note = new StringBuilder();
        foreach (int b in busy)
        {
            if (cores[b] > 0)
            {
                continue;
            }

            int donor = -1;
            for (int i = 0; i < cores.Length; i++)
            {
                int spare = cores[i] - (isBusy[i] ? 1 : 0);
                if (spare > 0 && (donor < 0 || spare > cores[donor] - (isBusy[donor] ? 1 : 0)))
                {
                    donor = i;
                }
            }

            if (donor < 0)
            {
                break; // cannot happen with busy <= cores; kept as a guard
            }

            cores[donor]--;
            cores[b]++;
            note.Append(note.Length == 0 ? "; starvation guard: " : ", ")
                .Append(decision.Snapshot.Programs[b].Id).Append(" from ").Append(decision.Snapshot.Programs[donor].Id);
        }

        // A corrected or time-shared decision keeps the lending order but no burst roles: while turns decide who runs,
        // a burst must not take a turn's worker.
        return note.Length == 0
            ? decision
            : new AllocationDecision(decision.Policy, decision.Snapshot, cores, usedFastPath: false, decision.Explanation + note) { LendingOrder = decision.LendingOrder };
    }

    private AllocationDecision Correct(AllocationDecision decision)
    {
        IReadOnlyList<ProgramState> programs = decision.Snapshot.Programs;
        int coreCount = decision.Snapshot.CoreCount;
        var holders = new List<int>();
        var waiting = new List<int>();
        for (int i = 0; i < programs.Count; i++)
        {
            if (IsBusy(programs[i]))
            {
                (programs[i].CurrentCores > 0 ? holders : waiting).Add(i);
            }
        }

        if (holders.Count + waiting.Count <= coreCount)
        {
            return Fill(decision, [.. holders, .. waiting]);
        }

        if (holders.Count > coreCount)
        {
            // The snapshot's current cores over-count the machine (only a hand-made snapshot can): keep the
            // least-served holders and let the others wait, so the decision still sums to the cores.
            holders.Sort((a, b) => CompareClaims(programs, a, b));
            waiting.AddRange(holders.Skip(coreCount));
            holders.RemoveRange(coreCount, holders.Count - coreCount);
        }

        waiting.Sort((a, b) => CompareClaims(programs, a, b));
        var cores = new int[programs.Count];
        foreach (int h in holders)
        {
            cores[h] = 1;
        }

        var note = new StringBuilder("; starvation guard: time sharing");
        int free = coreCount - holders.Count;
        var stillWaiting = new List<int>();
        foreach (int w in waiting)
        {
            if (free > 0)
            {
                cores[w] = 1;
                free--;
                note.Append(", ").Append(programs[w].Id).Append(" in");
            }
            else
            {
                stillWaiting.Add(w);
            }
        }

        var replaceable = holders.Where(h => programs[h].ServingWorkers > 0).ToList(); // A turn not begun is kept.
        foreach (int w in stillWaiting)
        {
            int donor = MostServed(programs, replaceable);
            if (donor < 0 || Service(programs[w].Id) >= Service(programs[donor].Id))
            {
                break; // Waiting programs come least-served first: nobody after this one is owed a core either.
            }

            replaceable.Remove(donor);
            cores[donor] = 0;
            cores[w] = 1;
            note.Append(", ").Append(programs[w].Id).Append(" for ").Append(programs[donor].Id);
        }

        Debug.Assert(cores.Sum() == coreCount, "Time sharing gives every core to exactly one busy program.");
        return new AllocationDecision(decision.Policy, decision.Snapshot, cores, usedFastPath: false, decision.Explanation + note) { LendingOrder = decision.LendingOrder };
    }

    /// <summary>Whether <paramref name="program"/> takes part in time sharing: tasks queued, or a held core running one of its tasks.</summary>
    private static bool IsBusy(ProgramState program) =>
        program.AvailableTasks > 0 || (program.RunningTasks > 0 && program.CurrentCores > 0);

    /// <summary>Orders waiting programs: least served, then longest wait, then snapshot order.</summary>
    private int CompareClaims(IReadOnlyList<ProgramState> programs, int a, int b)
    {
        int byService = Service(programs[a].Id).CompareTo(Service(programs[b].Id));
        if (byService != 0)
        {
            return byService;
        }

        // The earliest last round with a core waited longest (never = long.MinValue).
        int byWait = LastHeld(programs[a].Id).CompareTo(LastHeld(programs[b].Id));
        return byWait != 0 ? byWait : a.CompareTo(b);
    }

    /// <summary>The holder to replace: most served, then holding cores without a break for longest, then lower speedup, then later.</summary>
    private int MostServed(IReadOnlyList<ProgramState> programs, List<int> candidates)
    {
        int best = -1;
        foreach (int c in candidates)
        {
            if (best < 0 || IsMoreReplaceable(programs[c], c, programs[best], best))
            {
                best = c;
            }
        }

        return best;
    }

    private bool IsMoreReplaceable(ProgramState candidate, int candidateIndex, ProgramState best, int bestIndex)
    {
        double byService = Service(candidate.Id) - Service(best.Id);
        if (byService != 0)
        {
            return byService > 0;
        }

        long idleCandidate = LastIdle(candidate.Id);
        long idleBest = LastIdle(best.Id);
        if (idleCandidate != idleBest)
        {
            return idleCandidate < idleBest;
        }

        if (candidate.Speedup != best.Speedup)
        {
            return candidate.Speedup < best.Speedup;
        }

        return candidateIndex > bestIndex;
    }

    private void RecordService(IReadOnlyList<ProgramState> programs)
    {
        // Forget programs that left, so the maps stay as small as the program set.
        if (_service.Count > 2 * programs.Count)
        {
            var present = programs.Select(p => p.Id).ToHashSet();
            foreach (ProgramId gone in _service.Keys.Where(id => !present.Contains(id)).ToArray())
            {
                _service.Remove(gone);
                _lastHeld.Remove(gone);
                _lastIdle.Remove(gone);
            }
        }

        foreach (ProgramState p in programs)
        {
            _service[p.Id] = (Service(p.Id) * ServiceDecay) + p.ServingWorkers;
        }
    }

    private void RecordHolders(IReadOnlyList<ProgramState> programs, IReadOnlyList<int> cores)
    {
        for (int i = 0; i < programs.Count; i++)
        {
            (cores[i] > 0 ? _lastHeld : _lastIdle)[programs[i].Id] = _round;
        }
    }

    private long LastHeld(ProgramId id) => _lastHeld.GetValueOrDefault(id, long.MinValue);

    private long LastIdle(ProgramId id) => _lastIdle.GetValueOrDefault(id, long.MinValue);
}
