using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Decisions;
using DivCon.Schedulers.Multiprogram.Estimation;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Multiprogram.Profiles;

namespace DivCon.Schedulers.Tests.Multiprogram;

/// <summary>The online scalability estimator and the default policy built on it, on plain data.</summary>
public class LearnedScalabilityTests
{
    private static readonly TimeSpan Tick = TimeSpan.FromMilliseconds(100);

    /// <summary>An estimator whose window never fades and that never declares a phase change: sums are exact.</summary>
    private static ScalabilityEstimator Exact(int cores, ScalabilityTable? prior = null, double priorCoreSeconds = 0.5) =>
        new(cores, prior, new ScalabilityEstimatorOptions
        {
            HalfLife = TimeSpan.FromDays(3650), PhaseChangeTail = 0, PriorCoreSeconds = priorCoreSeconds, GuessCoreSeconds = priorCoreSeconds,
        });

    [Fact]
    public void Before_any_work_a_program_is_taken_to_scale_linearly_or_as_its_prior_says()
    {
        var fresh = new ScalabilityEstimator(16).Current;
        Assert.Equal(16, fresh.CoreCount);
        Assert.All(Enumerable.Range(1, 16), c => Assert.Equal(c, fresh.SpeedupAt(c)));
        Assert.False(fresh.IsSettled);
        Assert.Equal(0, fresh.SpeedupAt(0));
        Assert.Equal(16, fresh.SpeedupAt(40)); // past the core count: the last value

        var prior = new ScalabilityTable([new ScalabilityPoint(16, 4)]);
        var withPrior = new ScalabilityEstimator(16, prior).Current;
        Assert.Equal(4, withPrior.SpeedupAt(16), 9);
        Assert.Equal(prior.SpeedupAt(8), withPrior.SpeedupAt(8), 9);
    }

    [Fact]
    public void Work_always_at_full_demand_gives_a_linear_curve()
    {
        var estimator = Exact(8);
        for (int i = 0; i < 30; i++)
        {
            estimator.Observe(Tick, running: 8, queued: 50);
        }

        var estimate = estimator.Current;
        Assert.All(Enumerable.Range(1, 8), c => Assert.Equal(c, estimate.SpeedupAt(c), 6));
        Assert.Equal(1.0, estimate.EfficiencyAt(8), 6);
        Assert.Equal(8, estimate.Demand, 6); // capped at the core count
        Assert.True(estimate.IsSettled);
        Assert.Equal(30 * 8 * 0.1, estimate.ObservedCoreSeconds, 6);
    }

    [Fact]
    public void Half_the_work_sequential_gives_the_harmonic_mean_by_hand()
    {
        // 8 cores: 0.8 core-s done at demand 1 (8 ticks with 1 running), 0.8 core-s at demand 8 (1 tick with 8 running).
        // S(c) = W / (W/2 / 1 + W/2 / c) = 2c / (c + 1).
        var estimator = Exact(8, priorCoreSeconds: 0);
        for (int i = 0; i < 8; i++)
        {
            estimator.Observe(Tick, running: 1, queued: 0);
        }

        estimator.Observe(Tick, running: 8, queued: 0);
        var estimate = estimator.Current;
        for (int c = 1; c <= 8; c++)
        {
            Assert.Equal(2.0 * c / (c + 1), estimate.SpeedupAt(c), 6);
        }
    }

    [Fact]
    public void A_prior_is_weighed_as_the_core_seconds_it_is_worth()
    {
        // Prior: 2 on 4 cores; observed: linear (4 on 4) over 0.4 core-seconds; prior worth 0.4 -> the mean, 3.
        var prior = new ScalabilityTable([new ScalabilityPoint(4, 2)]);
        var estimator = Exact(4, prior, priorCoreSeconds: 0.4);
        estimator.Observe(Tick, running: 4, queued: 4);
        Assert.Equal(3, estimator.Current.SpeedupAt(4), 6);
    }

