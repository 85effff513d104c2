using System.Diagnostics;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Profiles;

namespace DivCon.Schedulers.Multiprogram.Policies;

/// <summary>
/// Hill climbing over scalability tables (after Sasaki et al.'s scalability-based partitioning): starting from a
/// simple allocation, repeatedly move one core from the program that loses least to the program that gains most,
/// while the objective improves.
/// </summary>
/// <remarks>
/// <para>
/// Model: each program's speedup on c cores comes from <see cref="ProgramState.Table"/> (interpolated), or, without
/// a table, from a straight line through (1, 1) and (n, whole-machine speedup). NP_i(c) = speedup_i(c) /
/// speedup_i(n). The objective (<see cref="HillClimbingObjective"/>) is a sum of one term per program, so a move's
/// effect is gain_r - loss_d, computed in O(1) a program; each step costs O(m).
/// </para>
/// <para>
/// Algorithm: start (proportional or equal); loop: r = program with the largest gain from one more core, d = a
/// different program with the smallest loss from one fewer (never below 1 core when n >= m); if gain_r - loss_d is
/// not positive, stop; else move one core from d to r. Every step strictly improves the objective, so the result
/// is never worse than the start, and the loop ends (at most n x m steps as a guard).
/// </para>
/// <para>
/// A program whose speedup falls past some core count (PARSEC-like) gets a negative gain from cores past its peak,
/// so it is not given them while another program can use them; cores past every program's peak must still go
/// somewhere (allocations cover the machine) and go where they hurt least.
/// </para>
/// <para>
/// Warnings: hill climbing with single-core moves finds a local optimum; with tables that are not concave (a
/// speedup that dips then recovers) a better allocation may exist. With more programs than cores, only the
/// programs that the starting allocation gave a core take part (ANTT is infinite for any allocation then).
/// </para>
/// </remarks>
public sealed class HillClimbingPolicy : IAllocationPolicy
{
    private const double MinimumImprovement = 1e-12;

    /// <summary>Creates the policy, climbing from the proportional allocation.</summary>
    /// <param name="objective">What to optimise.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="objective"/> is undefined.</exception>
    public HillClimbingPolicy(HillClimbingObjective objective = HillClimbingObjective.MinimizeAntt)
        : this(objective, HillClimbingStart.Proportional)
    {
    }

    // The starting allocation is a research knob (the equal start is compared in tests), not a user's choice.
    internal HillClimbingPolicy(HillClimbingObjective objective, HillClimbingStart start)
    {
        if (!Enum.IsDefined(objective))
        {
            throw new ArgumentOutOfRangeException(nameof(objective), objective, "Unknown objective.");
        }

        if (!Enum.IsDefined(start))
        {
            throw new ArgumentOutOfRangeException(nameof(start), start, "Unknown starting allocation.");
        }

        Objective = objective;
        Start = start;
    }

    /// <summary>What the policy optimises.</summary>
    public HillClimbingObjective Objective { get; }

    internal HillClimbingStart Start { get; }

    /// <inheritdoc />
    public string Name => Objective == HillClimbingObjective.MinimizeAntt ? "hill-climbing-antt" : "hill-climbing-stp";

    /// <summary>
    /// The objective value of an allocation, as this policy scores it (higher is better): STP, or -ANTT summed
    /// over the programs holding cores (see the remarks on the type).
    /// </summary>
    /// <param name="snapshot">The workload.</param>
    /// <param name="cores">Cores per program, in snapshot order.</param>
    /// <returns>The value; negative infinity when ANTT is minimised and a program that must run has no core.</returns>
    public double Evaluate(AllocationSnapshot snapshot, IReadOnlyList<int> cores)
    {
        AllocationScoring.CheckArguments(snapshot, cores);

        var tables = Tables(snapshot, out var full);
        bool everyoneRuns = snapshot.CoreCount >= snapshot.Programs.Count;
        double total = 0;
        for (int i = 0; i < cores.Count; i++)
        {
            if (everyoneRuns || cores[i] > 0)
            {
                total += Term(tables[i], full[i], cores[i]);
            }
        }

        return total;
    }

