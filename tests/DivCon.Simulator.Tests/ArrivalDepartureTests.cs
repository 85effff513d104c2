using DivCon.Simulator.Workloads;
using DivCon.Skeletons.Tracing;

namespace DivCon.Simulator.Tests;

/// <summary>
/// Programs that arrive late and depart after a number of runs or at a time: hand-computed schedules without
/// overheads, every scheme, partitioning registration and unregistration, and the metrics computed from them.
/// </summary>
public sealed class ArrivalDepartureTests
{
    private const long Ms = 1_000_000;

    private static SimulationOptions NoCosts(int cores) => new()
    {
        Cores = cores, Seed = 5, TaskOverheadNs = 0, StealOverheadNs = 0, WakeOverheadNs = 0, MoveOverheadNs = 0, RestartGapNs = 0, RebalanceInterval = TimeSpan.FromMilliseconds(5),
    };

    private static TaskGraph Leaf(long ns) => TaskGraph.FromChildCounts([0], [ns], [0]);

    private static TimeSpan At(long ns) => TimeSpan.FromTicks(ns / 100);

    [Fact]
    public void A_late_program_starts_at_its_arrival_and_departs_after_its_runs()
    {
        var program = new SimulatedProgram("late", Leaf(10 * Ms)) { Arrival = At(5 * Ms), MaxRuns = 2 };
        var test = new WorkloadSimulator(NoCosts(1)).RunCyclic([program], SimulatedScheme.Shared, TimeSpan.FromMilliseconds(100));

        Assert.Equal([(At(5 * Ms), At(15 * Ms)), (At(15 * Ms), At(25 * Ms))], test.Runs.Select(r => (r.Start, r.End)));
        Assert.All(test.Runs, r => Assert.True(r.Counted));
        Assert.Equal(At(25 * Ms), test.Elapsed);
    }

    [Fact]
    public void A_program_leaving_at_a_time_finishes_its_run_in_flight_and_starts_no_other()
    {
        var program = new SimulatedProgram("leaver", Leaf(10 * Ms)) { LeaveAt = At(25 * Ms) };
        var test = new WorkloadSimulator(NoCosts(1)).RunCyclic([program], SimulatedScheme.Shared, TimeSpan.FromMilliseconds(100));

        // Runs start at 0, 10 and 20 (before 25), the third ends at 30; none starts at 30.
        Assert.Equal([At(0), At(10 * Ms), At(20 * Ms)], test.Runs.Select(r => r.Start));
        Assert.Equal(At(30 * Ms), test.Elapsed);
    }

    [Fact]
    public void A_late_arrival_queues_behind_nothing_and_the_metrics_follow_by_hand()
    {
        // One core, one shared queue. A (10 ms) runs cyclically until 40 ms; B (10 ms) arrives at 15 ms for one run.
        // A: [0,10], [10,20]; B's root is queued at 15 and A's third root at 20 behind it (FIFO): B runs [20,30]
        // (turnaround 15), A's third run [20,40] (turnaround 20), ending exactly at the limit (counted).
        var a = new SimulatedProgram("A", Leaf(10 * Ms));
        var b = new SimulatedProgram("B", Leaf(10 * Ms)) { Arrival = At(15 * Ms), MaxRuns = 1 };
        var simulator = new WorkloadSimulator(NoCosts(1));
        var test = simulator.RunCyclic([a, b], SimulatedScheme.Shared, TimeSpan.FromMilliseconds(40));

        Assert.Equal([(At(0), At(10 * Ms)), (At(10 * Ms), At(20 * Ms)), (At(20 * Ms), At(40 * Ms))], test.Runs.Where(r => r.Program == "A").Select(r => (r.Start, r.End)));
        Assert.Equal((At(15 * Ms), At(30 * Ms)), test.Runs.Where(r => r.Program == "B").Select(r => (r.Start, r.End)).Single());
        Assert.All(test.Runs, r => Assert.True(r.Counted));

        double alone = simulator.AloneTime(b);
        Assert.Equal(0.010, alone, 12);
        var metrics = MixMetrics.Of(test, [simulator.AloneTime(a), alone]);
        // NTT A = (10 + 10 + 20) / 3 / 10 = 4/3; NTT B = 15 / 10 = 1.5.
        Assert.Equal(4.0 / 3, metrics.Programs[0].Ntt, 9);
        Assert.Equal(1.5, metrics.Programs[1].Ntt, 9);
        Assert.Equal(0.75 + (1 / 1.5), metrics.Stp, 9);
        Assert.Equal(((4.0 / 3) + 1.5) / 2, metrics.Antt, 9);
        Assert.Equal(1.5, metrics.WorstNtt, 9);
    }