    [Fact]
    public void The_linear_guess_weighs_its_own_core_seconds_and_a_profile_keeps_its_weight()
    {
        // 16 cores, one core busy for 10 ms at demand 1 (a sequential start): 0.01 core-s observed at S = 1. Without a
        // profile the linear guess (S(16) = 16) weighs GuessCoreSeconds, with one the profile weighs PriorCoreSeconds.
        var options = new ScalabilityEstimatorOptions { HalfLife = TimeSpan.FromDays(3650), PhaseChangeTail = 0, GuessCoreSeconds = 0.01, PriorCoreSeconds = 0.5 };
        var guessed = new ScalabilityEstimator(16, null, options);
        guessed.Observe(TimeSpan.FromMilliseconds(10), running: 1, queued: 0);
        Assert.Equal(((16 * 0.01) + 0.01) / 0.02, guessed.Current.SpeedupAt(16), 6);

        var profile = new ScalabilityTable([new ScalabilityPoint(16, 16)]);
        var profiled = new ScalabilityEstimator(16, profile, options);
        profiled.Observe(TimeSpan.FromMilliseconds(10), running: 1, queued: 0);
        Assert.Equal(((16 * 0.5) + 0.01) / 0.51, profiled.Current.SpeedupAt(16), 6);
        Assert.Equal("GuessCoreSeconds", Assert.Throws<ArgumentOutOfRangeException>(() => new ScalabilityEstimator(4, null, options with { GuessCoreSeconds = -1 })).ParamName);
    }

    [Fact]
    public void Old_work_fades_with_the_half_life()
    {
        // 1 core-s at demand 1, then one half-life of work at full demand (4 x 1 s): old work now weighs 0.5 core-s
        // against 4 core-s. S(4) = 4.5 / (0.5 + 4/4) = 3.
        var estimator = new ScalabilityEstimator(4, null, new ScalabilityEstimatorOptions
        {
            HalfLife = TimeSpan.FromSeconds(1), PhaseChangeTail = 0, PriorCoreSeconds = 0, GuessCoreSeconds = 0,
        });
        estimator.Observe(TimeSpan.FromSeconds(1), running: 1, queued: 0);
        estimator.Observe(TimeSpan.FromSeconds(1), running: 4, queued: 0);
        Assert.Equal(3, estimator.Current.SpeedupAt(4), 6);
    }

    [Fact]
    public void A_lasting_change_of_phase_is_followed_within_two_samples_and_a_usual_dip_is_not_one()
    {
        var options = new ScalabilityEstimatorOptions { HalfLife = TimeSpan.FromSeconds(100), PriorCoreSeconds = 0, GuessCoreSeconds = 0 };
        var wide = new ScalabilityEstimator(16, null, options);
        for (int i = 0; i < 50; i++)
        {
            wide.Observe(Tick, running: 16, queued: 100);
        }

        Assert.True(wide.Current.SpeedupAt(16) > 15.9);
        var blind = new ScalabilityEstimator(16, null, options with { PhaseChangeTail = 0 });
        for (int i = 0; i < 50; i++)
        {
            blind.Observe(Tick, running: 16, queued: 100);
        }

        // Work only ever ran at demand 16: any lower demand is outside the window; two samples make a change.
        wide.Observe(Tick, running: 1, queued: 0);
        Assert.Equal(0, wide.Current.PhaseChanges);
        wide.Observe(Tick, running: 1, queued: 0);
        Assert.Equal(1, wide.Current.PhaseChanges);
        for (int i = 0; i < 4; i++)
        {
            wide.Observe(Tick, running: 1, queued: 0);
        }

        for (int i = 0; i < 6; i++)
        {
            blind.Observe(Tick, running: 1, queued: 0);
        }

        // 0.6 s into a sequential phase: the estimate has followed it; without detection it would take a minute.
        Assert.True(wide.Current.SpeedupAt(16) < 4, wide.Current.ToString());
        Assert.True(blind.Current.SpeedupAt(16) > 14, blind.Current.ToString());

        // A program whose window holds sequential stretches (a sort's narrow top) dips to demand 1 every run: usual.
        var sort = new ScalabilityEstimator(16, null, options);
        int afterWarmUp = 0;
        for (int run = 0; run < 10; run++)
        {
            for (int i = 0; i < 5; i++)
            {
                sort.Observe(Tick, running: 1, queued: 0);
            }

            for (int i = 0; i < 3; i++)
            {
                sort.Observe(Tick, running: 16, queued: 40);
            }

            if (run == 1)
            {
                afterWarmUp = sort.Current.PhaseChanges;
            }
        }

        Assert.Equal(afterWarmUp, sort.Current.PhaseChanges);
    }

