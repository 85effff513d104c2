using DivCon.Skeletons.Tracing;

namespace DivCon.Simulator.Tests;

/// <summary>The simulator against schedules worked out by hand (all costs off unless a test sets them).</summary>
public sealed class HandComputedScheduleTests
{
    private const long Ms = 1_000_000;

    // The .NET pool model's hill-climbing wave is off too (its timing is random); its starvation gate stays on (it
    // acts only after a second or more of saturation).
    internal static SimulationOptions Free(int cores) => new()
    {
        ThreadPoolWaveMagnitude = 0,
        Cores = cores,
        TaskOverheadNs = 0,
        StealOverheadNs = 0,
        WakeOverheadNs = 0,
        MoveOverheadNs = 0,
        ContextSwitchNs = 0,
        RestartGapNs = 0,
        IsolatedRuns = 1,
    };

    // When the one run of a program ended (a cyclic test with a single run per program).
    internal static TimeSpan End(SimulatedCyclicTest test, string program) => Assert.Single(test.Runs, r => r.Program == program).End;

    // A chain: root -> a -> b -> leaf; splits 1 ms, leaf 10 ms, merges 2 ms. Nothing can run in parallel.
    internal static TaskGraph Chain() => TaskGraph.FromChildCounts([1, 1, 1, 0], [1 * Ms, 1 * Ms, 1 * Ms, 10 * Ms], [2 * Ms, 2 * Ms, 2 * Ms, 0]);

    [Theory]
    [InlineData(1)]
    [InlineData(4)]
    [InlineData(64)]
    public void Chain_takes_the_sum_of_its_tasks_on_any_core_count(int cores)
    {
        var time = new WorkloadSimulator(Free(cores)).RunIsolated(new SimulatedProgram("chain", Chain())).Single();
        Assert.Equal(TimeSpan.FromMilliseconds(3 + 10 + 6), time);
    }

    [Fact]
    public void Chain_pays_the_task_overhead_once_per_task_and_the_wake_once()
    {
        var options = Free(4) with { TaskOverheadNs = 1000, WakeOverheadNs = 5000 };
        var time = new WorkloadSimulator(options).RunIsolated(new SimulatedProgram("chain", Chain())).Single();
        // 7 tasks (3 splits, 1 leaf, 3 merges) at 1 us each; one wake, for the root (every later task is the owner's own).
        Assert.Equal(TimeSpan.FromMilliseconds(19) + TimeSpan.FromMicroseconds(7 + 5), time);
    }

    [Theory]
    [InlineData(4, 16)] // split 1 + split 1 + leaves 10 in parallel + merge 2 + merge 2
    [InlineData(2, 26)] // the four leaves take two rounds of 10 ms on two cores
    [InlineData(1, 49)] // everything in sequence: 3 splits x 1 + 4 leaves x 10 + 3 merges x 2
    public void Balanced_binary_tree_matches_the_hand_schedule(int cores, int expectedMs)
    {
        var tree = TaskTree.FromShape(branching: 2, depth: 2, execute: 10 * Ms, split: 1 * Ms, merge: 2 * Ms);
        var time = new WorkloadSimulator(Free(cores)).RunIsolated(new SimulatedProgram("tree", TaskGraph.FromTree(tree))).Single();
        Assert.Equal(TimeSpan.FromMilliseconds(expectedMs), time);
    }

    [Theory]
    [InlineData(SimulatedScheme.Shared, 1, new[] { 0, 20, 40 })]
    [InlineData(SimulatedScheme.Static, 1, new[] { 0, 20, 40 })]
    [InlineData(SimulatedScheme.Shared, 0, new[] { 0, 19, 38, 57 })]
    [InlineData(SimulatedScheme.Default, 1, new[] { 0, 19, 38, 57 })] // the pool model restarts on the finishing thread
    public void A_restart_delay_separates_a_programs_runs(SimulatedScheme scheme, int delayMs, int[] startsMs)
    {
        // The 19 ms chain on one core, restarted until 60 ms: each next root is queued delayMs after the run's end.
        var options = Free(1) with { RestartDelayNs = delayMs * Ms };
        var test = new WorkloadSimulator(options).RunCyclic([new SimulatedProgram("chain", Chain())], scheme, TimeSpan.FromMilliseconds(60));

        Assert.Equal(startsMs.Select(ms => TimeSpan.FromMilliseconds(ms)), test.Runs.Select(r => r.Start));
        Assert.All(test.Runs, r => Assert.Equal(TimeSpan.FromMilliseconds(19), r.End - r.Start));
    }

