using DivCon.Schedulers.Multiprogram.Estimation;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Schedulers.Tests.Multiprogram;

/// <summary>Bursts first on plain data: the estimate's burst share, the roles and the default policy's decisions.</summary>
public class BurstPriorityTests
{
    /// <summary>An estimator whose window never fades and that never declares a phase change: sums are exact.</summary>
    private static ScalabilityEstimator Exact(int cores) =>
        new(cores, prior: null, new ScalabilityEstimatorOptions
        {
            HalfLife = TimeSpan.FromDays(3650), PhaseChangeTail = 0, GuessCoreSeconds = 0,
        });

    /// <summary>
    /// A sort-like program on 16 cores: 1 s at demand 1 (1 core-second), then 0.25 s at demand 116 (16 tasks at a
    /// time, 4 core-seconds at level 16). Alone it takes 1 s narrow and 0.25 s wide.
    /// </summary>
    private static ScalabilityEstimate Bursty()
    {
        var estimator = Exact(16);
        estimator.Observe(TimeSpan.FromSeconds(1), running: 1, queued: 0);
        estimator.Observe(TimeSpan.FromSeconds(0.25), running: 16, queued: 100);
        return estimator.Current;
    }

    /// <summary>A program always wider than the machine, running <paramref name="running"/> of 16 possible tasks for 1 s.</summary>
    private static ScalabilityEstimate Saturated(int running)
    {
        var estimator = Exact(16);
        estimator.Observe(TimeSpan.FromSeconds(1), running, queued: 32);
        return estimator.Current;
    }

    private static ProgramState Program(int id, int held, ScalabilityEstimate? estimate) =>
        new(new ProgramId(id), 1, 8, held) { Estimate = estimate };

    [Fact]
    public void The_burst_share_is_the_share_of_alone_time_spent_wider_than_the_homes()
    {
        var bursty = Bursty();
        foreach (int cores in new[] { 1, 4, 8, 15 })
        {
            Assert.Equal(0.2, bursty.BurstShare(cores), 6); // 0.25 s wide of 1.25 s
        }

        Assert.Equal(1, bursty.BurstShare(0), 9);  // every demand exceeds no cores
        Assert.Equal(0, bursty.BurstShare(16), 9); // nothing is wider than the machine
        Assert.Equal(1, Saturated(16).BurstShare(15), 9);
        Assert.Equal(1, new ScalabilityEstimator(16).Current.BurstShare(4)); // no work observed yet
    }

    [Fact]
    public void The_burst_share_refuses_core_counts_outside_the_machine()
    {
        var estimate = Bursty();
        Assert.Equal("cores", Assert.Throws<ArgumentOutOfRangeException>(() => estimate.BurstShare(-1)).ParamName);
        Assert.Equal("cores", Assert.Throws<ArgumentOutOfRangeException>(() => estimate.BurstShare(17)).ParamName);
    }

    [Fact]
    public void A_bursty_program_beside_a_saturated_one_is_served_first_and_the_saturated_one_yields()
    {
        var snapshot = new AllocationSnapshot(16, [Program(0, 8, Bursty()), Program(1, 8, Saturated(12))]);
        Assert.Equal([BurstRole.Bursty, BurstRole.Yields], BurstPriority.Classify(snapshot, [8, 8]));

        // The default policy carries them (its split here is its own; the roles follow the split it made).
        var decision = new LearnedScalabilityPolicy().Allocate(snapshot);
        Assert.Equal(16, decision.Cores.Sum());
        Assert.Equal(BurstPriority.Classify(snapshot, decision.Cores), decision.BurstRoles);
        Assert.Null(new LearnedScalabilityPolicy { PrioritisesBursts = false }.Allocate(snapshot).BurstRoles);
    }

    [Fact]
    public void A_saturated_program_well_behind_the_others_does_not_yield()
    {
        // Progress: the bursty program ran at its alone speed (1), the saturated one at 7 of 16 possible tasks (0.44),
        // below half the best: it keeps its workers (the burst still gets idle cores first).
        var behind = new AllocationSnapshot(16, [Program(0, 8, Bursty()), Program(1, 8, Saturated(7))]);
        Assert.Equal(0.4375, behind.Programs[1].Estimate!.Progress, 9);
        Assert.Equal([BurstRole.Bursty, BurstRole.None], BurstPriority.Classify(behind, [8, 8]));

        // At exactly half it yields.
        var half = new AllocationSnapshot(16, [Program(0, 8, Bursty()), Program(1, 8, Saturated(8))]);
        Assert.Equal([BurstRole.Bursty, BurstRole.Yields], BurstPriority.Classify(half, [8, 8]));
    }

