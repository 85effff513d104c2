using System.Diagnostics;
using DivCon.Schedulers.Multiprogram.Estimation;
using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram.Policies;

/// <summary>
/// The default policy: cores go where they pay, by the scalability each program shows while it runs
/// (<see cref="ProgramState.Estimate"/>, from <see cref="ScalabilityEstimator"/>), with homes moved only when the
/// model says the move pays more than it costs.
/// </summary>
/// <remarks>
/// <para><b>Objective.</b> Each program's predicted normalised progress is NP_i = S_i(c_i) / S_i(n), where S_i is its
/// estimated speedup on c_i of the n cores. The policy maximises the sum of alpha-fair utilities of NP_i,
/// NP^(1-alpha) / (1-alpha) (log NP for alpha = 1), with alpha = <see cref="Fairness"/>: 0 would maximise system
/// throughput (STP) alone, 2 minimises the predicted ANTT; the default 0.5 leans to throughput while every utility's
/// slope grows without bound as a program's progress nears 0, the floor that keeps any program from being starved
/// for the others' throughput. A core's worth to a program is the utility it adds: large where the program would
/// turn it into speed (a steep curve, little progress so far), small where it would mostly idle (a flat curve: recent
/// work ran at low parallelism).</para>
/// <para><b>Work-conserving.</b> The mechanism lends a core its home program cannot use now to a program with queued
/// tasks, without a decision; this policy therefore decides homes for the medium term (the estimate's window) and
/// leaves the short term to lending.</para>
/// <para><b>Youth.</b> Each program's utility is weighted by its age, as least-attained-service schedulers favour
/// young jobs: a program busy for a seconds weighs (1 + a / 1 s)^-<see cref="YouthBias"/> (ages capped at
/// <see cref="AgeHorizon"/>, 10 s). A program's normalised turnaround is averaged over its own lifetime, so a short
/// program present for a few seconds gains much from extra cores while the long ones beside it lose a small part of
/// theirs; without knowing which programs are short, the young ones are the likeliest. Programs started together keep
/// equal weights, so the thesis's mixes are decided as without it. The age is the estimate's
/// (<see cref="ScalabilityEstimate.Age"/>): time busy since the program last had no task for a second. A program that
/// states how long it will stay (<see cref="ProgramState.ExpectedLifetime"/>) is weighed by that lifetime instead, with
/// the same horizon: what the age only guesses at, it knows; once it has been busy longer than it said, by its age
/// again.</para>
/// <para><b>Hysteresis.</b> From the current allocation, one core at a time moves from the program that loses least to
/// the program that gains most, while the gain minus the loss exceeds <see cref="MoveThreshold"/> (in log units:
/// the default 0.01 = the receiver speeds up 1% more than the donor slows down). A program that arrives, a program left with no
/// core, or allocations that do not sum to the cores start from a greedy allocation instead (every program one core,
/// then each core to the largest gain), which for concave curves is the optimum.</para>
/// <para><b>Lending credit</b> (<see cref="LendingCredit"/>, default 1: all of it). A home core its program leaves idle is lent, so
/// a move from donor j to receiver i changes less than the two curves say: i already had the core while j left it
/// idle, and j will have it while i leaves it idle. With credit L and a core's busy share rho (the (c+1)-th core of a
/// program on c + 1 cores is busy c (S(c+1) / S(c) - 1) of the time), the move's net is
/// gain_i (1 - L (1 - rho_j)) - loss_j (1 - L (1 - rho_i)), over every donor-receiver pair. It lets a program with
/// narrow phases hold homes it lends out between its wide ones.</para>
/// <para><b>Lending order</b> (<see cref="OrdersLending"/>, off by default). Each decision also says which program idle cores go to first until the next one
/// (<see cref="AllocationDecision.LendingOrder"/>, <see cref="LendingOrderOf"/>): the one whose progress one more busy
/// core raises the objective most, NP^-alpha / S(n) (a core is a larger share of a less scalable program's speed;
/// among alike programs the more slowed down goes first). Homes follow the medium-term curves; lent cores follow
/// the objective at the margin.</para>
/// <para><b>Without an estimate</b> (a snapshot built by hand): the program's <see cref="ProgramState.Table"/> is used,
/// or the line through (1, 1) and (n, <see cref="ProgramState.Speedup"/>).</para>
/// <para>Pure and deterministic: ties go to the program holding more cores now (fewer moves), then the earlier one.</para>
/// </remarks>
public sealed class LearnedScalabilityPolicy : IAllocationPolicy
{
    private readonly double _longRunsFirst = DefaultLongRunsFirst;