    [Fact]
    public void A_negative_restart_delay_is_rejected()
    {
        var e = Assert.Throws<ArgumentOutOfRangeException>(() => new WorkloadSimulator(Free(1) with { RestartDelayNs = -1 }));
        Assert.Equal(nameof(SimulationOptions.RestartDelayNs), e.ParamName);
    }

    [Fact]
    public void Two_programs_under_static_partitioning_get_two_cores_each()
    {
        // Equal programs, equal speedups: the proportional policy gives 2 of 4 cores to each. Four 10 ms leaves on
        // two cores: every run takes 20 ms, so in 100 ms each program completes exactly 5 counted runs.
        var graph = TaskGraph.FromTree(TaskTree.FromShape(branching: 4, depth: 1, execute: 10 * Ms));
        var options = Free(4) with { Lending = false };
        var test = new WorkloadSimulator(options).RunCyclic(
            [new SimulatedProgram("a", graph), new SimulatedProgram("b", graph)], SimulatedScheme.Static, TimeSpan.FromMilliseconds(100));

        Assert.All(test.Allocations.Skip(1), a => Assert.Equal([2, 2], a.Cores));
        foreach (string program in new[] { "a", "b" })
        {
            var counted = test.Runs.Where(r => r.Program == program && r.Counted).ToList();
            Assert.Equal(5, counted.Count);
            Assert.All(counted, r => Assert.Equal(TimeSpan.FromMilliseconds(20), r.End - r.Start));
        }
    }

    [Theory]
    [InlineData(SimulatedScheme.Shared)]
    [InlineData(SimulatedScheme.Default)]
    [InlineData(SimulatedScheme.OversubscribedFree)]
    public void Two_wide_programs_sharing_four_cores_each_take_twice_as_long(SimulatedScheme scheme)
    {
        // Each program alone: four 10 ms leaves on four cores, 10 ms. Together, eight leaves on four cores: every
        // run of both takes 20 ms (both start at once and restart together).
        var graph = TaskGraph.FromTree(TaskTree.FromShape(branching: 4, depth: 1, execute: 10 * Ms));
        var simulator = new WorkloadSimulator(Free(4));
        Assert.Equal(TimeSpan.FromMilliseconds(10), simulator.RunIsolated(new SimulatedProgram("a", graph)).Single());
        var test = simulator.RunCyclic([new SimulatedProgram("a", graph), new SimulatedProgram("b", graph)], scheme, TimeSpan.FromMilliseconds(100));

        Assert.All(test.Runs, r => Assert.Equal(TimeSpan.FromMilliseconds(20), r.End - r.Start));
        Assert.Equal(10, test.Runs.Count(r => r.Counted));
    }

    [Fact]
    public void Two_single_task_programs_time_share_one_pinned_core()
    {
        // Processor sharing: two 10 ms tasks on one core, each at rate 1/2, both end at 20 ms.
        var leaf = TaskGraph.FromChildCounts([0], [10 * Ms], [0]);
        var test = new WorkloadSimulator(Free(1)).RunCyclic(
            [new SimulatedProgram("a", leaf), new SimulatedProgram("b", leaf)], SimulatedScheme.OversubscribedPinned, TimeSpan.FromMilliseconds(20));

        Assert.Equal(2, test.Runs.Count);
        Assert.All(test.Runs, r => Assert.Equal(TimeSpan.FromMilliseconds(20), r.End));
        Assert.All(test.Runs, r => Assert.True(r.Counted));
    }

