using System.Diagnostics;
using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Tests;

/// <summary>
/// The worker's state machine on plain data (src/Schedulers/Workers/README.md): every transition's guard as a row of
/// its decision table, and the state word's claims and cancels. The threads, fences and interleavings are the model
/// checker's (ModelChecking) and the mechanism tests'.
/// </summary>
public sealed class WorkerTransitionsTests
{
    [Theory]
    [InlineData(false, false, nameof(BoundaryStep.GoHome))]
    [InlineData(false, true, nameof(BoundaryStep.Serve))]
    [InlineData(true, false, nameof(BoundaryStep.Serve))]
    [InlineData(true, true, nameof(BoundaryStep.Serve))]
    public void At_a_boundary_the_server_goes_home_when_away_unless_it_stays_lent(bool servesHome, bool staysLent, string expected) =>
        Assert.Equal(expected, WorkerTransitions.AtBoundary(servesHome, staysLent).ToString());

    [Theory]
    [InlineData(false, false, false, false)]
    [InlineData(false, true, false, false)]
    [InlineData(false, false, true, false)]
    [InlineData(false, true, true, false)]
    [InlineData(true, false, false, false)]
    [InlineData(true, true, false, true)]
    [InlineData(true, false, true, true)]
    [InlineData(true, true, true, true)]
    public void A_pending_order_arrives_when_the_worker_serves_its_home_or_stays_lent_from_it(bool pending, bool servesHome, bool staysLent, bool expected) =>
        Assert.Equal(expected, WorkerTransitions.Arrives(pending, servesHome, staysLent));

    [Theory]
    [InlineData(false, true, nameof(IdleStep.Return))]
    [InlineData(false, false, nameof(IdleStep.Return))]
    [InlineData(true, false, nameof(IdleStep.Retire))]
    [InlineData(true, true, nameof(IdleStep.TryLend))]
    public void An_idle_lent_worker_returns_a_replaced_one_retires_a_server_at_home_tries_to_lend(bool servesHome, bool isServer, string expected) =>
        Assert.Equal(expected, WorkerTransitions.WhenIdle(servesHome, isServer).ToString());

    [Theory]
    [InlineData(false, false, nameof(RestStep.Park))]
    [InlineData(false, true, nameof(RestStep.Park))]
    [InlineData(true, false, nameof(RestStep.Yield))]
    [InlineData(true, true, nameof(RestStep.Exit))]
    public void At_rest_a_server_parks_unless_stopping_and_exits_only_when_quiescent(bool stopping, bool quiescent, string expected) =>
        Assert.Equal(expected, WorkerTransitions.AtRest(stopping, quiescent).ToString());

    [Fact]
    public void The_park_recheck_blocks_only_when_everything_says_so_and_each_reason_alone_cancels()
    {
        // setLooksEmpty, stopRequested, orderIsForThisSet, orderPending, isServer: the one combination that blocks.
        Assert.False(WorkerTransitions.ParkCancels(true, false, true, false, true));
        Assert.True(WorkerTransitions.ParkCancels(false, false, true, false, true)); // work seen (producer's pair)
        Assert.True(WorkerTransitions.ParkCancels(true, true, true, false, true)); // stop ([X1])
        Assert.True(WorkerTransitions.ParkCancels(true, false, false, false, true)); // moved ([M1])
        Assert.True(WorkerTransitions.ParkCancels(true, false, true, true, true)); // an arrival to report, even here
        Assert.True(WorkerTransitions.ParkCancels(true, false, true, false, false)); // taken over ([W2])
    }

    [Fact]
    public void The_standby_recheck_blocks_only_with_no_order_no_stop_and_another_server()
    {
        Assert.False(WorkerTransitions.StandbyCancels(orderPending: false, stopRequested: false, isServer: false));
        Assert.True(WorkerTransitions.StandbyCancels(orderPending: true, stopRequested: false, isServer: false));
        Assert.True(WorkerTransitions.StandbyCancels(orderPending: false, stopRequested: true, isServer: false));
        Assert.True(WorkerTransitions.StandbyCancels(orderPending: false, stopRequested: false, isServer: true));
    }

    [Theory]
    [InlineData(true, true, nameof(StandbyStep.Serve))] // a swap back wins over stop: the worker may hold the CPU's deque
    [InlineData(true, false, nameof(StandbyStep.Serve))]
    [InlineData(false, true, nameof(StandbyStep.Exit))]
    [InlineData(false, false, nameof(StandbyStep.Watch))]
    public void An_awake_standby_serves_when_swapped_back_exits_when_stopping_and_watches_otherwise(bool isServer, bool stopping, string expected) =>
        Assert.Equal(expected, WorkerTransitions.AfterStandby(isServer, stopping).ToString());

