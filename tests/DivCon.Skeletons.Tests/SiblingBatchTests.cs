using System.Collections;
using System.Diagnostics;
using DivCon.Skeletons.Tests.Infrastructure;

namespace DivCon.Skeletons.Tests;

/// <summary>
/// A node worth a task whose children are each predicted cheaper than the minimum task cost runs them in batches (a
/// task per batch, the last batch on its own thread) instead of a task per child: every node still runs and reports
/// once, failures still fault the run, and nothing waits forever.
/// </summary>
public sealed class SiblingBatchTests
{
    private const int Middle = 8;
    private const int Wide = 256;

    // Leaves of 20 us against a minimum task cost of 2 ms: a middle node (256 leaves, about 5 ms) is worth a task, a
    // leaf is a hundred times too cheap, with room for preemption to inflate a measurement.
    private static readonly Granularity Coarse = Granularity.Automatic(TimeSpan.FromMilliseconds(2), TimeSpan.FromMilliseconds(50));

    private readonly record struct Node(int Depth, int Index);

    private static void Spin(double microseconds)
    {
        long end = Stopwatch.GetTimestamp() + (long)(microseconds * Stopwatch.Frequency / 1e6);
        while (Stopwatch.GetTimestamp() < end)
        {
        }
    }

    private static DivideAndConquer<Node, long> WideTree(Func<Node, IReadOnlyList<Node>>? middleChildren = null) =>
        DivideAndConquer.Create<Node, long>(
            shouldSplit: (node, depth) => node.Depth < 2,
            split: (node, depth) => node.Depth == 0
                ? [.. Enumerable.Range(0, Middle).Select(i => new Node(1, i))]
                : middleChildren?.Invoke(node) ?? [.. Enumerable.Range(0, Wide).Select(i => new Node(2, i))],
            execute: (node, depth) =>
            {
                Spin(20);
                return 1;
            },
            merge: (results, depth) => results.Sum());

    [Fact]
    public async Task Cheap_children_of_a_task_node_run_in_batches_and_every_node_is_counted_once()
    {
        using var scheduler = new LifoTaskScheduler();
        var observer = new PhaseAggregator();

        long leaves = await WideTree().RunAsync(new Node(0, 0), new DivideAndConquerOptions { Scheduler = scheduler, Observer = observer, Granularity = Coarse })
            .WaitAsync(TestTimeouts.Generous);

        Assert.Equal(Middle * Wide, leaves);
        // Every node exactly once, as a task node or an inline one.
        Assert.Equal(1 + Middle + (Middle * Wide), observer.TaskNodes + observer.InlineNodes);
        // Depth first on one worker: the first middle node's leaves are tasks (nothing measured yet); the other seven
        // find the leaves' cost and batch them (about 100 per task at 20 us against 2 ms). A task per leaf: 2,057.
        long atMost = 1 + Middle + Wide + ((Middle - 1) * 16);
        Assert.True(observer.TaskNodes <= atMost, $"{observer.TaskNodes} task nodes (at most {atMost} expected; {observer.InlineNodes} inline)");
    }

    [Fact]
    public async Task Without_the_lower_bound_every_child_is_still_a_task()
    {
        using var scheduler = new LifoTaskScheduler();
        var observer = new PhaseAggregator();

        long leaves = await WideTree().RunAsync(new Node(0, 0), new DivideAndConquerOptions { Scheduler = scheduler, Observer = observer, Granularity = Granularity.EveryNodeATask })
            .WaitAsync(TestTimeouts.Generous);

        Assert.Equal(Middle * Wide, leaves);
        Assert.Equal(1 + Middle + (Middle * Wide), observer.TaskNodes);
        Assert.Equal(0, observer.InlineNodes);
    }

    [Fact]
    public async Task A_failing_child_in_a_batch_faults_the_run_with_its_exception()
    {
        using var scheduler = new LifoTaskScheduler();
        var failure = new InvalidOperationException("leaf 100 of middle node 0");

        // Depth first, middle node 0 runs last, when its leaves are batched; its leaf 100 is in the second batch.
        var failing = DivideAndConquer.Create<Node, long>(
            shouldSplit: (node, depth) => node.Depth < 2,
            split: (node, depth) => node.Depth == 0
                ? [.. Enumerable.Range(0, Middle).Select(i => new Node(1, i))]
                : [.. Enumerable.Range(0, Wide).Select(i => new Node(2, node.Index == 0 && i == 100 ? -1 : i))],
            execute: (node, depth) =>
            {
                Spin(20);
                return node.Index < 0 ? throw failure : 1;
            },
            merge: (results, depth) => results.Sum());

        var thrown = await Assert.ThrowsAsync<InvalidOperationException>(() =>
            failing.RunAsync(new Node(0, 0), new DivideAndConquerOptions { Scheduler = scheduler, Granularity = Coarse }).WaitAsync(TestTimeouts.Generous));
        Assert.Same(failure, thrown);

        // The scheduler is healthy: the same program without the failure completes on it.
        Assert.Equal(Middle * Wide, await WideTree().RunAsync(new Node(0, 0), new DivideAndConquerOptions { Scheduler = scheduler, Granularity = Coarse }).WaitAsync(TestTimeouts.Generous));
    }

    [Fact]
    public async Task A_list_that_throws_in_the_middle_of_a_batch_fails_the_run_and_the_run_still_completes()
    {
        using var scheduler = new LifoTaskScheduler();
        var failure = new InvalidOperationException("the list broke at 150");
        var program = WideTree(middleChildren: node => node.Index == 0 ? new BreakingList(Wide, 150, failure) : [.. Enumerable.Range(0, Wide).Select(i => new Node(2, i))]);

        var thrown = await Assert.ThrowsAsync<InvalidOperationException>(() =>
            program.RunAsync(new Node(0, 0), new DivideAndConquerOptions { Scheduler = scheduler, Granularity = Coarse }).WaitAsync(TestTimeouts.Generous));
        Assert.Same(failure, thrown);
    }

    /// <summary>Children 0..count-1 at depth 2, whose indexer throws at <c>brokenAt</c>.</summary>
    private sealed class BreakingList(int count, int brokenAt, Exception failure) : IReadOnlyList<Node>
    {
        public int Count => count;

        public Node this[int index] => index == brokenAt ? throw failure : new Node(2, index);

        public IEnumerator<Node> GetEnumerator()
        {
            for (int i = 0; i < count; i++)
            {
                yield return this[i];
            }
        }

        IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
    }
}
