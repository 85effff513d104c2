using DivCon.Skeletons;
using DivCon.Skeletons.Tracing;

namespace DivCon.Simulator.Tests;

/// <summary>
/// Nested runs (runs started inside a node's split or merge) replayed as tasks of the same program, against schedules
/// worked out by hand (all costs off unless a test sets them).
/// </summary>
public sealed class NestedRunScheduleTests
{
    private const long Ms = 1_000_000;

    // Root: split 1 ms, two 10 ms leaves, merge 3 ms of own work: 1 ms, then a nested run (split 1 ms, two 4 ms
    // leaves, merge 1 ms), then 2 ms.
    private static TaskTree MergeHost() =>
        TaskTree.FromChildCounts([2, 0, 0], i => i == 0 ? 1 * Ms : 10 * Ms, _ => 3 * Ms)
            .WithNestedRuns([new TaskTreeNestedRun(0, DivideAndConquerPhase.Merge, 1 * Ms, TaskTree.FromShape(2, 1, execute: 4 * Ms, split: 1 * Ms, merge: 1 * Ms))]);

    // Root: split 4 ms of own work: 1 ms, a nested fan-out of two 5 ms leaves, 2 ms, another such fan-out, 1 ms; then
    // two 3 ms leaves and a 1 ms merge.
    private static TaskTree SplitHost()
    {
        var fanOut = TaskTree.FromShape(2, 1, execute: 5 * Ms);
        return TaskTree.FromChildCounts([2, 0, 0], i => i == 0 ? 4 * Ms : 3 * Ms, _ => 1 * Ms)
            .WithNestedRuns([new TaskTreeNestedRun(0, DivideAndConquerPhase.Split, 1 * Ms, fanOut), new TaskTreeNestedRun(0, DivideAndConquerPhase.Split, 2 * Ms, fanOut)]);
    }

    [Theory]
    // Split 1, leaves 10 in parallel, merge piece 1, nested split 1, nested leaves 4 in parallel, nested merge 1, merge piece 2.
    [InlineData(2, 1 + 10 + 1 + 1 + 4 + 1 + 2)]
    // Everything in sequence: 1 + 2 x 10 + 3 + (1 + 2 x 4 + 1).
    [InlineData(1, 34)]
    public void A_merge_with_a_nested_run_of_two_leaves_finishes_at_the_hand_time(int cores, int expectedMs)
    {
        var graph = TaskGraph.FromTree(MergeHost());
        var time = new WorkloadSimulator(HandComputedScheduleTests.Free(cores)).RunIsolated(new SimulatedProgram("merge-host", graph)).Single();
        Assert.Equal(TimeSpan.FromMilliseconds(expectedMs), time);
    }

    [Theory]
    // Piece 1, fan-out 5, piece 2, fan-out 5, piece 1, leaves 3 in parallel, merge 1.
    [InlineData(2, 1 + 5 + 2 + 5 + 1 + 3 + 1)]
    [InlineData(1, 4 + 10 + 10 + 6 + 1)]
    [InlineData(8, 18)]
    public void A_split_with_two_nested_runs_runs_them_one_after_the_other_between_its_pieces(int cores, int expectedMs)
    {
        var graph = TaskGraph.FromTree(SplitHost());
        var time = new WorkloadSimulator(HandComputedScheduleTests.Free(cores)).RunIsolated(new SimulatedProgram("split-host", graph)).Single();
        Assert.Equal(TimeSpan.FromMilliseconds(expectedMs), time);
    }

    [Fact]
    public void Every_piece_and_nested_task_pays_the_task_overhead_once()
    {
        var graph = TaskGraph.FromTree(SplitHost());
        // Outer: split + merge + 2 leaves; each fan-out: split + merge + 2 leaves; one more piece per nested run.
        Assert.Equal(4 + (2 * 4) + 2, graph.TaskCount);
        Assert.Equal(2, graph.NestedRunCount);
        Assert.Equal(SplitHost().TotalWork, graph.TotalWork);

        var options = HandComputedScheduleTests.Free(1) with { TaskOverheadNs = 1000 };
        var time = new WorkloadSimulator(options).RunIsolated(new SimulatedProgram("split-host", graph)).Single();
        Assert.Equal(TimeSpan.FromMilliseconds(31) + TimeSpan.FromMicroseconds(14), time);
    }