    [Fact]
    public void Any_observations_give_a_curve_from_1_that_never_falls_and_never_beats_linear()
    {
        var random = new Random(24);
        for (int trial = 0; trial < 200; trial++)
        {
            int n = random.Next(1, 65);
            var estimator = new ScalabilityEstimator(n);
            for (int i = random.Next(1, 60); i > 0; i--)
            {
                estimator.Observe(TimeSpan.FromMilliseconds(random.Next(0, 300)), random.Next(0, n + 1), random.Next(0, 3 * n));
            }

            var e = estimator.Current;
            Assert.Equal(1, e.SpeedupAt(1), 9);
            for (int c = 2; c <= n; c++)
            {
                Assert.True(e.SpeedupAt(c) >= e.SpeedupAt(c - 1) - 1e-12, $"trial {trial}: falls at {c}: {e}");
                Assert.True(e.SpeedupAt(c) <= c + 1e-9, $"trial {trial}: superlinear at {c}: {e}");
            }
        }
    }

    [Fact]
    public void Bad_input_names_the_parameter()
    {
        Assert.Throws<ArgumentOutOfRangeException>("coreCount", () => new ScalabilityEstimator(0));
        var estimator = new ScalabilityEstimator(4);
        Assert.Throws<ArgumentOutOfRangeException>("elapsed", () => estimator.Observe(TimeSpan.FromTicks(-1), 1, 0));
        Assert.Throws<ArgumentOutOfRangeException>("running", () => estimator.Observe(Tick, -1, 0));
        Assert.Throws<ArgumentOutOfRangeException>("queued", () => estimator.Observe(Tick, 1, -1));
        Assert.Throws<ArgumentOutOfRangeException>("HalfLife", () => new ScalabilityEstimator(4, null, new ScalabilityEstimatorOptions { HalfLife = TimeSpan.Zero }));
        Assert.Throws<ArgumentOutOfRangeException>("DemandHalfLife", () => new ScalabilityEstimator(4, null, new ScalabilityEstimatorOptions { DemandHalfLife = TimeSpan.Zero }));
        Assert.Throws<ArgumentOutOfRangeException>("PriorCoreSeconds", () => new ScalabilityEstimator(4, null, new ScalabilityEstimatorOptions { PriorCoreSeconds = double.NaN }));
        Assert.Throws<ArgumentOutOfRangeException>("PhaseChangeTail", () => new ScalabilityEstimator(4, null, new ScalabilityEstimatorOptions { PhaseChangeTail = 0.5 }));
        Assert.Throws<ArgumentOutOfRangeException>("PhaseChangeAfter", () => new ScalabilityEstimator(4, null, new ScalabilityEstimatorOptions { PhaseChangeAfter = TimeSpan.FromTicks(-1) }));
        Assert.Throws<ArgumentOutOfRangeException>("cores", () => estimator.Current.SpeedupAt(-1));
        Assert.Throws<ArgumentOutOfRangeException>("cores", () => estimator.Current.EfficiencyAt(0));
        Assert.Throws<ArgumentOutOfRangeException>("moveThreshold", () => new LearnedScalabilityPolicy(moveThreshold: -0.1));
        Assert.Throws<ArgumentOutOfRangeException>("moveThreshold", () => new LearnedScalabilityPolicy(moveThreshold: double.PositiveInfinity));
        Assert.Throws<ArgumentOutOfRangeException>("fairness", () => new LearnedScalabilityPolicy(fairness: 2.5));
        Assert.Throws<ArgumentOutOfRangeException>("fairness", () => new LearnedScalabilityPolicy(fairness: double.NaN));
        Assert.Throws<ArgumentOutOfRangeException>("youthBias", () => new LearnedScalabilityPolicy(youthBias: -0.1));
        Assert.Throws<ArgumentOutOfRangeException>("youthBias", () => new LearnedScalabilityPolicy(youthBias: 4.5));
        Assert.Throws<ArgumentOutOfRangeException>("youthBias", () => new LearnedScalabilityPolicy(youthBias: double.NaN));
        Assert.Throws<ArgumentOutOfRangeException>("lendingCredit", () => new LearnedScalabilityPolicy(lendingCredit: -0.1));
        Assert.Throws<ArgumentOutOfRangeException>("lendingCredit", () => new LearnedScalabilityPolicy(lendingCredit: 1.5));
        Assert.Throws<ArgumentOutOfRangeException>("lendingCredit", () => new LearnedScalabilityPolicy(lendingCredit: double.NaN));
        Assert.Throws<ArgumentOutOfRangeException>("options", () => new MultiprogramScheduler(new MultiprogramSchedulerOptions
        {
            Pin = false, WorkerCount = 1, EstimatorSampleInterval = TimeSpan.FromMilliseconds(-5),
        }));
    }