    [Fact]
    public void A_saturated_program_that_states_a_short_lifetime_keeps_its_workers()
    {
        // It would get the time it yields back later; one that will be gone within seconds has no later. From the
        // youth weight's horizon (10 s) on, or with no lifetime stated, it yields as before.
        ProgramState Saturating(TimeSpan? lifetime) => Program(1, 8, Saturated(12)) with { ExpectedLifetime = lifetime };
        AllocationSnapshot Beside(TimeSpan? lifetime) => new(16, [Program(0, 8, Bursty()), Saturating(lifetime)]);
        Assert.Equal([BurstRole.Bursty, BurstRole.None], BurstPriority.Classify(Beside(TimeSpan.FromSeconds(2)), [8, 8]));
        Assert.Equal([BurstRole.Bursty, BurstRole.None], BurstPriority.Classify(Beside(TimeSpan.FromSeconds(9.9)), [8, 8]));
        Assert.Equal([BurstRole.Bursty, BurstRole.Yields], BurstPriority.Classify(Beside(LearnedScalabilityPolicy.AgeHorizon), [8, 8]));
        Assert.Equal([BurstRole.Bursty, BurstRole.Yields], BurstPriority.Classify(Beside(null), [8, 8]));

        // Busy for 12 s after stating 2 s: the statement is outlived past the horizon, and it yields again.
        var estimator = Exact(16);
        estimator.Observe(TimeSpan.FromSeconds(12), running: 12, queued: 32);
        var outlived = Program(1, 8, estimator.Current) with { ExpectedLifetime = TimeSpan.FromSeconds(2) };
        Assert.Equal([BurstRole.Bursty, BurstRole.Yields], BurstPriority.Classify(new AllocationSnapshot(16, [Program(0, 8, Bursty()), outlived]), [8, 8]));
    }

    [Fact]
    public void Without_a_burst_nobody_has_a_part()
    {
        // Two saturated programs: nothing to serve first.
        Assert.Null(BurstPriority.Classify(new AllocationSnapshot(16, [Program(0, 8, Saturated(12)), Program(1, 8, Saturated(12))]), [8, 8]));

        // Two bursty programs: nobody yields, but idle cores go to their bursts first.
        Assert.Equal(
            [BurstRole.Bursty, BurstRole.Bursty],
            BurstPriority.Classify(new AllocationSnapshot(16, [Program(0, 8, Bursty()), Program(1, 8, Bursty())]), [8, 8]));

        // One program: alone it holds every core anyway.
        Assert.Null(BurstPriority.Classify(new AllocationSnapshot(16, [Program(0, 16, Bursty())]), [16]));

        // No estimate (a hand-built snapshot), or one not settled yet (0.2 core-seconds observed): no part.
        var young = Exact(16);
        young.Observe(TimeSpan.FromSeconds(0.1), running: 2, queued: 0);
        Assert.False(young.Current.IsSettled);
        Assert.Null(BurstPriority.Classify(new AllocationSnapshot(16, [Program(0, 8, null), Program(1, 8, Saturated(12))]), [8, 8]));
        Assert.Null(BurstPriority.Classify(new AllocationSnapshot(16, [Program(0, 8, young.Current), Program(1, 8, Saturated(12))]), [8, 8]));

        // A bursty program holding every core (the other one none: more programs than cores) has nothing to gain.
        Assert.Null(BurstPriority.Classify(new AllocationSnapshot(16, [Program(0, 16, Bursty()), Program(1, 0, Saturated(12))]), [16, 0]));
    }

    [Fact]
    public void A_program_that_is_wide_half_of_its_time_is_neither()
    {
        // 1 core-second at demand 1 and 16 core-seconds at demand 16 or more: alone, 1 s narrow and 1 s wide.
        var estimator = Exact(16);
        estimator.Observe(TimeSpan.FromSeconds(1), running: 1, queued: 0);
        estimator.Observe(TimeSpan.FromSeconds(1), running: 16, queued: 16);
        var half = estimator.Current;
        Assert.Equal(0.5, half.BurstShare(8), 6);
        var roles = BurstPriority.Classify(new AllocationSnapshot(16, [Program(0, 4, Bursty()), Program(1, 8, half), Program(2, 4, Saturated(12))]), [4, 8, 4]);
        Assert.Equal([BurstRole.Bursty, BurstRole.None, BurstRole.Yields], roles);
    }

    [Fact]
    public void Classification_checks_its_arguments()
    {
        var snapshot = new AllocationSnapshot(16, [Program(0, 8, Bursty()), Program(1, 8, Saturated(12))]);
        Assert.Throws<ArgumentNullException>(() => BurstPriority.Classify(null!, [8, 8]));
        Assert.Throws<ArgumentNullException>(() => BurstPriority.Classify(snapshot, null!));
        Assert.Equal("cores", Assert.Throws<ArgumentException>(() => BurstPriority.Classify(snapshot, [16])).ParamName);
    }
}
