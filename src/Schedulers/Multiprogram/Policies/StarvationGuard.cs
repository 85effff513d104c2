using System.Diagnostics;
using System.Text;

namespace DivCon.Schedulers.Multiprogram.Policies;

/// <summary>
/// Wraps any policy's decision so that no program with queued tasks waits for a core for more than one interval
/// in a row: with more programs than cores it turns the policy's split into a round-robin time slice.
/// </summary>
/// <remarks>
/// <para>
/// Why: with more programs than cores every policy gives some program zero cores, and lending only helps when
/// another program is idle. In a busy workload nobody is idle, so without the guard that program never runs.
/// </para>
/// <para>
/// Rule: a program is <em>starving</em> when it has available tasks, held no core before the decision
/// (<see cref="ProgramState.CurrentCores"/> is 0) and the policy gives it none again. Starving programs are served
/// longest-waiting first (then in snapshot order); each takes one core from a donor: the program with the most
/// cores after the policy, ties to the one that has held cores without a break for longest, then to the lower
/// speedup, then to the later program. A program that the guard has just given a core, or that was at zero
/// before and got cores from the policy, is never a donor, so whoever waited is served now. Allocations keep
/// their sum. With 3 programs on 2 cores each interval a different program sits out; in general a program with
/// tasks gets a core at least every (programs - cores + 1) decisions.
/// </para>
/// <para>
/// With at least as many cores as programs every policy already gives each program a core, so the guard never
/// acts. Decisions by <see cref="ExplicitPolicyName"/> (allocations set by hand) are never changed.
/// </para>
/// <para>
/// State: for each program, the number of the last decision in which it held a core and the last in which it
/// held none (no clock). Not thread-safe: one caller (the rebalancer) at a time.
/// </para>
/// </remarks>
public sealed class StarvationGuard
{
    /// <summary>The policy name of explicit allocations, which the guard leaves alone.</summary>
    public const string ExplicitPolicyName = "override";

    private readonly Dictionary<ProgramId, long> _lastHeld = [];
    private readonly Dictionary<ProgramId, long> _lastIdle = [];
    private long _round;

    /// <summary>
    /// Whether a decision is needed on the guard's account: some program has tasks and no core, so an interval
    /// decision must not be skipped (the guard may have to rotate it in).
    /// </summary>
    /// <param name="snapshot">The workload now.</param>
    /// <returns><see langword="true"/> when a program with available tasks holds no core.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="snapshot"/> is null.</exception>
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

    /// <summary>Applies the guard to a policy's decision and records who held cores.</summary>
    /// <param name="decision">The policy's decision; its snapshot is the workload now.</param>
    /// <returns><paramref name="decision"/> itself when nobody starves, otherwise a corrected decision whose
    /// explanation says what the guard moved.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="decision"/> is null.</exception>
    public AllocationDecision Apply(AllocationDecision decision)
    {
        ArgumentNullException.ThrowIfNull(decision);
        _round++;
        AllocationDecision result = decision.Policy == ExplicitPolicyName ? decision : Correct(decision);
        Record(decision.Snapshot.Programs, result.Cores);
        return result;
    }

    private AllocationDecision Correct(AllocationDecision decision)
    {
        IReadOnlyList<ProgramState> programs = decision.Snapshot.Programs;
        var starving = new List<int>();
        for (int i = 0; i < programs.Count; i++)
        {
            if (programs[i].AvailableTasks > 0 && programs[i].CurrentCores == 0 && decision.Cores[i] == 0)
            {
                starving.Add(i);
            }
        }

        if (starving.Count == 0)
        {
            return decision;
        }

        // Longest wait first: the earliest last round with a core (never = long.MinValue), then snapshot order.
        starving.Sort((a, b) =>
        {
            int byWait = LastHeld(programs[a].Id).CompareTo(LastHeld(programs[b].Id));
            return byWait != 0 ? byWait : a.CompareTo(b);
        });

        int[] cores = [.. decision.Cores];
        var protectedIndex = new bool[programs.Count];
        for (int i = 0; i < programs.Count; i++)
        {
            protectedIndex[i] = programs[i].CurrentCores == 0 && cores[i] > 0; // Waited and is served now.
        }

        var note = new StringBuilder();
        foreach (int s in starving)
        {
            int donor = PickDonor(programs, cores, protectedIndex);
            if (donor < 0)
            {
                break; // Every core already goes to a program that waited.
            }

            cores[donor]--;
            cores[s]++;
            protectedIndex[s] = true;
            note.Append(note.Length == 0 ? "; starvation guard: " : ", ")
                .Append(programs[s].Id).Append(" +1 from ").Append(programs[donor].Id);
        }

        Debug.Assert(cores.Sum() == decision.Snapshot.CoreCount, "The guard moves cores; it never creates or drops one.");
        return note.Length == 0
            ? decision
            : new AllocationDecision(decision.Policy, decision.Snapshot, cores, usedFastPath: false, decision.Explanation + note);
    }

    private int PickDonor(IReadOnlyList<ProgramState> programs, int[] cores, bool[] protectedIndex)
    {
        int best = -1;
        for (int i = 0; i < programs.Count; i++)
        {
            if (cores[i] == 0 || protectedIndex[i])
            {
                continue;
            }

            if (best < 0 || IsBetterDonor(programs, cores, i, best))
            {
                best = i;
            }
        }

        return best;
    }

    private bool IsBetterDonor(IReadOnlyList<ProgramState> programs, int[] cores, int candidate, int best)
    {
        if (cores[candidate] != cores[best])
        {
            return cores[candidate] > cores[best];
        }

        // Held cores without a break for longest: the earliest last round without a core.
        long idleCandidate = LastIdle(programs[candidate].Id);
        long idleBest = LastIdle(programs[best].Id);
        if (idleCandidate != idleBest)
        {
            return idleCandidate < idleBest;
        }

        if (programs[candidate].Speedup != programs[best].Speedup)
        {
            return programs[candidate].Speedup < programs[best].Speedup;
        }

        return candidate > best;
    }

    private void Record(IReadOnlyList<ProgramState> programs, IReadOnlyList<int> cores)
    {
        // Forget programs that left, so the maps stay as small as the program set.
        if (_lastHeld.Count + _lastIdle.Count > 4 * programs.Count)
        {
            var present = programs.Select(p => p.Id).ToHashSet();
            foreach (ProgramId gone in _lastHeld.Keys.Concat(_lastIdle.Keys).Where(id => !present.Contains(id)).ToArray())
            {
                _lastHeld.Remove(gone);
                _lastIdle.Remove(gone);
            }
        }

        for (int i = 0; i < programs.Count; i++)
        {
            (cores[i] > 0 ? _lastHeld : _lastIdle)[programs[i].Id] = _round;
        }
    }

    private long LastHeld(ProgramId id) => _lastHeld.GetValueOrDefault(id, long.MinValue);

    private long LastIdle(ProgramId id) => _lastIdle.GetValueOrDefault(id, long.MinValue);
}