    [Fact]
    public void Context_switches_slow_time_sharing_by_quantum_over_quantum_plus_switch()
    {
        // Quantum 4 ms, switch 1 ms: useful fraction 0.8, so each of the two 10 ms tasks ends at 20 / 0.8 = 25 ms.
        var leaf = TaskGraph.FromChildCounts([0], [10 * Ms], [0]);
        var options = Free(1) with { Quantum = TimeSpan.FromMilliseconds(4), ContextSwitchNs = 1 * Ms };
        var test = new WorkloadSimulator(options).RunCyclic(
            [new SimulatedProgram("a", leaf), new SimulatedProgram("b", leaf)], SimulatedScheme.OversubscribedFree, TimeSpan.FromMilliseconds(1));

        Assert.All(test.Runs, r => Assert.Equal(TimeSpan.FromMilliseconds(25), r.End));
    }

    [Fact]
    public void Work_inflation_doubles_a_task_with_the_whole_machine_busy()
    {
        var options = Free(1) with { Inflation = new WorkInflation(Alpha: 1.0, Knee: 0) };
        var time = new WorkloadSimulator(options).RunIsolated(new SimulatedProgram("chain", Chain())).Single();
        Assert.Equal(TimeSpan.FromMilliseconds(38), time);
    }

    [Fact]
    public void Coarsening_keeps_the_work_and_removes_fine_subtrees()
    {
        var tree = TaskTree.FromShape(branching: 2, depth: 3, execute: 10 * Ms, split: 1 * Ms, merge: 1 * Ms);
        var full = TaskGraph.FromTree(tree);
        // A depth-2 subtree: 2 leaves + split + merge = 22 ms: collapsed; a depth-1 subtree (46 ms) is kept.
        var coarse = TaskGraph.FromTree(tree, coarsenBelowNs: 22 * Ms);

        Assert.Equal(15, full.NodeCount);
        Assert.Equal(7, coarse.NodeCount);
        Assert.Equal(full.TotalWork, coarse.TotalWork);
    }

    [Fact]
    public void Flattening_dissolves_trivial_internal_nodes_into_a_fan_out()
    {
        // Splits and merges of 100 ns under a 10 ms-leaf binary tree: flattening at 1 us leaves the root with all
        // eight leaves as children; the work stays the same; the schedule on eight cores is split + leaf + merge
        // plus the dissolved nodes' work, now done by the root.
        var tree = TaskTree.FromShape(branching: 2, depth: 3, execute: 10 * Ms, split: 100, merge: 100);
        var flat = TaskGraph.FromTree(tree, flattenBelowNs: 1_000);

        Assert.Equal(9, flat.NodeCount);
        Assert.Equal(TaskGraph.FromTree(tree).TotalWork, flat.TotalWork);
        var time = new WorkloadSimulator(Free(8)).RunIsolated(new SimulatedProgram("flat", flat)).Single();
        Assert.Equal(TimeSpan.FromTicks(((10 * Ms) + (7 * 100) + (7 * 100)) / 100), time);
    }

    [Fact]
    public void Clamping_replaces_a_single_outlying_leaf_by_its_depth_median()
    {
        // A 10 ms root split and four 10 ms leaves, one recorded at 500 ms (a pause inside it): clamped at 10x it is 10 ms again.
        var tree = TaskTree.FromChildCounts([4, 0, 0, 0, 0], i => i == 3 ? 500 * Ms : 10 * Ms, _ => 0);
        Assert.Equal(540 * Ms, TaskGraph.FromTree(tree).TotalWork);
        Assert.Equal(50 * Ms, TaskGraph.FromTree(tree, clampOutliers: 10).TotalWork); // root split 10 + four leaves of 10
        Assert.Throws<ArgumentOutOfRangeException>(() => TaskGraph.FromTree(tree, clampOutliers: 0.5));
    }
}
