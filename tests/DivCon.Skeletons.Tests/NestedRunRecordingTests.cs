using DivCon.Skeletons.Tests.Infrastructure;
using DivCon.Skeletons.Tracing;

namespace DivCon.Skeletons.Tests;

/// <summary>
/// Runs started inside a recorded node's asynchronous split or merge are recorded as nested runs of that node and
/// phase; the file format keeps them; old files still read; bad nested data is reported clearly.
/// </summary>
public sealed class NestedRunRecordingTests
{
    /// <summary>
    /// A root that splits asynchronously: it starts a nested run of <paramref name="splitBlocks"/> leaves, then (from
    /// the continuation) a second one of as many; its merge starts one of <paramref name="mergeBlocks"/> leaves. The
    /// two children are leaves; if <paramref name="leafRuns"/>, each leaf runs a run of its own, synchronously, on
    /// the thread pool (which must not be taken for a nested run of the root's split).
    /// </summary>
    private static DivideAndConquer<int, long> HostProgram(int splitBlocks, int mergeBlocks, bool leafRuns = false) =>
        DivideAndConquer.CreateAsync<int, long>(
            shouldSplit: static (_, depth) => depth == 0,
            splitAsync: async (problem, _, token) =>
            {
                await Blocks(splitBlocks, token);
                await Task.Yield();
                await Blocks(splitBlocks, token);
                return [problem, problem];
            },
            execute: (problem, _) =>
            {
                if (leafRuns)
                {
                    Blocks(2, CancellationToken.None, TaskScheduler.Default).GetAwaiter().GetResult();
                }

                return problem;
            },
            mergeAsync: async (results, _, token) =>
            {
                await Blocks(mergeBlocks, token);
                return results.Sum();
            });

    // A nested run with one leaf per block on the current scheduler (the run's), no observer of its own.
    private static Task<long> Blocks(int count, CancellationToken token, TaskScheduler? scheduler = null) =>
        MapReduce.CreateRanged(
                static range => (long)range.Length,
                static (a, b) => a + b,
                identity: 0L,
                granularity: Granularity.Fixed(1))
            .RunAsync(new IndexRange(0, count), DivideAndConquerOptions.Default with { Scheduler = scheduler ?? TaskScheduler.Current }, token);

    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task Runs_started_in_an_async_split_or_merge_are_recorded_under_their_node_and_phase(ExecutionEngine engine)
    {
        var recorder = new TaskTreeRecorder();
        long result = await HostProgram(splitBlocks: 4, mergeBlocks: 2)
            .RunAsync(7, DivideAndConquerOptions.Default with { Observer = recorder, Engine = engine }).Bounded();
        Assert.Equal(14, result);

        TaskTree tree = recorder.ToTree();

        Assert.Equal(3, tree.Nodes.Count);
        Assert.Equal(3, tree.NestedRuns.Count);
        // Ordered: the split's two runs (in the order they ran), then the merge's.
        Assert.Equal([DivideAndConquerPhase.Split, DivideAndConquerPhase.Split, DivideAndConquerPhase.Merge], tree.NestedRuns.Select(r => r.Phase));
        Assert.All(tree.NestedRuns, r => Assert.Equal(0, r.Node));
        // A map-reduce over 4 blocks with one block per leaf: 4 leaves, 7 nodes; over 2: 3 nodes.
        Assert.Equal([7, 7, 3], tree.NestedRuns.Select(r => r.Tree.Nodes.Count));
        Assert.All(tree.NestedRuns, r => Assert.Empty(r.Tree.NestedRuns));
        Assert.Equal(3 + 7 + 7 + 3, tree.TotalNodeCount);

        // The host phases keep only their own work: the pieces before the runs fit in it.
        var root = tree.Nodes[0];
        Assert.True(tree.NestedRuns.Where(r => r.Phase == DivideAndConquerPhase.Split).Sum(r => r.WorkBefore) <= root.Work);
        Assert.True(tree.NestedRuns.Where(r => r.Phase == DivideAndConquerPhase.Merge).Sum(r => r.WorkBefore) <= root.MergeWork);
        // Nested nodes are on the outer clock and worker numbering: they start inside the host phase's wall time.
        var splitRun = tree.NestedRuns[0].Tree;
        Assert.True(splitRun.Nodes[0].Start >= root.Start);
        Assert.True(splitRun.Nodes[0].Start <= tree.Nodes[1].Start);
        Assert.True(tree.NestedRuns[2].Tree.Nodes[0].Start >= tree.Nodes[1].Start);
        Assert.All(tree.NestedRuns, r => Assert.True(r.Tree.WorkerCount <= tree.WorkerCount));
        Assert.Equal(tree.Nodes.Sum(n => n.Work + n.MergeWork) + tree.NestedRuns.Sum(r => r.Tree.TotalWork), tree.TotalWork);
    }

