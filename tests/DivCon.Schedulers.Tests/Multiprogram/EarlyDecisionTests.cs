using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Decisions;
using DivCon.Schedulers.Multiprogram.Estimation;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Schedulers.Tests.Multiprogram;

/// <summary>The early decision after an arrival (<see cref="EarlyDecision"/>), on plain data, and in the mechanism.</summary>
public class EarlyDecisionTests
{
    private static readonly ProgramId A = new(0), B = new(1);
    // A method, not a TimeSpan field times an int: TimeSpan has no * operator on .NET Framework (the Mono build).
    private static TimeSpan Ms(double milliseconds) => TimeSpan.FromMilliseconds(milliseconds);

    private static ScalabilityEstimate Worked()
    {
        var estimator = new ScalabilityEstimator(8);
        estimator.Observe(Ms(10), running: 2, queued: 5);
        return estimator.Current;
    }

    private static readonly ScalabilityEstimate Idle = new ScalabilityEstimator(8).Current;

    [Fact]
    public void A_decision_is_due_once_an_arrival_is_10_ms_old_and_has_worked()
    {
        var rule = new EarlyDecision();
        rule.Arrived(A, Ms(100));
        var worked = Worked();
        Assert.False(rule.IsDue(Ms(105), _ => worked)); // too young: its first sample is not in yet
        Assert.True(rule.IsDue(Ms(110), _ => worked));
        Assert.Equal(1, rule.Pending); // asking does not consume it; deciding does
        rule.Decided(Ms(110));
        Assert.Equal(0, rule.Pending);
        Assert.False(rule.IsDue(Ms(120), _ => worked)); // one early decision per arrival
    }

    [Fact]
    public void Without_work_it_waits_until_20_ms_and_then_gives_up()
    {
        var rule = new EarlyDecision();
        rule.Arrived(A, TimeSpan.Zero);
        Assert.False(rule.IsDue(Ms(15), _ => Idle));
        Assert.Equal(1, rule.Pending);
        Assert.False(rule.IsDue(Ms(20), _ => Idle));
        Assert.Equal(0, rule.Pending); // left to the interval decisions
        var worked = Worked();
        Assert.False(rule.IsDue(Ms(30), _ => worked));
    }

    [Fact]
    public void A_decision_counts_only_for_programs_old_enough_and_a_departure_cancels()
    {
        var rule = new EarlyDecision();
        rule.Arrived(A, TimeSpan.Zero);
        rule.Arrived(B, Ms(6));
        var worked = Worked();
        rule.Decided(Ms(12)); // e.g. an interval decision: A (12 ms old) has had it, B (6 ms) has not
        Assert.Equal(1, rule.Pending);
        Assert.False(rule.IsDue(Ms(14), _ => worked));
        Assert.True(rule.IsDue(Ms(16), id => id == B ? worked : null));
        rule.Departed(B);
        Assert.Equal(0, rule.Pending);
        Assert.False(rule.IsDue(Ms(17), _ => worked));

        // A program that has left (no estimate) is not waited for, and is given up on at the latest delay.
        rule.Arrived(A, Ms(100));
        Assert.False(rule.IsDue(Ms(125), _ => null));
        Assert.Equal(0, rule.Pending);
    }

    [Fact]
    public void Bad_input_names_the_parameter()
    {
        Assert.Equal("earliest", Assert.Throws<ArgumentOutOfRangeException>(() => new EarlyDecision(Ms(-1))).ParamName);
        Assert.Equal("latest", Assert.Throws<ArgumentOutOfRangeException>(() => new EarlyDecision(Ms(10), Ms(5))).ParamName);
        Assert.Equal("estimateOf", Assert.Throws<ArgumentNullException>(() => new EarlyDecision().IsDue(TimeSpan.Zero, null!)).ParamName);
    }

    [Fact]
    public void The_scheduler_decides_again_once_a_new_program_has_worked_for_a_sample()
    {
        // Interval decisions far away (1 h), samples every 5 ms of real time; the scheduler's clock moves only when told,
        // so the program's age is exactly what the test sets.
        var clock = new ManualClock();
        using var early = new ManualResetEventSlim();
        using var scheduler = new MultiprogramScheduler(new MultiprogramSchedulerOptions
        {
            Pin = false,
            WorkerCount = 2,
            RebalanceInterval = TimeSpan.FromHours(1),
            EstimatorSampleInterval = TimeSpan.FromMilliseconds(5),
            TimeProvider = clock,
            Policy = new LearnedScalabilityPolicy { DecidesEarly = true },
            OnRebalanced = (_, e) =>
            {
                if (e.Reason == RebalanceReason.FirstSignal)
                {
                    early.Set();
                }
            },
        });
        using var idle = scheduler.Register("idle");
        using var busy = scheduler.Register("busy");
        using var started = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        var task = busy.Start(() =>
        {
            started.Set();
            release.Wait(TimeSpan.FromSeconds(30));
        });
        Assert.True(started.Wait(TimeSpan.FromSeconds(30)));
        clock.Advance(TimeSpan.FromMilliseconds(15));
        try
        {
            Assert.True(early.Wait(TimeSpan.FromSeconds(30)), "no early decision after the program worked for 15 ms: " + string.Join("; ", scheduler.History.Select(e => $"{e.Reason} at {e.Time}")));
            Assert.Contains(scheduler.History, e => e.Reason == RebalanceReason.FirstSignal && !e.Skipped);
        }
        finally
        {
            release.Set();
        }

        task.AssertCompletes();
    }

    [Theory]
    [InlineData(false, 10, true, false)] // the default policy: no early decision
    [InlineData(true, 10, true, true)]
    [InlineData(true, 0, true, false)] // no samples between decisions: nothing to ask the rule at
    [InlineData(true, 10, false, false)] // no periodic decisions: no samples either
    public void The_scheduler_has_the_rule_only_for_a_policy_asking_for_it_and_with_samples(bool asks, int sampleMs, bool periodic, bool expected)
    {
        using var scheduler = new MultiprogramScheduler(new MultiprogramSchedulerOptions
        {
            Pin = false,
            WorkerCount = 2,
            RebalanceInterval = periodic ? TimeSpan.FromHours(1) : Timeout.InfiniteTimeSpan,
            EstimatorSampleInterval = TimeSpan.FromMilliseconds(sampleMs),
            Policy = asks ? new LearnedScalabilityPolicy { DecidesEarly = true } : null,
        });
        Assert.Equal(expected, scheduler.DecidesEarly);
        Assert.False(new LearnedScalabilityPolicy().DecidesEarly);
    }
}

/// <summary>A clock that moves only when told (a scheduler's timestamps and elapsed times).</summary>
internal sealed class ManualClock : TimeProvider
{
    private long _ticks;

    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    public override long GetTimestamp() => Interlocked.Read(ref _ticks);

    public void Advance(TimeSpan by) => Interlocked.Add(ref _ticks, by.Ticks);
}
