using DivCon.Schedulers.Multiprogram.Estimation;
using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram.Policies;

/// <summary>
/// "Bursts first": which programs' wide phases go before which programs' work, from each program's estimate and its
/// home cores (policies README, "Bursts first"). Pure: plain data in, roles out.
/// </summary>
/// <remarks>
/// A program whose demand exceeds its homes only a small share of the time (<see cref="ScalabilityEstimate.BurstShare"/>
/// below <see cref="BurstyBelow"/>: a sort in its merges, a program with sequential sweeps) is <see cref="BurstRole.Bursty"/>;
/// one whose demand exceeds its homes nearly all the time (at least <see cref="SaturatedFrom"/>: many short runs, a
/// flat loop) <see cref="BurstRole.Yields"/>, unless its recent progress (<see cref="ScalabilityEstimate.Progress"/>)
/// is below <see cref="YieldFloor"/> of the best-served program's, or it has stated a lifetime shorter than the youth
/// weight's horizon (<see cref="ProgramState.ExpectedLifetime"/>: it will be gone before it could get the time back).
/// A saturated program turns every core it is given into work, so the core time it yields to a burst it gets back
/// when the burst is over (the bursty program's homes are lent in its narrow phases): to first order its throughput is
/// unchanged, while the burst, and with it the bursty program's run, finishes sooner. Shortest job first, applied to
/// phases; the floor keeps the yielding program from being served far worse than the rest. Idle cores, too, go to
/// bursty programs before the others; among several bursts, the earliest registered program's first, so that one
/// burst finishes early rather than all late (first come, first served beats sharing for equal jobs).
/// </remarks>
internal static class BurstPriority
{
    /// <summary>A program is bursty below this burst share on its homes (0.4).</summary>
    public const double BurstyBelow = 0.4;

    /// <summary>A program is saturated from this burst share on its homes (0.7).</summary>
    public const double SaturatedFrom = 0.7;

    /// <summary>A saturated program yields only while its progress is at least this share of the best-served program's (0.5).</summary>
    public const double YieldFloor = 0.5;

    /// <summary>
    /// The roles for a decision's allocation, or <see langword="null"/> when no program is bursty. Only programs with a
    /// settled estimate and homes short of the machine take part.
    /// </summary>
    /// <param name="snapshot">The workload the decision was made from.</param>
    /// <param name="cores">The decision's cores per program, in snapshot order.</param>
    /// <returns>A role per program, in snapshot order; or null.</returns>
    /// <exception cref="ArgumentException">The counts do not match the programs.</exception>
    public static BurstRole[]? Classify(AllocationSnapshot snapshot, IReadOnlyList<int> cores)
    {
        AllocationScoring.CheckArguments(snapshot, cores);
        int m = snapshot.Programs.Count;
        if (m < 2)
        {
            return null;
        }

        double bestProgress = 0;
        foreach (var program in snapshot.Programs)
        {
            if (program.Estimate is { } estimate)
            {
                bestProgress = Math.Max(bestProgress, estimate.Progress);
            }
        }

        var roles = new BurstRole[m];
        bool anyBursty = false;
        for (int i = 0; i < m; i++)
        {
            if (snapshot.Programs[i].Estimate is not { IsSettled: true } estimate || cores[i] >= snapshot.CoreCount)
            {
                continue;
            }

            double share = estimate.BurstShare(cores[i]);
            if (share > 0 && share < BurstyBelow)
            {
                roles[i] = BurstRole.Bursty;
                anyBursty = true;
            }
            else if (share >= SaturatedFrom && estimate.Progress >= YieldFloor * bestProgress && StaysLong(snapshot.Programs[i]))
            {
                roles[i] = BurstRole.Yields;
            }
        }

        return anyBursty ? roles : null;
    }

    /// <summary>
    /// Whether a program may yield for its lifetime: it states none, or one of at least the youth weight's horizon
    /// (<see cref="LearnedScalabilityPolicy.AgeHorizon"/>), or it has outlived what it stated by that much
    /// (<see cref="ProgramState.BelievedLifetime"/>). A yielding program gets the time it gives a burst back later;
    /// one that has said it will be gone within seconds has no later, and its normalised turnaround is the mean of
    /// few runs, so it keeps its workers.
    /// </summary>
    private static bool StaysLong(ProgramState program) =>
        program.BelievedLifetime is not { } lifetime || lifetime >= LearnedScalabilityPolicy.AgeHorizon;