    [Fact]
    public async Task Runs_started_by_the_hosts_children_are_not_nested_in_the_host()
    {
        // The leaves' own runs start after the split ended, from the children's tasks: the ambient host must not
        // have leaked into them (nor into the merge's continuation).
        var recorder = new TaskTreeRecorder();
        await HostProgram(splitBlocks: 2, mergeBlocks: 2, leafRuns: true)
            .RunAsync(1, DivideAndConquerOptions.Default with { Observer = recorder }).Bounded();

        TaskTree tree = recorder.ToTree();

        Assert.Equal(3, tree.NestedRuns.Count); // two in the split, one in the merge; none from the leaves
    }

    [Fact]
    public async Task Without_a_recorder_nothing_is_recorded_and_a_nested_runs_own_observer_is_kept()
    {
        // No observer: the program runs as before.
        Assert.Equal(6, await HostProgram(splitBlocks: 3, mergeBlocks: 1).RunAsync(3).Bounded());

        // A nested run with its own observer reports to it, not to the host's recorder.
        var recorder = new TaskTreeRecorder();
        var own = new PhaseAggregator();
        var program = DivideAndConquer.CreateAsync<int, long>(
            shouldSplit: static (_, depth) => depth == 0,
            splitAsync: async (problem, _, token) =>
            {
                await MapReduce.CreateRanged(static r => (long)r.Length, static (a, b) => a + b, identity: 0L, granularity: Granularity.Fixed(1))
                    .RunAsync(new IndexRange(0, 4), DivideAndConquerOptions.Default with { Scheduler = TaskScheduler.Current, Observer = own }, token);
                return [problem];
            },
            execute: static (problem, _) => (long)problem,
            mergeAsync: static (results, _, _) => new ValueTask<long>(results[0]));
        await program.RunAsync(5, DivideAndConquerOptions.Default with { Observer = recorder }).Bounded();

        Assert.Empty(recorder.ToTree().NestedRuns);
        Assert.Equal(4, own.TotalCount(DivideAndConquerPhase.Execute));
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void Nested_runs_round_trip_with_every_field(bool compress)
    {
        var tree = WithNested();
        using var stream = new MemoryStream();
        TaskTreeFile.Write(stream, tree, compress);
        stream.Position = 0;

        TaskTree back = TaskTreeFile.Read(stream);

        AssertSame(tree, back);
    }

    [Fact]
    public void Version_2_files_still_read_without_nested_runs()
    {
        // Version 2: magic, version 2, no flags, no properties, one leaf of 5 ns on worker 0, CPU 3 (+1), end marker.
        byte[] v2 = [(byte)'D', (byte)'C', (byte)'T', (byte)'T', 2, 0, 0, 1, 0, 5, 0, 0, 4, (byte)'E', (byte)'N', (byte)'D', (byte)'.', 1];
        using var old = new MemoryStream(v2);
        var tree = TaskTreeFile.Read(old);
        var leaf = Assert.Single(tree.Nodes);
        Assert.Equal(5, leaf.Work);
        Assert.Equal(3, leaf.Cpu);
        Assert.Empty(tree.NestedRuns);
    }

    [Fact]
    public void Truncated_nested_data_is_reported_as_truncated()
    {
        byte[] bytes = Bytes(WithNested());
        byte[] plain = Bytes(WithNested().WithNestedRuns([]));
        // Every cut from just after the outer nodes to the last byte falls in the nested part or the end marker.
        for (int cut = plain.Length - 6; cut < bytes.Length; cut++)
        {
            using var stream = new MemoryStream(bytes, 0, cut);
            var error = Assert.Throws<TaskTreeFormatException>(() => TaskTreeFile.Read(stream, "n.dctree"));
            Assert.Contains("'n.dctree' is truncated", error.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void Corrupt_nested_data_is_named()
    {
        byte[] good = Bytes(WithNested());
        int header = Bytes(WithNested().WithNestedRuns([])).Length - 6; // where the outer tree's nested-run count is
        Assert.Equal(2, good[header]);

        // The first run's host: node 9 of a 3-node tree; its phase: 7.
        byte[] host = (byte[])good.Clone();
        host[header + 1] = 9;
        byte[] phase = (byte[])good.Clone();
        phase[header + 2] = 7;
        // Host a leaf (node 1): a nested run names no internal node.
        byte[] leaf = (byte[])good.Clone();
        leaf[header + 1] = 1;

        Assert.Contains("corrupt", ReadError(host), StringComparison.Ordinal);
        Assert.Contains("phase 7", ReadError(phase), StringComparison.Ordinal);
        Assert.Contains("names no internal node", ReadError(leaf), StringComparison.Ordinal);
    }

    [Fact]
    public void Nested_runs_are_validated_against_their_host()
    {
        var outer = TaskTree.FromChildCounts([2, 0, 0], _ => 100, _ => 10);
        var inner = TaskTree.FromShape(2, 1, execute: 5);

        Assert.Throws<ArgumentException>(() => outer.WithNestedRuns([new TaskTreeNestedRun(1, DivideAndConquerPhase.Split, 0, inner)]));
        Assert.Throws<ArgumentException>(() => outer.WithNestedRuns([new TaskTreeNestedRun(0, DivideAndConquerPhase.Execute, 0, inner)]));
        Assert.Throws<ArgumentException>(() => outer.WithNestedRuns([new TaskTreeNestedRun(0, DivideAndConquerPhase.Split, -1, inner)]));
        var error = Assert.Throws<ArgumentException>(() => outer.WithNestedRuns(
            [new TaskTreeNestedRun(0, DivideAndConquerPhase.Merge, 6, inner), new TaskTreeNestedRun(0, DivideAndConquerPhase.Merge, 5, inner)]));
        Assert.Contains("exceeds", error.Message, StringComparison.Ordinal);

        // Given out of order, kept in host, phase, then given order.
        var tree = outer.WithNestedRuns(
            [new TaskTreeNestedRun(0, DivideAndConquerPhase.Merge, 1, inner), new TaskTreeNestedRun(0, DivideAndConquerPhase.Split, 2, inner), new TaskTreeNestedRun(0, DivideAndConquerPhase.Merge, 3, inner)]);
        Assert.Equal([2L, 1L, 3L], tree.NestedRuns.Select(r => r.WorkBefore));
        Assert.Equal(outer.TotalWork + (3 * inner.TotalWork), tree.TotalWork);
    }

    [Fact]
    public void Median_combines_nested_runs_of_the_same_shape()
    {
        TaskTree Make(long before, long leaf) =>
            TaskTree.FromChildCounts([2, 0, 0], _ => 100, _ => 10).WithNestedRuns([new TaskTreeNestedRun(0, DivideAndConquerPhase.Split, before, TaskTree.FromShape(2, 1, execute: leaf))]);

        var median = TaskTree.Median([Make(10, 5), Make(30, 7), Make(20, 6)]);

        var run = Assert.Single(median.NestedRuns);
        Assert.Equal(20, run.WorkBefore);
        Assert.Equal([6L, 6L], run.Tree.Nodes.Where(n => n.IsLeaf).Select(n => n.Work));
    }

    // Outer: root with two leaves; the root's split hosts a 3-node run (which itself hosts a 1-node run in its
    // split), its merge a 1-node run.
    private static TaskTree WithNested()
    {
        var innermost = new TaskTree([new TaskTreeNode(-1, 1, 0, 0, 1_500, 40, -1, 0, 1, -1, 2)]);
        var inner = TaskTree.FromChildCounts([2, 0, 0], i => 100 + i, _ => 30)
            .WithNestedRuns([new TaskTreeNestedRun(0, DivideAndConquerPhase.Split, 60, innermost)]);
        var merged = new TaskTree([new TaskTreeNode(-1, 1, 0, 0, 9_000, 70, -1, 0, 0, -1)]);
        return TaskTree.FromChildCounts([2, 0, 0], i => 1000 + i, _ => 500, new Dictionary<string, string> { ["program"] = "nested" })
            .WithNestedRuns([new TaskTreeNestedRun(0, DivideAndConquerPhase.Split, 400, inner), new TaskTreeNestedRun(0, DivideAndConquerPhase.Merge, 123, merged)]);
    }

    private static void AssertSame(TaskTree expected, TaskTree actual)
    {
        Assert.Equal(expected.Nodes, actual.Nodes);
        Assert.Equal(expected.Properties, actual.Properties);
        Assert.Equal(expected.NestedRuns.Count, actual.NestedRuns.Count);
        for (int i = 0; i < expected.NestedRuns.Count; i++)
        {
            var (e, a) = (expected.NestedRuns[i], actual.NestedRuns[i]);
            Assert.Equal((e.Node, e.Phase, e.WorkBefore), (a.Node, a.Phase, a.WorkBefore));
            AssertSame(e.Tree, a.Tree);
        }
    }

    private static byte[] Bytes(TaskTree tree)
    {
        using var stream = new MemoryStream();
        TaskTreeFile.Write(stream, tree, compress: false);
        return stream.ToArray();
    }

    private static string ReadError(byte[] bytes)
    {
        using var stream = new MemoryStream(bytes);
        return Assert.Throws<TaskTreeFormatException>(() => TaskTreeFile.Read(stream, "n.dctree")).Message;
    }
}