    [Theory]
    [InlineData(SimulatedScheme.Static)]
    [InlineData(SimulatedScheme.Dynamic)]
    [InlineData(SimulatedScheme.HillClimbing)]
    public void Partitioning_registers_a_program_at_its_arrival_and_gives_its_cores_back_at_its_departure(SimulatedScheme scheme)
    {
        // A: a wide tree run cyclically; B arrives at 20 ms for two runs, then departs.
        var a = new SimulatedProgram("A", TaskGraph.FromTree(TaskTree.FromShape(branching: 4, depth: 2, execute: Ms)));
        var b = new SimulatedProgram("B", TaskGraph.FromTree(TaskTree.FromShape(branching: 4, depth: 1, execute: 2 * Ms))) { Arrival = At(20 * Ms), MaxRuns = 2 };
        var test = new WorkloadSimulator(NoCosts(4)).RunCyclic([a, b], scheme, TimeSpan.FromMilliseconds(80));

        var runsB = test.Runs.Where(r => r.Program == "B").ToList();
        Assert.Equal(2, runsB.Count);
        Assert.Equal(At(20 * Ms), runsB[0].Start);
        // Before B arrives A owns every core; B's arrival decision gives it some; after its departure A owns all again.
        Assert.All(test.Allocations.Where(x => x.Time < At(20 * Ms)), x => Assert.Equal([4, 0], x.Cores));
        Assert.Contains(test.Allocations, x => x.Time == At(20 * Ms) && x.Cores[1] > 0 && x.Cores.Sum() == 4);
        var after = test.Allocations.Where(x => x.Time >= runsB[1].End).ToList();
        Assert.NotEmpty(after);
        Assert.Equal([4, 0], after[0].Cores);
        Assert.All(after, x => Assert.Equal(0, x.Cores[1]));
    }

    public static TheoryData<SimulatedScheme> AllSchemes() => [.. SimulatedSchemes.All];

    [Theory]
    [MemberData(nameof(AllSchemes))]
    public void Every_scheme_runs_a_mix_with_arrivals_departures_and_a_gap_when_nobody_is_there(SimulatedScheme scheme)
    {
        // A leaves after one run (~10 ms); nobody is there until B arrives at 30 ms; C arrives at 35 ms and leaves at 60 ms.
        SimulatedProgram[] workload =
        [
            new("A", TaskGraph.FromTree(TaskTree.FromShape(2, 3, execute: Ms))) { MaxRuns = 1 },
            new("B", TaskGraph.FromTree(TaskTree.FromShape(2, 2, execute: 2 * Ms, split: Ms / 10))) { Arrival = At(30 * Ms), MaxRuns = 3 },
            new("C", TaskGraph.FromTree(TaskTree.FromShape(3, 2, execute: Ms))) { Arrival = At(35 * Ms), LeaveAt = At(60 * Ms) },
        ];
        var options = new SimulationOptions { Cores = 4, Seed = 9, RebalanceInterval = TimeSpan.FromMilliseconds(5) };
        var first = new WorkloadSimulator(options).RunCyclic(workload, scheme, TimeSpan.FromMilliseconds(100));
        var second = new WorkloadSimulator(options).RunCyclic(workload, scheme, TimeSpan.FromMilliseconds(100));

        Assert.Equal(first.Runs, second.Runs);
        Assert.Equal(first.Counters, second.Counters);
        foreach (var program in workload)
        {
            var runs = first.Runs.Where(r => r.Program == program.Name).ToList();
            Assert.NotEmpty(runs);
            Assert.Equal(program.Arrival, runs[0].Start);
            Assert.True(program.MaxRuns is null || runs.Count == program.MaxRuns, $"{program.Name}: {runs.Count} runs");
            Assert.All(runs, r => Assert.True(program.LeaveAt is null || r.Start < program.LeaveAt));
            for (int i = 1; i < runs.Count; i++)
            {
                Assert.Equal(runs[i - 1].End, runs[i].Start);
            }
        }

        Assert.True(first.Runs.Where(r => r.Program == "C").Max(r => r.End) >= At(60 * Ms) - At(10 * Ms));
        Assert.True(first.Elapsed < At(100 * Ms), $"everybody left before the limit, yet the test ran to {first.Elapsed}");
    }

    [Fact]
    public void Bad_arrivals_and_departures_are_refused_naming_the_program()
    {
        var simulator = new WorkloadSimulator(NoCosts(2));
        var graph = Leaf(Ms);
        SimulatedProgram[] bad =
        [
            new("early", graph) { Arrival = TimeSpan.FromMilliseconds(-1) },
            new("none", graph) { MaxRuns = 0 },
            new("backwards", graph) { Arrival = TimeSpan.FromMilliseconds(5), LeaveAt = TimeSpan.FromMilliseconds(5) },
        ];
        foreach (var program in bad)
        {
            var e = Assert.Throws<ArgumentException>(() => simulator.RunCyclic([program], SimulatedScheme.Dynamic, TimeSpan.FromSeconds(1)));
            Assert.Equal("programs", e.ParamName);
            Assert.Contains(program.Name, e.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void Alone_times_ignore_arrival_and_departure()
    {
        var simulator = new WorkloadSimulator(NoCosts(2));
        var graph = TaskGraph.FromTree(TaskTree.FromShape(2, 2, execute: Ms));
        var plain = new SimulatedProgram("p", graph);
        var late = plain with { Arrival = TimeSpan.FromSeconds(3), MaxRuns = 1 };

        Assert.Equal(simulator.RunIsolated(plain), simulator.RunIsolated(late));
        Assert.Equal(0.002, simulator.AloneTime(late), 12);
    }
}