    [Fact]
    public void Coarsening_absorbs_nested_runs_and_flattening_keeps_their_host()
    {
        var tree = SplitHost();
        var coarse = TaskGraph.FromTree(tree, coarsenBelowNs: 1_000 * Ms);
        Assert.Equal(1, coarse.TaskCount);
        Assert.Equal(tree.TotalWork, coarse.TotalWork);
        var time = new WorkloadSimulator(HandComputedScheduleTests.Free(4)).RunIsolated(new SimulatedProgram("coarse", coarse)).Single();
        Assert.Equal(TimeSpan.FromTicks(tree.TotalWork / 100), time);

        // The nested fan-outs' roots (split and merge 0) dissolve into nothing to dissolve: their leaves stay below
        // their own root; the host keeps its nested runs and the schedule is unchanged.
        var flat = TaskGraph.FromTree(tree, flattenBelowNs: 1);
        Assert.Equal(2, flat.NestedRunCount);
        var flatTime = new WorkloadSimulator(HandComputedScheduleTests.Free(2)).RunIsolated(new SimulatedProgram("flat", flat)).Single();
        Assert.Equal(TimeSpan.FromMilliseconds(18), flatTime);
    }

    [Fact]
    public void Nested_runs_in_a_cyclic_test_run_every_task_exactly_once_per_run()
    {
        // Two programs with nested runs sharing four cores under a partitioning scheme: every run ends (the simulator
        // throws if a task was lost), and the runs take at least their critical path.
        var a = new SimulatedProgram("a", TaskGraph.FromTree(SplitHost()));
        var b = new SimulatedProgram("b", TaskGraph.FromTree(MergeHost()));
        var test = new WorkloadSimulator(HandComputedScheduleTests.Free(4)).RunCyclic([a, b], SimulatedScheme.Dynamic, TimeSpan.FromMilliseconds(500));

        Assert.Contains(test.Runs, r => r.Program == "a" && r.Counted);
        Assert.Contains(test.Runs, r => r.Program == "b" && r.Counted);
        Assert.All(test.Runs.Where(r => r.Program == "a"), r => Assert.True(r.End - r.Start >= TimeSpan.FromMilliseconds(18)));
        Assert.All(test.Runs.Where(r => r.Program == "b"), r => Assert.True(r.End - r.Start >= TimeSpan.FromMilliseconds(20)));
    }

    [Fact]
    public void A_host_resumes_after_its_nested_run_through_the_global_queue_of_a_DivCon_scheduler()
    {
        // One core. A: root split 1 ms into L (leaf 10 ms) and H, whose split is 1 ms, a nested run of one 4 ms leaf,
        // then 1 ms, into two 6 ms leaves; merges free. B: one 2 ms leaf. Both roots start in the global queue, A's
        // first; the root pushes L then H, so H runs first and L waits in the deque. After the nested leaf (at 6 ms)
        // the host's next piece goes behind B's root in the shared global queue: L runs (6-16), then B's root
        // (16-18). Were the piece pushed onto the thread's deque, all of A would run first (to 29) and B end at 31.
        var a = TaskTree.FromChildCounts([2, 0, 2, 0, 0], i => i switch { 0 => 1 * Ms, 1 => 10 * Ms, 2 => 2 * Ms, _ => 6 * Ms }, _ => 0)
            .WithNestedRuns([new TaskTreeNestedRun(2, DivideAndConquerPhase.Split, 1 * Ms, TaskTree.FromChildCounts([0], _ => 4 * Ms, _ => 0))]);
        var b = TaskTree.FromChildCounts([0], _ => 2 * Ms, _ => 0);
        var options = HandComputedScheduleTests.Free(1) with { ThreadPoolWaveMagnitude = 0 };

        var test = new WorkloadSimulator(options).RunCyclic(
            [new SimulatedProgram("a", TaskGraph.FromTree(a)), new SimulatedProgram("b", TaskGraph.FromTree(b))], SimulatedScheme.Shared, TimeSpan.FromMilliseconds(40));

        var firstB = test.Runs.First(r => r.Program == "b");
        Assert.Equal(TimeSpan.FromMilliseconds(18), firstB.End);
    }
}
