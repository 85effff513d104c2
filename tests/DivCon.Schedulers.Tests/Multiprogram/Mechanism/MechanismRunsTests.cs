using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>
/// Runs a program reports (<see cref="ProgramTaskScheduler.BeginRun"/>) reach the policy's snapshot
/// (<see cref="ProgramState.Runs"/>) on the scheduler's clock, and the default policy acts on them (long runs first).
/// </summary>
public sealed class MechanismRunsTests
{
    /// <summary>A policy (an equal split unless told) that keeps its last snapshot and decision.</summary>
    private sealed class CapturingPolicy(IAllocationPolicy? inner = null) : IAllocationPolicy
    {
        private readonly IAllocationPolicy _inner = inner ?? new EqualSharePolicy();

        public AllocationSnapshot? Last { get; private set; }

        public AllocationDecision? LastDecision { get; private set; }

        public string Name => "capturing";

        public AllocationDecision Allocate(AllocationSnapshot snapshot)
        {
            Last = snapshot;
            LastDecision = _inner.Allocate(snapshot);
            return LastDecision;
        }

        public bool IsStillValid(AllocationSnapshot current, AllocationDecision previous) => false;
    }

    private static MultiprogramScheduler Create(ManualClock clock, IAllocationPolicy policy) => new(new MultiprogramSchedulerOptions
    {
        Pin = false,
        WorkerCount = 2,
        RebalanceInterval = Timeout.InfiniteTimeSpan,
        TimeProvider = clock,
        Policy = policy,
    });

    private static TimeSpan Ms(double ms) => TimeSpan.FromMilliseconds(ms);

    [Fact]
    public void Reported_runs_reach_the_snapshot_and_a_program_that_reports_none_has_no_history()
    {
        var clock = new ManualClock();
        var policy = new CapturingPolicy();
        using var scheduler = Create(clock, policy);
        using var reporting = scheduler.Register("reporting");
        using var silent = scheduler.Register("silent");

        scheduler.Rebalance();
        Assert.Null(policy.Last!.Programs[0].Runs); // nothing reported yet
        Assert.Null(policy.Last.Programs[1].Runs);

        using (reporting.BeginRun())
        {
            clock.Advance(Ms(10));
        }

        clock.Advance(Ms(3)); // between runs
        scheduler.Rebalance();
        Assert.Equal(new RunHistory(1, Ms(10), null), policy.Last.Programs[0].Runs);
        Assert.Null(policy.Last.Programs[1].Runs);

        var second = reporting.BeginRun();
        clock.Advance(Ms(30));
        using (reporting.BeginRun()) // overlapping: the oldest run under way is the current one
        {
            clock.Advance(Ms(5));
            scheduler.Rebalance();
            Assert.Equal(new RunHistory(1, Ms(10), Ms(35)), policy.Last.Programs[0].Runs);
            Assert.Equal((1, 2), (reporting.CompletedRuns, reporting.RunsInProgress));
            second.Dispose();
            second.Dispose(); // counted once
            Assert.True(second.IsEnded);
            scheduler.Rebalance();
            Assert.Equal(new RunHistory(2, Ms(45), Ms(5)), policy.Last.Programs[0].Runs);
        }

        Assert.Equal((3, 0), (reporting.CompletedRuns, reporting.RunsInProgress));
        Assert.Equal((0, 0), (silent.CompletedRuns, silent.RunsInProgress));
    }

    [Fact]
    public void A_stated_lifetime_reaches_the_snapshot_and_can_be_changed_or_withdrawn()
    {
        var clock = new ManualClock();
        var policy = new CapturingPolicy();
        using var scheduler = Create(clock, policy);
        using var stating = scheduler.Register("stating");
        using var silent = scheduler.Register("silent");
        Assert.Null(stating.ExpectedLifetime);

        stating.ExpectedLifetime = Ms(30);
        scheduler.Rebalance();
        Assert.Equal(Ms(30), policy.Last!.Programs[0].ExpectedLifetime);
        Assert.Null(policy.Last.Programs[1].ExpectedLifetime);

        stating.ExpectedLifetime = TimeSpan.FromMinutes(2);
        scheduler.Rebalance();
        Assert.Equal(TimeSpan.FromMinutes(2), policy.Last.Programs[0].ExpectedLifetime);

        stating.ExpectedLifetime = null;
        scheduler.Rebalance();
        Assert.Null(policy.Last.Programs[0].ExpectedLifetime);
    }

    [Fact]
    public void A_lifetime_that_is_not_positive_is_refused_and_the_last_one_stays()
    {
        using var scheduler = Create(new ManualClock(), new CapturingPolicy());
        using var program = scheduler.Register("p");
        program.ExpectedLifetime = Ms(5);
        var zero = Assert.Throws<ArgumentOutOfRangeException>("value", () => program.ExpectedLifetime = TimeSpan.Zero);
        Assert.Equal(TimeSpan.Zero, zero.ActualValue);
        Assert.Throws<ArgumentOutOfRangeException>("value", () => program.ExpectedLifetime = Ms(-1));
        Assert.Equal(Ms(5), program.ExpectedLifetime);
    }

    [Fact]
    public void A_run_can_end_after_its_program_left()
    {
        var clock = new ManualClock();
        using var scheduler = Create(clock, new CapturingPolicy());
        var program = scheduler.Register("leaving");
        var run = program.BeginRun();
        program.Dispose();
        clock.Advance(Ms(1));
        run.Dispose();
        Assert.Equal((1, 0), (program.CompletedRuns, program.RunsInProgress));
    }

    [Fact]
    public void The_default_policy_gives_a_long_run_the_workers_of_a_program_with_short_runs()
    {
        // Three 10 ms runs of "short", then a run of "long" that has lasted 50 ms: more than 4 mean runs of "short", so
        // the decision makes "long" bursty and "short" yield (with or without estimates: the rule reads runs only).
        var clock = new ManualClock();
        var policy = new CapturingPolicy(new LearnedScalabilityPolicy());
        using var scheduler = Create(clock, policy);
        using var shortRuns = scheduler.Register("short");
        using var longRun = scheduler.Register("long");
        using var current = longRun.BeginRun();
        for (int i = 0; i < BurstPriority.RunsToKnowLength; i++)
        {
            using (shortRuns.BeginRun())
            {
                clock.Advance(Ms(10));
            }
        }

        clock.Advance(Ms(20));
        RebalanceEvent decision = scheduler.Rebalance();
        Assert.False(decision.Skipped);
        Assert.Equal([BurstRole.Yields, BurstRole.Bursty], policy.LastDecision!.BurstRoles);
    }
}
