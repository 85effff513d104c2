namespace DivCon.Simulator.Tests;

/// <summary>
/// The standby handover against schedules worked out by hand. One core; each program is a single 10 ms leaf; the
/// moves are scripted (time, core, program) so that the policies do not enter; every cost is zero except the wake
/// (5 us), and the time limit is below the first run's end, so nothing restarts. A parked thread that starts a
/// task pays the wake: program 0's first task at t = 0 and a standby's first task after a handover.
/// </summary>
public sealed class StandbyHandoverTests
{
    private const long Us = 1_000;
    private const long Ms = 1_000_000;

    private static SimulationOptions Options(bool standby = true) => HandComputedScheduleTests.Free(1) with
    {
        WakeOverheadNs = 5 * Us,
        StandbyHandover = standby,
    };

    private static SimulatedProgram Leaf(string name) => new(name, TaskGraph.FromChildCounts([0], [10 * Ms], [0]));

    private static SimulatedCyclicTest Run(SimulationOptions options, int programs, params (double AtMs, int Program)[] moves) =>
        new WorkloadSimulator(options).RunScripted(
            [.. Enumerable.Range(0, programs).Select(i => Leaf(((char)('a' + i)).ToString()))],
            SimulatedScheme.Dynamic,
            [.. moves.Select(m => (TimeSpan.FromMilliseconds(m.AtMs), 0, m.Program))],
            TimeSpan.FromMilliseconds(1));

    private static TimeSpan Ns(long ns) => TimeSpan.FromTicks(ns / 100);

    [Fact]
    public void A_move_after_the_threshold_hands_over_at_once_and_both_tasks_time_share_the_core()
    {
        // a: 10 ms + wake from t = 0. At 2 ms (a's task has run 2 ms >= 1 ms) the standby serves b at once: b's task
        // (10 ms + wake) starts at 2 ms. From then both run at half speed: a's remaining 8.005 ms end at 18.01 ms;
        // b has done 8.005 of 10.005 ms and runs its last 2 ms alone, ending at 20.01 ms.
        var test = Run(Options(), 2, (0, 0), (2, 1));

        Assert.Equal(Ns(18_010 * Us), HandComputedScheduleTests.End(test, "a"));
        Assert.Equal(Ns(20_010 * Us), HandComputedScheduleTests.End(test, "b"));
        var move = Assert.Single(test.Moves);
        Assert.Equal((TimeSpan.FromMilliseconds(2), 0, 0, 1), (move.DecidedAt, move.Cpu, move.From, move.To));
        Assert.Equal(Ns(5 * Us), move.Latency);
        Assert.Equal(1, test.Counters.Handovers);
    }

    [Fact]
    public void A_move_before_the_threshold_waits_until_the_task_has_run_it()
    {
        // Move at 0.4 ms; a's task reaches 1 ms at t = 1 ms, when the standby takes over (latency 0.6 ms + wake).
        // a: 1 ms alone, then 9.005 ms at half speed: ends at 19.01 ms; b: 9.005 of 10.005 ms by then, ends at 20.01 ms.
        var test = Run(Options(), 2, (0, 0), (0.4, 1));

        Assert.Equal(Ns(19_010 * Us), HandComputedScheduleTests.End(test, "a"));
        Assert.Equal(Ns(20_010 * Us), HandComputedScheduleTests.End(test, "b"));
        Assert.Equal(Ns(605 * Us), Assert.Single(test.Moves).Latency);
    }

    [Fact]
    public void Without_standby_a_move_waits_for_the_task_boundary()
    {
        // a runs its 10.005 ms alone; the core moves at that boundary (move cost 0); b's task (no wake: the worker
        // was busy) runs 10 ms alone.
        var test = Run(Options(standby: false), 2, (0, 0), (2, 1));

        Assert.Equal(Ns(10_005 * Us), HandComputedScheduleTests.End(test, "a"));
        Assert.Equal(Ns(20_005 * Us), HandComputedScheduleTests.End(test, "b"));
        Assert.Equal(Ns(8_005 * Us), Assert.Single(test.Moves).Latency);
        Assert.Equal(0, test.Counters.Handovers);
    }

    [Fact]
    public void A_second_move_while_both_threads_are_inside_tasks_waits_for_the_first_task_to_end()
    {
        // 0: core to a; 2 ms: to b (handover, as above); 4 ms: to c, but both threads of the core are inside tasks
        // (a's retiring thread, b's server). At 4 ms a has 7.005 ms left and b 9.005 ms, both at half speed: a ends at
        // 18.01 ms; its thread, now parked, finds the move pending and b's task running for 16 ms, so it takes over
        // at once (it is awake: no wake cost): c starts at 18.01 ms (latency 14.01 ms). b's last 2 ms and c's first
        // 2 ms share the core until 22.01 ms; c's remaining 8 ms run alone until 30.01 ms.
        var test = Run(Options(), 3, (0, 0), (2, 1), (4, 2));

        Assert.Equal(Ns(18_010 * Us), HandComputedScheduleTests.End(test, "a"));
        Assert.Equal(Ns(22_010 * Us), HandComputedScheduleTests.End(test, "b"));
        Assert.Equal(Ns(30_010 * Us), HandComputedScheduleTests.End(test, "c"));
        Assert.Equal([Ns(5 * Us), Ns(14_010 * Us)], test.Moves.Select(m => m.Latency));
        Assert.Equal(2, test.Counters.Handovers);
    }

    [Fact]
    public void A_move_back_to_the_program_still_running_on_the_core_arrives_at_once()
    {
        // 2 ms: to b (handover); 4 ms: back to a, whose task is still running on the retiring thread: swap back,
        // latency 0. Both tasks keep sharing the core, so the run ends are those of the single handover.
        var test = Run(Options(), 2, (0, 0), (2, 1), (4, 0));

        Assert.Equal(Ns(18_010 * Us), HandComputedScheduleTests.End(test, "a"));
        Assert.Equal(Ns(20_010 * Us), HandComputedScheduleTests.End(test, "b"));
        Assert.Equal([Ns(5 * Us), TimeSpan.Zero], test.Moves.Select(m => m.Latency));
    }

    [Fact]
    public void A_move_superseded_before_it_arrived_keeps_no_latency()
    {
        // Without standby the move to b waits for a's boundary at 10.005 ms; the move to c at 4 ms supersedes it.
        var test = Run(Options(standby: false), 3, (0, 0), (2, 1), (4, 2));

        Assert.Equal([null, Ns(6_005 * Us)], test.Moves.Select(m => m.Latency));
        Assert.Equal(Ns(20_005 * Us), HandComputedScheduleTests.End(test, "c"));
    }
}