    /// <summary>A program state whose estimate comes from a fixed demand (work always at that demand) over its age.</summary>
    private static ProgramState Program(int id, int cores, int demand, int held, double ageSeconds = 1)
    {
        var estimator = Exact(cores, priorCoreSeconds: 0);
        estimator.Observe(TimeSpan.FromSeconds(ageSeconds), running: Math.Min(demand, cores), queued: Math.Max(0, demand - cores));
        return new ProgramState(new ProgramId(id), 1, demand, held) { Estimate = estimator.Current };
    }

    [Fact]
    public void A_program_that_has_just_started_gets_more_cores_than_its_equal_that_has_run_for_a_while()
    {
        // Two programs alike in every way but age: the young one (0.5 s) weighs (1.5 / 11)^-1.5 = 20 times the one
        // busy for 10 s, so it gets most cores; the old keeps a share (its utility's slope grows without bound near 0).
        ProgramState[] programs = [Program(0, 16, 64, held: 8, ageSeconds: 10), Program(1, 16, 64, held: 8, ageSeconds: 0.5)];
        var snapshot = new AllocationSnapshot(16, programs);
        var cores = new LearnedScalabilityPolicy().Allocate(snapshot).Cores;
        Assert.Equal(16, cores.Sum());
        Assert.InRange(cores[1], 12, 15);
        Assert.InRange(cores[0], 1, 4);

        // No bias: an even split. Past the horizon (10 s) ages are equal: 20 s and 200 s split evenly too.
        Assert.Equal([8, 8], new LearnedScalabilityPolicy(youthBias: 0).Allocate(snapshot).Cores);
        var old = new AllocationSnapshot(16, [Program(0, 16, 64, held: 8, ageSeconds: 200), Program(1, 16, 64, held: 8, ageSeconds: 20)]);
        Assert.Equal([8, 8], new LearnedScalabilityPolicy().Allocate(old).Cores);
        Assert.Equal(TimeSpan.FromSeconds(10), LearnedScalabilityPolicy.AgeHorizon);
    }

