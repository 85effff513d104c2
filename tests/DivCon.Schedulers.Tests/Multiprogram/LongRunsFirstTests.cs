using DivCon.Schedulers.Multiprogram.Estimation;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Schedulers.Tests.Multiprogram;

/// <summary>"Long runs first" (the default policy's) on plain data: which runs count as long and who yields to them.</summary>
public class LongRunsFirstTests
{
    private static ProgramState Program(int id, int held, RunHistory? runs, ScalabilityEstimate? estimate = null) =>
        new(new ProgramId(id), 1, 8, held) { Runs = runs, Estimate = estimate };

    /// <summary>A program that has completed <paramref name="completed"/> runs of <paramref name="meanMs"/> ms and is <paramref name="currentMs"/> ms into the next.</summary>
    private static RunHistory Cyclic(int completed, double meanMs, double currentMs) =>
        new(completed, TimeSpan.FromMilliseconds(completed * meanMs), TimeSpan.FromMilliseconds(currentMs));

    private static RunHistory FirstRun(double ageMs) => new(0, TimeSpan.Zero, TimeSpan.FromMilliseconds(ageMs));

    [Fact]
    public void A_cyclic_program_that_states_a_short_lifetime_does_not_yield_to_a_long_first_run()
    {
        // The long run is still bursty (idle cores go to it first), but a program that will be gone within seconds
        // keeps its workers: it could not get the time back.
        var shortLived = Program(0, 8, Cyclic(10, 40, 20)) with { ExpectedLifetime = TimeSpan.FromSeconds(1) };
        var snapshot = new AllocationSnapshot(16, [shortLived, Program(1, 8, FirstRun(200))]);
        Assert.Equal([BurstRole.None, BurstRole.Bursty], BurstPriority.WithLongRunsFirst(snapshot, [8, 8], null, 4));
        var longLived = shortLived with { ExpectedLifetime = TimeSpan.FromMinutes(1) };
        Assert.Equal([BurstRole.Yields, BurstRole.Bursty], BurstPriority.WithLongRunsFirst(new AllocationSnapshot(16, [longLived, Program(1, 8, FirstRun(200))]), [8, 8], null, 4));
    }

    [Fact]
    public void A_first_run_longer_than_four_runs_of_a_cyclic_program_gets_that_programs_workers()
    {
        var snapshot = new AllocationSnapshot(16, [Program(0, 8, Cyclic(10, 40, 20)), Program(1, 8, FirstRun(200))]);
        Assert.Equal([BurstRole.Yields, BurstRole.Bursty], BurstPriority.WithLongRunsFirst(snapshot, [8, 8], null, 4));

        // 4 x 40 ms = 160 ms: a run must last longer than that.
        Assert.Null(BurstPriority.WithLongRunsFirst(new AllocationSnapshot(16, [Program(0, 8, Cyclic(10, 40, 20)), Program(1, 8, FirstRun(160))]), [8, 8], null, 4));
        Assert.Null(BurstPriority.WithLongRunsFirst(new AllocationSnapshot(16, [Program(0, 8, Cyclic(10, 40, 20)), Program(1, 8, FirstRun(150))]), [8, 8], null, 4));
        Assert.Equal(
            [BurstRole.Yields, BurstRole.Bursty],
            BurstPriority.WithLongRunsFirst(new AllocationSnapshot(16, [Program(0, 8, Cyclic(10, 40, 20)), Program(1, 8, FirstRun(150))]), [8, 8], null, 3));
    }

    [Fact]
    public void Only_a_program_in_its_first_runs_is_long()
    {
        // 400 ms is ten of the short program's runs, but the program has completed five of its own: left alone.
        var ordinary = new AllocationSnapshot(16, [Program(0, 8, Cyclic(10, 40, 20)), Program(1, 8, Cyclic(5, 300, 400))]);
        Assert.Null(BurstPriority.WithLongRunsFirst(ordinary, [8, 8], null, 4));

        // Even a run far longer than its own mean (1,300 ms against 300 ms).
        var stuck = new AllocationSnapshot(16, [Program(0, 8, Cyclic(10, 40, 20)), Program(1, 8, Cyclic(5, 300, 1300))]);
        Assert.Null(BurstPriority.WithLongRunsFirst(stuck, [8, 8], null, 4));

        // Its third run (two completed) still counts as one of its first.
        var third = new AllocationSnapshot(16, [Program(0, 8, Cyclic(10, 40, 20)), Program(1, 8, Cyclic(BurstPriority.RunsToKnowLength - 1, 300, 400))]);
        Assert.Equal([BurstRole.Yields, BurstRole.Bursty], BurstPriority.WithLongRunsFirst(third, [8, 8], null, 4));
    }

    [Fact]
    public void Fewer_than_three_completed_runs_give_no_typical_length()
    {
        var early = new AllocationSnapshot(16, [Program(0, 8, Cyclic(BurstPriority.RunsToKnowLength - 1, 40, 20)), Program(1, 8, FirstRun(500))]);
        Assert.Null(BurstPriority.WithLongRunsFirst(early, [8, 8], null, 4));
    }

