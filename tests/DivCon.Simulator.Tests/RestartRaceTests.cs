using DivCon.Skeletons.Tracing;

namespace DivCon.Simulator.Tests;

/// <summary>
/// The restart race in a queue set shared by several programs (<see cref="SimulationOptions.RestartRace"/>): whether a
/// finished run's next root reaches the global queue before its worker looks for work, against hand-computed schedules.
/// </summary>
/// <remarks>
/// The workload of every test, on two cores under <c>shared</c> (all costs off, gap 1 ms): <c>a</c> is one 4 ms leaf;
/// <c>b</c> is a root (a 0 ms split) with four 10 ms leaves. At 0 thread 0 takes a's root and thread 1 b's (the global
/// queue's order); thread 1 pushes b's four leaves and runs the last one (0-10), leaving leaves 1-3 in its deque.
/// </remarks>
public sealed class RestartRaceTests
{
    private const long Ms = 1_000_000;

    private static readonly TaskGraph Short = TaskGraph.FromTree(TaskTree.FromShape(branching: 1, depth: 0, execute: 4 * Ms));
    private static readonly TaskGraph Wide = TaskGraph.FromTree(TaskTree.FromShape(branching: 4, depth: 1, execute: 10 * Ms));

    private static SimulationOptions Race(double onFinisherCore) =>
        HandComputedScheduleTests.Free(2) with { RestartGapNs = 1 * Ms, RestartOnFinisherCoreChance = onFinisherCore };

    private static SimulatedCyclicTest RunPair(SimulationOptions options, int limitMs = 30) =>
        new WorkloadSimulator(options).RunCyclic(
            [new SimulatedProgram("a", Short), new SimulatedProgram("b", Wide)], SimulatedScheme.Shared, TimeSpan.FromMilliseconds(limitMs));

    private static (double Start, double End)[] RunsOf(SimulatedCyclicTest test, string program) =>
        [.. test.Runs.Where(r => r.Program == program).Select(r => (r.Start.TotalMilliseconds, r.End.TotalMilliseconds))];

    [Fact]
    public void Pool_thread_on_another_core_lets_the_finisher_steal_and_the_root_waits_for_an_empty_deque()
    {
        // a ends at 4 on thread 0 with b's leaves 1-3 queued, so thread 0 looks first: it steals leaf 1 (4-14), and
        // a's next root is queued at 5 (the gap). Thread 1 ends leaf 4 at 10 and pops leaf 3 from its own deque
        // (10-20): a worker whose deque holds work does not look at the global queue. Thread 0's deque is empty at 14:
        // it takes a's root (14-18). At 18 leaf 2 is still queued: thread 0 steals it (18-28), the root comes at 19, and
        // thread 1, its deque empty at 20, takes it (20-24). At 24 nothing is queued (leaf 2 runs on thread 0): thread
        // 1 finds nothing and takes the next root when it comes, after the gap (24-29). b's merge (0 ms) ends it at 28.
        var test = RunPair(Race(onFinisherCore: 0), limitMs: 26);

        Assert.Equal([(0.0, 4.0), (5.0, 18.0), (19.0, 24.0), (24.0, 29.0)], RunsOf(test, "a"));
        Assert.Equal([(0.0, 28.0)], RunsOf(test, "b"));
    }

    [Fact]
    public void Pool_thread_on_the_finishers_core_restarts_in_place_after_the_gap()
    {
        // The pool thread holds thread 0's core for the gap and queues a's root first: thread 0 takes it from the
        // global queue, its run 4-9 (1 ms gap + 4 ms), and so on. b's four leaves all run on thread 1: 0-40.
        var test = RunPair(Race(onFinisherCore: 1), limitMs: 40);

        Assert.Equal([(0.0, 4.0), (4.0, 9.0), (9.0, 14.0), (14.0, 19.0)], RunsOf(test, "a")[..4]);
        Assert.Equal([(0.0, 40.0)], RunsOf(test, "b"));
    }

    [Fact]
    public void Without_the_race_the_root_is_queued_at_once_and_costs_nothing()
    {
        // The former rule: a's next root is on the global queue before thread 0 looks, with no gap: 4 ms runs back to back.
        var test = RunPair(Race(onFinisherCore: 0) with { RestartRace = false }, limitMs: 40);

        Assert.Equal([(0.0, 4.0), (4.0, 8.0), (8.0, 12.0), (12.0, 16.0)], RunsOf(test, "a")[..4]);
        Assert.Equal([(0.0, 40.0)], RunsOf(test, "b"));
    }

    [Fact]
    public void A_fixed_restart_delay_replaces_the_race()
    {
        // RestartDelayNs (2 ms): the restart waits for it and the finisher looks first, whatever the chance. As in the
        // first test with the root queued at 6: thread 0 steals leaf 1 (4-14) and takes the root at 14 (14-18), then
        // steals leaf 2 (18-28); no restart after the 15 ms limit.
        var test = RunPair(Race(onFinisherCore: 1) with { RestartDelayNs = 2 * Ms }, limitMs: 15);

        Assert.Equal([(0.0, 4.0), (6.0, 18.0)], RunsOf(test, "a"));
        Assert.Equal([(0.0, 28.0)], RunsOf(test, "b"));
    }

    [Fact]
    public void A_program_alone_in_its_set_restarts_at_once_without_the_gap()
    {
        // One program: nothing else to look at, so no race and no gap (the chain's 19 ms runs back to back).
        var options = HandComputedScheduleTests.Free(2) with { RestartGapNs = 1 * Ms, RestartOnFinisherCoreChance = 0 };
        var test = new WorkloadSimulator(options).RunCyclic([new SimulatedProgram("chain", HandComputedScheduleTests.Chain())], SimulatedScheme.Shared, TimeSpan.FromMilliseconds(40));

        Assert.Equal([0.0, 19.0, 38.0], test.Runs.Select(r => r.Start.TotalMilliseconds));
    }

    [Theory]
    [InlineData(-0.1)]
    [InlineData(1.5)]
    [InlineData(double.NaN)]
    public void A_chance_outside_zero_to_one_is_rejected(double chance)
    {
        var e = Assert.Throws<ArgumentOutOfRangeException>(() => new WorkloadSimulator(HandComputedScheduleTests.Free(2) with { RestartOnFinisherCoreChance = chance }));
        Assert.Equal(nameof(SimulationOptions.RestartOnFinisherCoreChance), e.ParamName);
    }

    [Fact]
    public void A_negative_gap_is_rejected()
    {
        var e = Assert.Throws<ArgumentOutOfRangeException>(() => new WorkloadSimulator(HandComputedScheduleTests.Free(2) with { RestartGapNs = -1 }));
        Assert.Equal(nameof(SimulationOptions.RestartGapNs), e.ParamName);
    }

    [Fact]
    public void The_same_seed_gives_the_same_races()
    {
        // The default chance (1 / cores) draws from the simulation's random stream: same seed, same schedule.
        var options = HandComputedScheduleTests.Free(2) with { RestartGapNs = 1 * Ms };
        SimulatedCyclicTest first = RunPair(options, limitMs: 200);
        SimulatedCyclicTest second = RunPair(options, limitMs: 200);

        Assert.Equal(first.Runs, second.Runs);
    }
}