    [Fact]
    public void A_stated_lifetime_replaces_the_observed_age_in_the_youth_weight()
    {
        // Started together (both busy for 1 s), alike in every way: an even split. One states that it will stay 50 ms
        // and the other 30 s (past the horizon): the short one weighs (1.05 / 11)^-1.5, about 34 times the other, and
        // gets most cores, as a program that young would.
        ProgramState Stating(int id, double? lifetimeSeconds) => Program(id, 16, 64, held: 8, ageSeconds: 1) with
        {
            ExpectedLifetime = lifetimeSeconds is double l ? TimeSpan.FromSeconds(l) : null,
        };

        var policy = new LearnedScalabilityPolicy();
        Assert.Equal([8, 8], policy.Allocate(new AllocationSnapshot(16, [Stating(0, null), Stating(1, null)])).Cores);
        var stated = policy.Allocate(new AllocationSnapshot(16, [Stating(0, 30), Stating(1, 0.05)])).Cores;
        Assert.Equal(16, stated.Sum());
        Assert.InRange(stated[1], 12, 15);

        // The lifetime, not the age: both busy for 1 s, the one that states 30 s weighs (11)^-1.5 against the silent
        // one's (2)^-1.5, so the silent one gets more.
        var againstSilent = policy.Allocate(new AllocationSnapshot(16, [Stating(0, 30), Stating(1, null)])).Cores;
        Assert.True(againstSilent[1] > 8, $"the silent program got {againstSilent[1]} of 16");

        // A lifetime outlived is no longer believed: busy for 10 s after stating 50 ms, a program is as old as one
        // that stated 30 s.
        var outlived = Program(1, 16, 64, held: 8, ageSeconds: 10) with { ExpectedLifetime = TimeSpan.FromSeconds(0.05) };
        Assert.Equal(10, outlived.BelievedLifetime!.Value.TotalSeconds, 3);
        Assert.Equal([8, 8], policy.Allocate(new AllocationSnapshot(16, [Stating(0, 30), outlived])).Cores);

        // Lifetimes past the horizon count alike, and without the youth bias no lifetime matters.
        Assert.Equal([8, 8], policy.Allocate(new AllocationSnapshot(16, [Stating(0, 20), Stating(1, 600)])).Cores);
        Assert.Equal([8, 8], new LearnedScalabilityPolicy(youthBias: 0).Allocate(new AllocationSnapshot(16, [Stating(0, 30), Stating(1, 0.05)])).Cores);
    }

    [Fact]
    public void Age_counts_busy_time_and_a_second_with_nothing_to_run_starts_it_again()
    {
        var estimator = new ScalabilityEstimator(4);
        Assert.Equal(TimeSpan.Zero, estimator.Current.Age);
        estimator.Observe(TimeSpan.FromSeconds(3), running: 2, queued: 5);
        Assert.Equal(3, estimator.Current.Age.TotalSeconds, 9);

        // Idle for less than a second (a pause between runs): the age holds; busy again: it grows on.
        estimator.Observe(TimeSpan.FromSeconds(0.5), running: 0, queued: 0);
        Assert.Equal(3, estimator.Current.Age.TotalSeconds, 9);
        estimator.Observe(TimeSpan.FromSeconds(1), running: 0, queued: 1);
        Assert.Equal(4, estimator.Current.Age.TotalSeconds, 9);

        // A whole second with no task ends the busy period: the next work is young.
        estimator.Observe(TimeSpan.FromSeconds(0.6), running: 0, queued: 0);
        estimator.Observe(TimeSpan.FromSeconds(0.4), running: 0, queued: 0);
        Assert.Equal(TimeSpan.Zero, estimator.Current.Age);
        estimator.Observe(TimeSpan.FromSeconds(0.2), running: 1, queued: 0);
        Assert.Equal(0.2, estimator.Current.Age.TotalSeconds, 9);
    }

    [Fact]
    public void Cores_go_to_the_program_that_turns_them_into_speed()
    {
        // 16 cores: a program whose work all ran at demand 2 gains nothing past 2 cores; a wide one gains from all.
        var snapshot = new AllocationSnapshot(16, [Program(0, 16, demand: 2, held: 0), Program(1, 16, demand: 64, held: 0)]);
        var decision = new LearnedScalabilityPolicy().Allocate(snapshot);
        Assert.Equal([2, 14], decision.Cores);
    }