    /// <inheritdoc />
    public AllocationDecision Allocate(AllocationSnapshot snapshot)
    {
        ArgumentNullException.ThrowIfNull(snapshot);
        int m = snapshot.Programs.Count;
        if (m == 0)
        {
            return new AllocationDecision(Name, snapshot, [], usedFastPath: false, "no programs");
        }

        var startDecision = Start == HillClimbingStart.Equal
            ? new EqualSharePolicy().Allocate(snapshot)
            : new ProportionalPolicy().Allocate(snapshot);
        var cores = startDecision.Cores.ToArray();
        var tables = Tables(snapshot, out var full);
        bool everyoneRuns = snapshot.CoreCount >= m;
        var takesPart = new bool[m];
        for (int i = 0; i < m; i++)
        {
            takesPart[i] = everyoneRuns || cores[i] > 0;
        }

        int moves = 0;
        int maxMoves = snapshot.CoreCount * m;
        while (moves < maxMoves)
        {
            // Best two receivers (largest gain) and best two donors (smallest loss), so that r != d is always possible.
            int r1 = -1, r2 = -1, d1 = -1, d2 = -1;
            double g1 = double.NegativeInfinity, g2 = double.NegativeInfinity;
            double l1 = double.PositiveInfinity, l2 = double.PositiveInfinity;
            for (int i = 0; i < m; i++)
            {
                if (!takesPart[i])
                {
                    continue;
                }

                double here = Term(tables[i], full[i], cores[i]);
                double gain = Term(tables[i], full[i], cores[i] + 1) - here;
                if (gain > g1)
                {
                    (r2, g2) = (r1, g1);
                    (r1, g1) = (i, gain);
                }
                else if (gain > g2)
                {
                    (r2, g2) = (i, gain);
                }

                if (cores[i] > 1)
                {
                    double loss = here - Term(tables[i], full[i], cores[i] - 1);
                    if (loss < l1)
                    {
                        (d2, l2) = (d1, l1);
                        (d1, l1) = (i, loss);
                    }
                    else if (loss < l2)
                    {
                        (d2, l2) = (i, loss);
                    }
                }
            }

            if (r1 < 0 || d1 < 0)
            {
                break;
            }

            int receiver = r1, donor = d1;
            double delta = g1 - l1;
            if (r1 == d1)
            {
                double viaSecondDonor = d2 >= 0 ? g1 - l2 : double.NegativeInfinity;
                double viaSecondReceiver = r2 >= 0 ? g2 - l1 : double.NegativeInfinity;
                (receiver, donor, delta) = viaSecondDonor >= viaSecondReceiver ? (r1, d2, viaSecondDonor) : (r2, d1, viaSecondReceiver);
            }

            if (!(delta > MinimumImprovement) || receiver < 0 || donor < 0)
            {
                break;
            }

            cores[donor]--;
            cores[receiver]++;
            moves++;
        }

        Debug.Assert(cores.Sum() == snapshot.CoreCount, "moves preserve the total");
        return new AllocationDecision(Name, snapshot, cores, usedFastPath: false,
            $"{moves} single-core moves from the {(Start == HillClimbingStart.Equal ? "equal" : "proportional")} start");
    }

    /// <inheritdoc />
    public bool IsStillValid(AllocationSnapshot current, AllocationDecision previous)
    {
        ArgumentNullException.ThrowIfNull(current);
        ArgumentNullException.ThrowIfNull(previous);
        return ProportionalShares.SameProgramsAndScalability(current, previous.Snapshot);
    }

    private static ScalabilityTable[] Tables(AllocationSnapshot snapshot, out double[] full)
    {
        int m = snapshot.Programs.Count;
        var tables = new ScalabilityTable[m];
        full = new double[m];
        for (int i = 0; i < m; i++)
        {
            var p = snapshot.Programs[i];
            tables[i] = p.Table ?? ScalabilityTable.FromWholeMachine(snapshot.CoreCount, p.Speedup);
            full[i] = tables[i].SpeedupAt(snapshot.CoreCount);
        }

        return tables;
    }

    private double Term(ScalabilityTable table, double full, int cores)
    {
        double np = table.SpeedupAt(cores) / full;
        return Objective == HillClimbingObjective.MaximizeStp
            ? np
            : (cores == 0 ? double.NegativeInfinity : -1 / np);
    }
}

/// <summary>
/// What <see cref="HillClimbingPolicy"/> optimises. Both use the predicted normalised progress of program i on
/// c_i cores, NP_i = speedup_i(c_i) / speedup_i(n): the fraction of its stand-alone whole-machine speed it keeps
/// (interference between programs is ignored).
/// </summary>
public enum HillClimbingObjective
{
    /// <summary>
    /// Minimise the average normalised turnaround time, ANTT = mean of 1 / NP_i (Sasaki et al.'s choice). Favours
    /// fairness: starving any program is very expensive.
    /// </summary>
    MinimizeAntt,

    /// <summary>Maximise the system throughput, STP = sum of NP_i. Favours the programs that scale best.</summary>
    MaximizeStp,
}

/// <summary>The allocation <see cref="HillClimbingPolicy"/> starts climbing from.</summary>
internal enum HillClimbingStart
{
    /// <summary>The <see cref="ProportionalPolicy"/> allocation (by whole-machine speedup).</summary>
    Proportional,

    /// <summary>The <see cref="EqualSharePolicy"/> allocation.</summary>
    Equal,
}