    /// <summary>A program's runs count as its typical length from this many completed runs (3).</summary>
    public const int RunsToKnowLength = 3;

    /// <summary>
    /// "Long runs first" (the default policy's, <see cref="LearnedScalabilityPolicy.LongRunsFirst"/>; policies README):
    /// adds roles for a program that has completed fewer than <see cref="RunsToKnowLength"/> runs and whose current run
    /// has lasted more than <paramref name="factor"/> times the mean run of another program that has completed at least
    /// that many: it is <see cref="BurstRole.Bursty"/>, and every program with such short runs yields, unless it is
    /// bursty already or its progress is below <see cref="YieldFloor"/> of the best-served program's. A program's
    /// normalised turnaround is the mean over its own runs, so the same delay costs a program present for one or two
    /// long runs far more than one that completes many short runs, whose loss falls on few of them. A program past its
    /// first runs is left alone: between two programs that both stay, the rule would only move time from one to the
    /// other. Needs <see cref="ProgramState.Runs"/>; programs without it take no part.
    /// </summary>
    /// <param name="snapshot">The workload the decision was made from.</param>
    /// <param name="cores">The decision's cores per program, in snapshot order.</param>
    /// <param name="roles">The roles from <see cref="Classify"/> (or null), kept where this rule adds none.</param>
    /// <param name="factor">How many mean runs of another program a run must outlast; at least 1.</param>
    /// <returns>The merged roles, or <paramref name="roles"/> when no run is long.</returns>
    /// <exception cref="ArgumentException">The counts do not match the programs.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="factor"/> is below 1 or not a number.</exception>
    public static BurstRole[]? WithLongRunsFirst(AllocationSnapshot snapshot, IReadOnlyList<int> cores, BurstRole[]? roles, double factor)
    {
        AllocationScoring.CheckArguments(snapshot, cores);
        if (!(factor >= 1))
        {
            throw new ArgumentOutOfRangeException(nameof(factor), factor, "The factor must be at least 1.");
        }

        int m = snapshot.Programs.Count;
        if (m < 2)
        {
            return roles;
        }

        double bestProgress = 0;
        foreach (var program in snapshot.Programs)
        {
            bestProgress = Math.Max(bestProgress, program.Estimate?.Progress ?? 1);
        }

        // A run is long against another program's runs only where that program's length is known, so only the
        // shortest known mean matters. A program in its first runs has no known length itself, so it is never compared
        // with its own runs.
        double shortestKnown = double.PositiveInfinity;
        foreach (var program in snapshot.Programs)
        {
            if (program.Runs is { Completed: >= RunsToKnowLength, MeanRun: { } mean })
            {
                shortestKnown = Math.Min(shortestKnown, mean.TotalSeconds);
            }
        }

        var merged = roles is null ? new BurstRole[m] : (BurstRole[])roles.Clone();
        bool anyLong = false;
        double longest = 0;
        for (int i = 0; i < m; i++)
        {
            // Only a program in its first runs: one that has shown its typical length is past the case the rule serves.
            if (snapshot.Programs[i].Runs is { CurrentRunAge: { } age, Completed: < RunsToKnowLength } && cores[i] < snapshot.CoreCount
                && age.TotalSeconds > factor * shortestKnown)
            {
                merged[i] = BurstRole.Bursty;
                anyLong = true;
                longest = Math.Max(longest, age.TotalSeconds);
            }
        }

        if (!anyLong)
        {
            return roles;
        }

        for (int j = 0; j < m; j++)
        {
            var program = snapshot.Programs[j];
            if (merged[j] != BurstRole.Bursty && cores[j] < snapshot.CoreCount
                && program.Runs is { Completed: >= RunsToKnowLength, MeanRun: { } mean } && longest > factor * mean.TotalSeconds
                && (program.Estimate?.Progress ?? 1) >= YieldFloor * bestProgress && StaysLong(program))
            {
                merged[j] = BurstRole.Yields;
            }
        }

        return merged;
    }
}