    [Fact]
    public void Programs_that_scale_alike_split_evenly_and_a_near_even_split_is_not_churned()
    {
        var arriving = new AllocationSnapshot(16, [Program(0, 16, 64, held: 16), Program(1, 16, 64, held: 0)]);
        var policy = new LearnedScalabilityPolicy();
        Assert.Equal([8, 8], policy.Allocate(arriving).Cores);

        // 7 / 9 between identical programs: a move gains about log(8/7) - log(9/8) = 0.016 at alpha 1, 0.003 at 0.75:
        // below the threshold, so nothing moves; with no threshold it goes to 8 / 8.
        var uneven = new AllocationSnapshot(16, [Program(0, 16, 64, held: 7), Program(1, 16, 64, held: 9)]);
        var kept = policy.Allocate(uneven);
        Assert.Equal([7, 9], kept.Cores);
        Assert.True(kept.UsedFastPath);
        Assert.Equal([8, 8], new LearnedScalabilityPolicy(moveThreshold: 0).Allocate(uneven).Cores);

        // Far from even (2 / 14) the gain beats the threshold: cores move until it does not.
        var far = new LearnedScalabilityPolicy().Allocate(new AllocationSnapshot(16, [Program(0, 16, 64, held: 2), Program(1, 16, 64, held: 14)]));
        Assert.InRange(far.Cores[0], 6, 8);
        Assert.False(far.UsedFastPath);
    }

    [Fact]
    public void With_lending_credit_a_phased_program_gets_homes_it_lends_out_while_narrow()
    {
        // 16 cores. A did half its work at demand 1 and half at demand 16 (S(c) = 2c / (c + 1)): its extra homes sit
        // idle half the time, so without credit they look half wasted. With full credit those idle halves are lent
        // to B (linear), so A's homes cost B little and A gets more of them. A program whose extra core would never
        // be busy (demand 2) gets no more homes for any credit.
        var phased = Exact(16, priorCoreSeconds: 0);
        phased.Observe(TimeSpan.FromSeconds(1.6), running: 1, queued: 0);
        phased.Observe(TimeSpan.FromSeconds(0.1), running: 16, queued: 0);
        var a = new ProgramState(new ProgramId(0), 1, 16, 4) { Estimate = phased.Current };
        var snapshot = new AllocationSnapshot(16, [a, Program(1, 16, 64, held: 12)]);
        var without = new LearnedScalabilityPolicy(lendingCredit: 0).Allocate(snapshot).Cores;
        var with = new LearnedScalabilityPolicy(lendingCredit: 1).Allocate(snapshot).Cores;
        Assert.Equal(16, with.Sum());
        Assert.True(with[0] > without[0], $"credit 1: {string.Join("/", with)}, none: {string.Join("/", without)}");
        Assert.Equal(with, new LearnedScalabilityPolicy().Allocate(snapshot).Cores); // full credit is the default
        Assert.Equal(1, new LearnedScalabilityPolicy().LendingCredit);

        var narrow = new AllocationSnapshot(16, [Program(0, 16, demand: 2, held: 2), Program(1, 16, demand: 64, held: 14)]);
        Assert.Equal([2, 14], new LearnedScalabilityPolicy(lendingCredit: 1).Allocate(narrow).Cores);
        Assert.Equal([2, 14], new LearnedScalabilityPolicy(lendingCredit: 0.5).Allocate(narrow).Cores);
    }

    [Fact]
    public void Fairness_trades_throughput_for_the_least_served_program()
    {
        // 32 cores; A scales to 32, B's work ran at demand 8. Throughput alone (alpha 0) gives B only what is worth
        // more to B than to A; minimising predicted ANTT (alpha 2) protects A's progress more.
        ProgramState[] programs = [Program(0, 32, 64, held: 0), Program(1, 32, 8, held: 0)];
        var snapshot = new AllocationSnapshot(32, programs);
        var throughput = new LearnedScalabilityPolicy(moveThreshold: 0, fairness: 0).Allocate(snapshot).Cores;
        var antt = new LearnedScalabilityPolicy(moveThreshold: 0, fairness: 2).Allocate(snapshot).Cores;
        Assert.Equal(32, throughput.Sum());
        Assert.Equal(32, antt.Sum());
        Assert.Equal(8, throughput[1]); // B's progress reaches 1 on 8 cores: STP is maximised by exactly that
        Assert.True(antt[0] >= throughput[0] - 8 && antt[1] <= 8, $"{string.Join("/", antt)}");
        var policy = new LearnedScalabilityPolicy(fairness: 0);
        Assert.True(policy.Evaluate(snapshot, throughput) >= policy.Evaluate(snapshot, [16, 16]));
        Assert.Equal(double.NegativeInfinity, policy.Evaluate(snapshot, [32, 0]));
        Assert.Throws<ArgumentException>("cores", () => policy.Evaluate(snapshot, [32]));
    }