    [Fact]
    public void The_roles_of_bursts_first_are_kept_and_a_program_far_behind_does_not_yield()
    {
        // Program 0 is bursty by bursts first and has no run information; program 1 completes short runs; program 2's
        // first run is long.
        var snapshot = new AllocationSnapshot(16, [Program(0, 4, null), Program(1, 8, Cyclic(10, 40, 20)), Program(2, 4, FirstRun(300))]);
        BurstRole[] classified = [BurstRole.Bursty, BurstRole.None, BurstRole.None];
        Assert.Equal([BurstRole.Bursty, BurstRole.Yields, BurstRole.Bursty], BurstPriority.WithLongRunsFirst(snapshot, [4, 8, 4], classified, 4));
        Assert.Equal([BurstRole.Bursty, BurstRole.None, BurstRole.None], classified); // the input is not changed

        // A short-run program that ran at 7 of its 16 possible tasks (progress 0.44, below half of the best, 1) keeps its workers.
        var estimator = new ScalabilityEstimator(16, prior: null, new ScalabilityEstimatorOptions { HalfLife = TimeSpan.FromDays(3650), PhaseChangeTail = 0, GuessCoreSeconds = 0 });
        estimator.Observe(TimeSpan.FromSeconds(1), running: 7, queued: 32);
        Assert.Equal(0.4375, estimator.Current.Progress, 9);
        var behind = new AllocationSnapshot(16, [Program(0, 8, Cyclic(10, 40, 20), estimator.Current), Program(1, 8, FirstRun(300))]);
        Assert.Equal([BurstRole.None, BurstRole.Bursty], BurstPriority.WithLongRunsFirst(behind, [8, 8], null, 4));
    }

    [Fact]
    public void Without_runs_alone_or_holding_every_core_nothing_changes()
    {
        BurstRole[] given = [BurstRole.None, BurstRole.None];
        var unknown = new AllocationSnapshot(16, [Program(0, 8, null), Program(1, 8, null)]);
        Assert.Same(given, BurstPriority.WithLongRunsFirst(unknown, [8, 8], given, 4));
        Assert.Null(BurstPriority.WithLongRunsFirst(new AllocationSnapshot(16, [Program(0, 16, FirstRun(900))]), [16], null, 4));

        // The long run's program already holds the machine (the other none): nothing to take.
        var holding = new AllocationSnapshot(16, [Program(0, 0, Cyclic(10, 40, 20)), Program(1, 16, FirstRun(300))]);
        Assert.Null(BurstPriority.WithLongRunsFirst(holding, [0, 16], null, 4));

        // Between runs (no current run) a program is not long.
        var between = new AllocationSnapshot(16, [Program(0, 8, Cyclic(10, 40, 20)), Program(1, 8, new RunHistory(0, TimeSpan.Zero, null))]);
        Assert.Null(BurstPriority.WithLongRunsFirst(between, [8, 8], null, 4));
    }

    [Fact]
    public void The_rule_checks_its_arguments_by_name()
    {
        var snapshot = new AllocationSnapshot(16, [Program(0, 8, Cyclic(10, 40, 20)), Program(1, 8, FirstRun(200))]);
        Assert.Equal("factor", Assert.Throws<ArgumentOutOfRangeException>(() => BurstPriority.WithLongRunsFirst(snapshot, [8, 8], null, 0.5)).ParamName);
        Assert.Equal("factor", Assert.Throws<ArgumentOutOfRangeException>(() => BurstPriority.WithLongRunsFirst(snapshot, [8, 8], null, double.NaN)).ParamName);
        Assert.Equal("cores", Assert.Throws<ArgumentException>(() => BurstPriority.WithLongRunsFirst(snapshot, [16], null, 4)).ParamName);
        Assert.Throws<ArgumentNullException>(() => BurstPriority.WithLongRunsFirst(null!, [8, 8], null, 4));
    }

    [Fact]
    public void The_policy_adds_the_roles_by_default_and_only_with_bursts_first()
    {
        var snapshot = new AllocationSnapshot(16, [Program(0, 8, Cyclic(10, 40, 20)), Program(1, 8, FirstRun(200))]);
        var asked = new LearnedScalabilityPolicy().Allocate(snapshot);
        Assert.Equal(16, asked.Cores.Sum());
        Assert.Equal(BurstPriority.WithLongRunsFirst(snapshot, asked.Cores, BurstPriority.Classify(snapshot, asked.Cores), 4), asked.BurstRoles);
        Assert.NotNull(asked.BurstRoles);

        Assert.Null(new LearnedScalabilityPolicy { LongRunsFirst = 0 }.Allocate(snapshot).BurstRoles); // off (and no estimates to classify)
        Assert.Null(new LearnedScalabilityPolicy { PrioritisesBursts = false }.Allocate(snapshot).BurstRoles);
        // A factor of 6 needs the 200 ms run to outlast 240 ms: not yet.
        Assert.Null(new LearnedScalabilityPolicy { LongRunsFirst = 6 }.Allocate(snapshot).BurstRoles);
    }

    [Fact]
    public void The_factor_defaults_to_four_and_refuses_values_below_one_but_zero()
    {
        Assert.Equal(LearnedScalabilityPolicy.DefaultLongRunsFirst, new LearnedScalabilityPolicy().LongRunsFirst);
        Assert.Equal(4, LearnedScalabilityPolicy.DefaultLongRunsFirst);
        Assert.Equal(0, new LearnedScalabilityPolicy { LongRunsFirst = 0 }.LongRunsFirst);
        Assert.Equal(1, new LearnedScalabilityPolicy { LongRunsFirst = 1 }.LongRunsFirst);
        foreach (double bad in new[] { 0.9, -1, double.NaN, double.PositiveInfinity })
        {
            var thrown = Assert.Throws<ArgumentOutOfRangeException>(() => new LearnedScalabilityPolicy { LongRunsFirst = bad });
            Assert.Equal("value", thrown.ParamName);
            Assert.Contains("LongRunsFirst", thrown.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void A_run_history_knows_its_mean_run()
    {
        Assert.Null(FirstRun(10).MeanRun);
        Assert.Equal(TimeSpan.FromMilliseconds(40), Cyclic(10, 40, 0).MeanRun);
    }
}