    /// <summary>Creates the policy.</summary>
    /// <param name="moveThreshold">
    /// The net gain in utility a single-core move must bring; at least 0 (default 0.01: at alpha 1 the utility is
    /// a log, so the receiver must speed up about 1% more than the donor slows down).
    /// </param>
    /// <param name="fairness">
    /// The alpha of the objective, in [0, 2] (default 0.5): 0 maximises throughput alone, 1 is proportional fairness,
    /// 2 minimises the predicted ANTT.
    /// </param>
    /// <exception cref="ArgumentOutOfRangeException">A value is out of range; the message names it.</exception>
    /// <param name="youthBias">
    /// How much a young program is favoured, in [0, 4] (default 1.5; 0: not at all): a program busy for a seconds is
    /// weighted (1 + a / 1 s)^-bias, ages past <see cref="AgeHorizon"/> counting as that horizon.
    /// </param>
    /// <param name="lendingCredit">
    /// How far a move counts on lending, in [0, 1] (default 1): the share of a home core's idle time assumed lent to
    /// the other side of the move (see <see cref="LendingCredit"/>).
    /// </param>
    public LearnedScalabilityPolicy(double moveThreshold = 0.01, double fairness = 0.5, double youthBias = 1.5, double lendingCredit = 1)
    {
        if (!double.IsFinite(moveThreshold) || moveThreshold < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(moveThreshold), moveThreshold, "The move threshold must be a finite number >= 0.");
        }

        if (!(fairness >= 0 && fairness <= 2))
        {
            throw new ArgumentOutOfRangeException(nameof(fairness), fairness, "The fairness alpha must be in [0, 2].");
        }

        if (!(youthBias >= 0 && youthBias <= 4))
        {
            throw new ArgumentOutOfRangeException(nameof(youthBias), youthBias, "The youth bias must be in [0, 4].");
        }

        if (!(lendingCredit >= 0 && lendingCredit <= 1))
        {
            throw new ArgumentOutOfRangeException(nameof(lendingCredit), lendingCredit, "The lending credit must be in [0, 1].");
        }