    [Fact]
    public void Progress_is_the_share_of_alone_speed_over_busy_time()
    {
        // 8 cores, the default half-life (2 s). Before any busy interval: 1 (nothing says it was slowed). Then 2 s
        // running 2 of a demand of 8 (0.25 of its alone speed), then one half-life at full speed (1 of a demand of 1):
        // halfway back, 0.625. Idle intervals say nothing; a demand above the cores counts as all of them.
        var estimator = new ScalabilityEstimator(8);
        Assert.Equal(1, estimator.Current.Progress);
        estimator.Observe(TimeSpan.FromSeconds(1), running: 0, queued: 0);
        Assert.Equal(1, estimator.Current.Progress);
        estimator.Observe(TimeSpan.FromSeconds(2), running: 2, queued: 6);
        Assert.Equal(0.25, estimator.Current.Progress, 9);
        estimator.Observe(TimeSpan.FromSeconds(2), running: 1, queued: 0);
        Assert.Equal(0.625, estimator.Current.Progress, 9);
        estimator.Observe(TimeSpan.FromSeconds(5), running: 0, queued: 0);
        Assert.Equal(0.625, estimator.Current.Progress, 9);

        var capped = new ScalabilityEstimator(8);
        capped.Observe(TimeSpan.FromSeconds(1), running: 4, queued: 36);
        Assert.Equal(0.5, capped.Current.Progress, 6);

        // With the default half-life (2 s) a long stretch at full speed after a slow one brings it back near 1.
        var recovering = new ScalabilityEstimator(8);
        recovering.Observe(TimeSpan.FromSeconds(2), running: 1, queued: 7);
        double slow = recovering.Current.Progress;
        for (int i = 0; i < 100; i++)
        {
            recovering.Observe(Tick, running: 8, queued: 8);
        }

        Assert.Equal(0.125, slow, 6);
        Assert.InRange(recovering.Current.Progress, 0.95, 1);
    }