    public static TheoryData<bool, bool, bool, long, string> Looks => new()
    {
        // pending, serverInTask, serverServesOrderHome, ran (threshold 100) -> step
        { false, true, false, 1_000, nameof(WatchStep.Done) },
        { false, false, false, 0, nameof(WatchStep.Done) },
        { true, false, false, 0, nameof(WatchStep.Sleep) },
        { true, true, true, 1_000, nameof(WatchStep.ArriveForServer) },
        { true, true, false, 99, nameof(WatchStep.Sleep) },
        { true, true, false, 100, nameof(WatchStep.TakeOver) },
        { true, true, false, 1_000, nameof(WatchStep.TakeOver) },
    };

    [Theory]
    [MemberData(nameof(Looks))]
    public void A_watching_standby_takes_over_only_a_task_of_another_set_that_ran_the_threshold(bool pending, bool inTask, bool servesOrderHome, long ran, string expected) =>
        Assert.Equal(expected, WorkerTransitions.Watch(pending, inTask, servesOrderHome, ran, threshold: 100).ToString());

    [Fact]
    public void The_watch_sleeps_the_rest_of_the_threshold_in_a_task_one_threshold_between_tasks_within_1_to_1000_ms()
    {
        long frequency = Stopwatch.Frequency;
        long ms = frequency / 1000;
        Assert.Equal(10, WorkerTransitions.WatchSleepMilliseconds(serverInTask: false, ran: 0, threshold: 10 * ms, frequency));
        Assert.Equal(4, WorkerTransitions.WatchSleepMilliseconds(serverInTask: true, ran: 6 * ms, threshold: 10 * ms, frequency));
        Assert.Equal(1, WorkerTransitions.WatchSleepMilliseconds(serverInTask: true, ran: 10 * ms, threshold: 10 * ms, frequency));
        Assert.Equal(1, WorkerTransitions.WatchSleepMilliseconds(serverInTask: false, ran: 0, threshold: 0, frequency));
        Assert.Equal(1000, WorkerTransitions.WatchSleepMilliseconds(serverInTask: false, ran: 0, threshold: 5 * frequency, frequency));
    }

    [Theory]
    [InlineData((int)ParkState.Sleeping, (int)ParkState.Standby)]
    [InlineData((int)ParkState.Standby, (int)ParkState.Sleeping)]
    public void A_claim_ends_only_the_state_it_names_and_only_once(int announcedValue, int otherValue)
    {
        var announced = (ParkState)announcedValue;
        var other = (ParkState)otherValue;
        var holder = new Holder();
        Assert.False(holder.Word.TryClaim(announced)); // Awake: nothing to claim.
        holder.Word.Announce(announced);
        Assert.Equal(announced, holder.Word.Read());
        Assert.False(holder.Word.TryClaim(other)); // A producer never claims a standby, an activator never a sleeper.
        Assert.True(holder.Word.TryClaim(announced));
        Assert.Equal(ParkState.Awake, holder.Word.Read());
        Assert.False(holder.Word.TryClaim(announced)); // One release per park.
        Assert.False(holder.Word.TryCancel(announced)); // The worker then consumes the release instead.
    }

    [Theory]
    [InlineData((int)ParkState.Sleeping)]
    [InlineData((int)ParkState.Standby)]
    public void A_cancel_beats_every_later_claim(int announcedValue)
    {
        var announced = (ParkState)announcedValue;
        var holder = new Holder();
        holder.Word.Announce(announced);
        Assert.True(holder.Word.TryCancel(announced));
        Assert.Equal(ParkState.Awake, holder.Word.Read());
        Assert.False(holder.Word.TryClaim(announced));
    }

    [Fact]
    public void Racing_claimers_and_the_cancelling_owner_end_each_announcement_exactly_once()
    {
        const int rounds = 2_000;
        const int claimers = 3;
        var holder = new Holder();
        int[] winners = new int[rounds];
        using var start = new Barrier(claimers + 1);
        using var end = new Barrier(claimers + 1);
        var threads = Enumerable.Range(0, claimers).Select(_ => new Thread(() =>
        {
            for (int round = 0; round < rounds; round++)
            {
                start.SignalAndWait(TestSchedulers.Timeout);
                if (holder.Word.TryClaim(ParkState.Sleeping))
                {
                    Interlocked.Increment(ref winners[round]);
                }

                end.SignalAndWait(TestSchedulers.Timeout);
            }
        })).ToArray();
        foreach (Thread thread in threads)
        {
            thread.Start();
        }

        for (int round = 0; round < rounds; round++)
        {
            holder.Word.Announce(ParkState.Sleeping);
            start.SignalAndWait(TestSchedulers.Timeout);
            if (holder.Word.TryCancel(ParkState.Sleeping))
            {
                Interlocked.Increment(ref winners[round]);
            }

            end.SignalAndWait(TestSchedulers.Timeout);
            Assert.Equal(ParkState.Awake, holder.Word.Read());
        }

        foreach (Thread thread in threads)
        {
            Assert.True(thread.Join(TestSchedulers.Timeout));
        }

        Assert.All(winners, count => Assert.Equal(1, count));
    }

    // The state word lives in a field of a class, as in Worker (a struct local would be copied).
    private sealed class Holder
    {
        public StateWord Word;
    }
}