        MoveThreshold = moveThreshold;
        Fairness = fairness;
        LendingCredit = lendingCredit;
        YouthBias = youthBias;
    }

    /// <summary>The alpha of the objective: 0 throughput alone, 1 proportional fairness, 2 predicted ANTT.</summary>
    public double Fairness { get; }

    /// <summary>
    /// How much a young program is favoured: its utility is weighted (1 + a / <see cref="AgeScale"/>)^-bias for its
    /// busy-period age a (<see cref="ScalabilityEstimate.Age"/>), capped at <see cref="AgeHorizon"/>; 0 = no bias.
    /// </summary>
    public double YouthBias { get; }

    /// <summary>The age unit of the youth weight: 1 s.</summary>
    public static TimeSpan AgeScale { get; } = TimeSpan.FromSeconds(1);

    /// <summary>
    /// The age past which programs count as equally old (10 s): the youth weight favours a program that has just
    /// started over one that has run for a while, never a 10-minute-old program over a 10-hour-old one.
    /// </summary>
    public static TimeSpan AgeHorizon { get; } = TimeSpan.FromSeconds(10);

    /// <summary>
    /// How far a move counts on lending: the share, in [0, 1], of a home core's idle time that is assumed lent to the
    /// other side of the move (0: homes only, as without lending).
    /// </summary>
    public double LendingCredit { get; }

    /// <summary>The net gain in utility a single-core move must bring.</summary>
    public double MoveThreshold { get; }

    /// <summary>
    /// Whether decisions carry a lending order (<see cref="LendingOrderOf"/>; default <see langword="false"/>: idle
    /// cores are spread round-robin over the programs with queued tasks, as under every other policy).
    /// </summary>
    public bool OrdersLending { get; init; }

    /// <summary>
    /// Whether decisions carry "bursts first" roles (<see cref="AllocationDecision.BurstRoles"/>; default
    /// <see langword="true"/>): a program whose wide phases take a small share of its time has, while it has queued
    /// tasks, the workers of programs that are wide nearly all the time, and idle cores first. A saturated program
    /// turns any core into work, so what it yields to a burst it gets back afterwards, while the burst finishes sooner
    /// (shortest job first, applied to phases); a saturated program well behind the others' progress does not yield.
    /// The thresholds and the reasoning: policies README, "Bursts first".
    /// </summary>
    public bool PrioritisesBursts { get; init; } = true;

    /// <summary>The default <see cref="LongRunsFirst"/> factor (4).</summary>
    public const double DefaultLongRunsFirst = 4;

    /// <summary>
    /// "Long runs first" (<see cref="BurstPriority.WithLongRunsFirst"/>): a program in its first three runs whose run has
    /// lasted more than this many mean runs of a program with short runs has that program's workers first, as a burst has under
    /// <see cref="PrioritisesBursts"/>, whose mechanism it uses (policies README, "Long runs first"). 0 turns it off;
    /// otherwise a finite factor of at least 1 (default <see cref="DefaultLongRunsFirst"/>). It needs the programs'
    /// runs in the snapshot (<see cref="ProgramState"/>): the simulator knows them, the scheduler knows the runs a
    /// program reports (<see cref="ProgramTaskScheduler.BeginRun"/>); programs that report none take no part.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is neither 0 nor a finite number of at least 1.</exception>
    public double LongRunsFirst
    {
        get => _longRunsFirst;
        init => _longRunsFirst = value == 0 || (value >= 1 && double.IsFinite(value))
            ? value
            : throw new ArgumentOutOfRangeException(nameof(value), value, "LongRunsFirst must be 0 (off) or a finite factor of at least 1.");
    }

    /// <summary>
    /// Whether the scheduler (and the simulator) decides again once a newly registered program has shown its first
    /// work, 10-20 ms after its registration (a <see cref="RebalanceReason.FirstSignal"/> decision), instead of leaving
    /// its registration's blind split to the next interval decision. Needs
    /// the estimator's sampling (<see cref="MultiprogramSchedulerOptions.EstimatorSampleInterval"/>). Off by default:
    /// on the simulator's generated mixes it changed no outcome with the default estimator (its first samples do not
    /// outweigh the linear guess, and with full lending credit a home moved off an idle program gains nothing).
    /// </summary>
    public bool DecidesEarly { get; init; }

    /// <inheritdoc />
    public string Name => "learned-scalability";

    /// <summary>The objective of an allocation: the sum of the alpha-fair utilities of the programs holding cores (higher is better).</summary>
    /// <param name="snapshot">The workload.</param>
    /// <param name="cores">Cores per program, in snapshot order.</param>
    /// <returns>The value; negative infinity when a program that must run (cores at least programs) has none.</returns>
    /// <exception cref="ArgumentException">The counts do not match the programs.</exception>
    public double Evaluate(AllocationSnapshot snapshot, IReadOnlyList<int> cores)
    {
        AllocationScoring.CheckArguments(snapshot, cores);

        bool everyoneRuns = snapshot.CoreCount >= snapshot.Programs.Count;
        var weights = YouthWeights.Of(this, snapshot);
        double total = 0;
        for (int i = 0; i < cores.Count; i++)
        {
            if (cores[i] > 0)
            {
                total += Utility(snapshot, weights, i, cores[i]);
            }
            else if (everyoneRuns)
            {
                return double.NegativeInfinity;
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

        int n = snapshot.CoreCount;
        var cores = new int[m];
        long held = 0;
        bool someoneStarved = false;
        for (int i = 0; i < m; i++)
        {
            cores[i] = snapshot.Programs[i].CurrentCores;
            held += cores[i];
            someoneStarved |= cores[i] == 0;
        }

        bool greedy = held != n || (someoneStarved && n >= m);
        var weights = YouthWeights.Of(this, snapshot);
        if (greedy)
        {
            Greedy(snapshot, weights, cores);
        }

        int moves = Climb(snapshot, weights, cores);
        Debug.Assert(cores.Sum() == n, "moves preserve the total");
        BurstRole[]? roles = PrioritisesBursts ? BurstPriority.Classify(snapshot, cores) : null;
        if (PrioritisesBursts && LongRunsFirst > 0)
        {
            roles = BurstPriority.WithLongRunsFirst(snapshot, cores, roles, LongRunsFirst);
        }

        return new AllocationDecision(Name, snapshot, cores, usedFastPath: moves == 0 && !greedy,
            $"{moves} single-core moves from the {(greedy ? "greedy start" : "current allocation")} (threshold {MoveThreshold:0.###})")
        {
            LendingOrder = OrdersLending ? LendingOrderOf(snapshot) : null,
            BurstRoles = roles,
        };
    }

    /// <summary>
    /// The order in which idle cores are lent: by what one more busy core adds to the objective, largest first. A
    /// lent core that runs a task of program i adds one core's work rate, 1 / S_i(n) of i's speed alone, to its
    /// progress; the objective weighs progress at the margin by NP_i^-alpha (its utility's slope) and i's youth
    /// weight, with NP_i the share of its alone speed i has recently run at (<see cref="ScalabilityEstimate.Progress"/>).
    /// So the core goes first to the least scalable programs (a core is the largest share of their speed), and among
    /// alike ones to the most slowed down. A program without an estimate counts its predicted progress on the cores
    /// it holds, S(c) / S(n). Ties go to the earlier program.
    /// </summary>
    /// <param name="snapshot">The workload.</param>
    /// <returns>Indices into the snapshot's programs, every one once, the first preferred.</returns>
    public IReadOnlyList<int> LendingOrderOf(AllocationSnapshot snapshot)
    {
        ArgumentNullException.ThrowIfNull(snapshot);
        int m = snapshot.Programs.Count;
        var weights = YouthWeights.Of(this, snapshot);
        var worth = new double[m];
        var order = new int[m];
        for (int i = 0; i < m; i++)
        {
            order[i] = i;
            var p = snapshot.Programs[i];
            double progress = p.Estimate is { } estimate
                ? estimate.Progress
                : Progress(snapshot, i, Math.Clamp(p.CurrentCores, 1, snapshot.CoreCount));
            worth[i] = weights.Apply(i, Math.Pow(Math.Max(progress, 1e-3), -Fairness) / Speedup(snapshot, i, snapshot.CoreCount));
        }

        // Ties go to the earlier program, so the order is total and deterministic.
        Array.Sort(order, (a, b) => worth[a] != worth[b] ? worth[b].CompareTo(worth[a]) : a.CompareTo(b));
        return order;
    }

    /// <inheritdoc />
    /// <remarks>
    /// Certain only for a single program that was alone before too (it holds every core whatever the estimate);
    /// otherwise the estimates change at every observation, and the climb is cheap (O(n m)).
    /// </remarks>
    public bool IsStillValid(AllocationSnapshot current, AllocationDecision previous)
    {
        ArgumentNullException.ThrowIfNull(current);
        ArgumentNullException.ThrowIfNull(previous);
        var before = previous.Snapshot;
        return current.Programs.Count == 1 && before.Programs.Count == 1 && current.CoreCount == before.CoreCount
            && current.Programs[0].Id == before.Programs[0].Id && previous.Cores[0] == current.CoreCount;
    }

    /// <summary>Every program one core (when cores suffice), then each remaining core to the largest gain.</summary>
    private void Greedy(AllocationSnapshot snapshot, YouthWeights weights, int[] cores)
    {
        int m = cores.Length;
        int n = snapshot.CoreCount;
        Array.Clear(cores, 0, cores.Length);
        int remaining = n;
        if (n >= m)
        {
            Array.Fill(cores, 1);
            remaining -= m;
        }

        // With fewer cores than programs, the first cores go by the gain of a first core (log S(1) = 0 for all:
        // ties to current holders, then order), which is what the starvation guard then time-shares.
        for (; remaining > 0; remaining--)
        {
            int best = -1;
            double bestGain = double.NegativeInfinity;
            for (int i = 0; i < m; i++)
            {
                double gain = Gain(snapshot, weights, i, cores[i]);
                if (gain > bestGain || (gain == bestGain && best >= 0 && Prefer(snapshot, i, best)))
                {
                    (best, bestGain) = (i, gain);
                }
            }

            cores[best]++;
        }
    }

    /// <summary>Single-core moves from the smallest loss to the largest gain while the net gain beats the threshold.</summary>
    private int Climb(AllocationSnapshot snapshot, YouthWeights weights, int[] cores)
    {
        int m = cores.Length;
        int floor = snapshot.CoreCount >= m ? 1 : 0;
        int moves = 0;
        int guard = snapshot.CoreCount * m;
        if (LendingCredit > 0)
        {
            return ClimbWithLending(snapshot, weights, cores, floor, guard);
        }

        while (moves < guard)
        {
            int receiver = -1, donor = -1;
            double bestGain = double.NegativeInfinity, bestLoss = double.PositiveInfinity;
            for (int i = 0; i < m; i++)
            {
                double gain = Gain(snapshot, weights, i, cores[i]);
                if (gain > bestGain || (gain == bestGain && receiver >= 0 && Prefer(snapshot, i, receiver)))
                {
                    (receiver, bestGain) = (i, gain);
                }
            }

            if (receiver < 0)
            {
                break;
            }

            for (int i = 0; i < m; i++)
            {
                if (i == receiver || cores[i] <= floor)
                {
                    continue;
                }

                double loss = Gain(snapshot, weights, i, cores[i] - 1);
                if (loss < bestLoss || (loss == bestLoss && donor >= 0 && !Prefer(snapshot, i, donor)))
                {
                    (donor, bestLoss) = (i, loss);
                }
            }

            if (receiver < 0 || donor < 0 || !(bestGain - bestLoss > Math.Max(MoveThreshold, 1e-12)))
            {
                break;
            }

            cores[donor]--;
            cores[receiver]++;
            moves++;
        }

        return moves;
    }

    /// <summary>
    /// The climb when moves count on lending: a home core's idle time goes to the others, so moving core from donor j
    /// to receiver i gains i's utility only for the time j would not have lent it to i anyway, and costs j only for
    /// the time i would not lend it back. With a core's busy share rho (from the curve: the (c+1)-th core of a
    /// program on c + 1 cores is busy c (S(c+1) / S(c) - 1) of the time) and credit L, the net is
    /// gain_i (1 - L (1 - rho_j)) - loss_j (1 - L (1 - rho_i)).
    /// </summary>
    private int ClimbWithLending(AllocationSnapshot snapshot, YouthWeights weights, int[] cores, int floor, int guard)
    {
        int m = cores.Length;
        int moves = 0;
        var gain = new double[m];
        var loss = new double[m];
        var busyUp = new double[m];
        var busyTop = new double[m];
        while (moves < guard)
        {
            for (int i = 0; i < m; i++)
            {
                gain[i] = Gain(snapshot, weights, i, cores[i]);
                loss[i] = cores[i] > floor ? Gain(snapshot, weights, i, cores[i] - 1) : double.PositiveInfinity;
                busyUp[i] = BusyShare(snapshot, i, cores[i]);
                busyTop[i] = cores[i] >= 2 ? BusyShare(snapshot, i, cores[i] - 1) : 1;
            }

            int receiver = -1, donor = -1;
            double best = Math.Max(MoveThreshold, 1e-12);
            for (int i = 0; i < m; i++)
            {
                if (double.IsNegativeInfinity(gain[i]))
                {
                    continue;
                }

                for (int j = 0; j < m; j++)
                {
                    if (j == i || double.IsPositiveInfinity(loss[j]))
                    {
                        continue;
                    }

                    double net = (gain[i] * (1 - (LendingCredit * (1 - busyTop[j])))) - (loss[j] * (1 - (LendingCredit * (1 - busyUp[i]))));
                    if (net > best)
                    {
                        (receiver, donor, best) = (i, j, net);
                    }
                }
            }

            if (receiver < 0)
            {
                break;
            }

            cores[donor]--;
            cores[receiver]++;
            moves++;
        }

        return moves;
    }

    /// <summary>
    /// The share of the time program i's (c+1)-th core would be busy on c + 1 cores, c (S(c+1) / S(c) - 1), in [0, 1];
    /// 0 at c = 0 or past the machine.
    /// </summary>
    private static double BusyShare(AllocationSnapshot snapshot, int i, int c)
    {
        if (c <= 0 || c >= snapshot.CoreCount)
        {
            return c <= 0 ? 1 : 0;
        }

        double share = c * ((Speedup(snapshot, i, c + 1) / Speedup(snapshot, i, c)) - 1);
        return Math.Clamp(share, 0, 1);
    }

    /// <summary>Predicted normalised progress of program i on c cores: S(c) / S(n).</summary>
    private static double Progress(AllocationSnapshot snapshot, int i, int c) =>
        c == 0 ? 0 : Speedup(snapshot, i, c) / Speedup(snapshot, i, snapshot.CoreCount);

    /// <summary>The objective's gain from program i's (c+1)-th core: log(S(c+1) / S(c)); the first core counts as +inf... capped.</summary>
    private double Gain(AllocationSnapshot snapshot, YouthWeights weights, int i, int c)
    {
        if (c >= snapshot.CoreCount)
        {
            return double.NegativeInfinity;
        }

        if (c == 0)
        {
            return 1e6; // a program's first core: worth more than any other (the log objective is -inf without it)
        }

        return Utility(snapshot, weights, i, c + 1) - Utility(snapshot, weights, i, c);
    }

    /// <summary>The alpha-fair utility of program i's predicted progress on c (at least 1) cores, weighted by youth.</summary>
    private double Utility(AllocationSnapshot snapshot, YouthWeights weights, int i, int c)
    {
        double progress = Progress(snapshot, i, c);
        double u = Fairness == 1 ? Math.Log(progress) : Math.Pow(progress, 1 - Fairness) / (1 - Fairness);
        return weights.Apply(i, u);
    }

    /// <summary>Tie-break: whether program a is preferred to b (more cores held now, then the earlier one).</summary>
    private static bool Prefer(AllocationSnapshot snapshot, int a, int b)
    {
        int ca = snapshot.Programs[a].CurrentCores, cb = snapshot.Programs[b].CurrentCores;
        return ca != cb ? ca > cb : a < b;
    }

    private static double Speedup(AllocationSnapshot snapshot, int i, int cores)
    {
        var p = snapshot.Programs[i];
        if (p.Estimate is { } estimate)
        {
            return Math.Max(estimate.SpeedupAt(cores), 1e-9);
        }

        if (p.Table is { } table)
        {
            return Math.Max(table.SpeedupAt(cores), 1e-9);
        }

        int n = snapshot.CoreCount;
        return n == 1 ? 1 : 1 + ((p.Speedup - 1) * (cores - 1) / (n - 1));
    }

    /// <summary>
    /// The programs' youth weights for one snapshot, computed once per <see cref="Allocate"/> or
    /// <see cref="Evaluate"/> (the climb scores O(n m) utilities).
    /// </summary>
    private readonly struct YouthWeights
    {
        private readonly double[]? _weights;
        private readonly double _youngest;

        private YouthWeights(double[] weights, double youngest) => (_weights, _youngest) = (weights, youngest);

        /// <summary>
        /// Each program's weight (1 + a / 1 s)^-<see cref="YouthBias"/> for its age a (its stated expected lifetime, else
        /// the estimate's busy-period age, capped at <see cref="AgeHorizon"/>; 1 with neither), and the largest of them;
        /// none with no bias.
        /// </summary>
        public static YouthWeights Of(LearnedScalabilityPolicy policy, AllocationSnapshot snapshot)
        {
            if (policy.YouthBias == 0)
            {
                return default;
            }

            var weights = new double[snapshot.Programs.Count];
            double youngest = 0;
            for (int i = 0; i < weights.Length; i++)
            {
                // A stated lifetime, while believed, replaces the observed age (both capped at the horizon); neither: weight 1.
                double? seconds = snapshot.Programs[i].BelievedLifetime?.TotalSeconds ?? snapshot.Programs[i].Estimate?.Age.TotalSeconds;
                weights[i] = seconds is double age
                    ? Math.Pow(1 + (Math.Min(age, AgeHorizon.TotalSeconds) / AgeScale.TotalSeconds), -policy.YouthBias)
                    : 1;
                youngest = Math.Max(youngest, weights[i]);
            }

            return new YouthWeights(weights, youngest);
        }

        /// <summary>
        /// Utility u of program i weighted relative to the youngest program's weight, so the move threshold keeps its
        /// meaning (for programs of equal age every weight is 1: exactly the unweighted objective).
        /// </summary>
        public double Apply(int i, double u) => _weights is null ? u : u * _weights[i] / _youngest;
    }
}