    [Fact]
    public void Idle_cores_are_lent_first_where_a_busy_core_adds_most_progress()
    {
        // 16 cores, each program observed for 1 s at a fixed demand (no prior): A wide (S(16) = 16) at full speed,
        // B narrow (demand 2: S(16) = 2) at full speed, C and D alike (demand 8: S(16) = 8), C at half its alone speed,
        // D at a quarter. A busy lent core adds 1 / S(16) of a program's alone speed, weighed by progress^-alpha:
        // B 0.5, D 0.25^-0.75 / 8 = 0.35, C 0.5^-0.75 / 8 = 0.21, A 1 / 16. At alpha 0 C and D tie (earlier first).
        static ProgramState Ran(int id, int running, int demand, int held)
        {
            var estimator = Exact(16, priorCoreSeconds: 0);
            estimator.Observe(TimeSpan.FromSeconds(1), running, demand - running);
            return new ProgramState(new ProgramId(id), 1, demand - running, held) { Estimate = estimator.Current };
        }

        var snapshot = new AllocationSnapshot(16, [Ran(0, 16, 32, 4), Ran(1, 2, 2, 4), Ran(2, 4, 8, 4), Ran(3, 2, 8, 4)]);
        Assert.Equal(0.5, snapshot.Programs[2].Estimate!.Progress, 6);
        Assert.Equal(0.25, snapshot.Programs[3].Estimate!.Progress, 6);
        var policy = new LearnedScalabilityPolicy();
        Assert.Equal([1, 3, 2, 0], policy.LendingOrderOf(snapshot));
        Assert.Equal([1, 2, 3, 0], new LearnedScalabilityPolicy(fairness: 0).LendingOrderOf(snapshot));

        // With OrdersLending the decision carries the order, and the starvation guard keeps it; by default none.
        Assert.Null(policy.Allocate(snapshot).LendingOrder);
        var decision = new LearnedScalabilityPolicy { OrdersLending = true }.Allocate(snapshot);
        Assert.Equal([1, 3, 2, 0], decision.LendingOrder);
        Assert.Equal([1, 3, 2, 0], new StarvationGuard().Apply(decision).LendingOrder);

        // Without estimates: the speedup line's S(n), and predicted progress on the cores held, S(c) / S(n): of two
        // alike programs the one holding fewer cores first; a less scalable one before both.
        var held = new AllocationSnapshot(12, [new ProgramState(new ProgramId(0), 11, 1, 6), new ProgramState(new ProgramId(1), 11, 1, 3), new ProgramState(new ProgramId(2), 2, 1, 3)]);
        Assert.Equal([2, 1, 0], policy.LendingOrderOf(held));
        Assert.Throws<ArgumentNullException>("snapshot", () => policy.LendingOrderOf(null!));

        // Other policies give no order (the mechanism keeps spreading lent cores round-robin).
        Assert.Null(new TaskAvailabilityPolicy().Allocate(snapshot).LendingOrder);
    }

    [Fact]
    public void Without_estimates_it_uses_the_table_or_the_speedup_line()
    {
        // Homes alone (no lending credit): the line through (1, 1) and (12, 11) gains more per core than the one to
        // (12, 2), so it gets more homes. With the default full credit the flat program's extra homes count as lent
        // to the steep one (its top core on 6 cores is busy a third of the time), so an even split is as good.
        var snapshot = Workloads.Snapshot(12, [11, 2]);
        var decision = new LearnedScalabilityPolicy(lendingCredit: 0).Allocate(snapshot);
        Assert.Equal(12, decision.Cores.Sum());
        Assert.True(decision.Cores[0] > decision.Cores[1], decision.ToString());
        Assert.Equal("learned-scalability", decision.Policy);
        var credited = new LearnedScalabilityPolicy().Allocate(snapshot);
        Assert.Equal(12, credited.Cores.Sum());
        Assert.True(credited.Cores[0] >= credited.Cores[1], credited.ToString());
    }

    [Fact]
    public void The_scheduler_uses_it_by_default_and_publishes_what_it_learns()
    {
        var clock = new ManualClock();
        using var scheduler = new MultiprogramScheduler(new MultiprogramSchedulerOptions
        {
            Pin = false,
            WorkerCount = 2,
            RebalanceInterval = Timeout.InfiniteTimeSpan,
            TimeProvider = clock,
        });
        using var program = scheduler.Register("busy");
        Assert.Equal("learned-scalability", scheduler.History[^1].Policy);
        Assert.Equal(0, program.Estimate.ObservedCoreSeconds);

        using var started = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        var task = program.Start(() =>
        {
            started.Set();
            release.Wait(TimeSpan.FromSeconds(30));
        });
        Assert.True(started.Wait(TimeSpan.FromSeconds(30)));
        clock.Advance(TimeSpan.FromSeconds(1));
        scheduler.Rebalance();
        release.Set();
        task.AssertCompletes();

        // One task ran through one second of the scheduler's clock: one core-second at demand 1, against the linear
        // guess worth g core-seconds: S(2) = (1 x 1 + 2 x g) / (1 + g).
        double g = new ScalabilityEstimatorOptions().GuessCoreSeconds;
        Assert.Equal(1, program.Estimate.ObservedCoreSeconds, 6);
        Assert.Equal((1 + (2 * g)) / (1 + g), program.Estimate.SpeedupAt(2), 6);
    }
}
