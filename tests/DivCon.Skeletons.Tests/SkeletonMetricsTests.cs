using System.Collections.Concurrent;
using System.Diagnostics.Metrics;

namespace DivCon.Skeletons.Tests;

/// <summary>The DivCon.Skeletons meter: runs started and ended by outcome, nodes run as tasks and inline.</summary>
[Collection(nameof(DedicatedThreadTests))] // Alone: the meter is process-wide, and other tests' runs would count.
public sealed class SkeletonMetricsTests
{
    private static DivideAndConquer<int, long> Fibonacci(Granularity granularity, bool failAtLeaves = false) =>
        DivideAndConquer.CreateBinary<int, long>(
            shouldSplit: (n, _) => n > 1,
            split: (n, _) => (n - 1, n - 2),
            execute: (n, _) => failAtLeaves ? throw new InvalidOperationException("leaf") : n,
            merge: (_, left, right, _) => left + right,
            granularity: granularity);

    [Fact]
    public async Task Runs_and_nodes_are_counted_by_outcome_and_kind()
    {
        var measured = new ConcurrentQueue<(string Name, long Value, string? Tag)>();
        using var listener = new MeterListener
        {
            InstrumentPublished = (instrument, l) =>
            {
                if (instrument.Meter.Name == "DivCon.Skeletons")
                {
                    l.EnableMeasurementEvents(instrument);
                }
            },
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) =>
            measured.Enqueue((instrument.Name, value, tags.Length > 0 ? tags[0].Value as string : null)));
        listener.Start();

        Assert.Equal(55, await Fibonacci(Granularity.EveryNodeATask).RunAsync(10));
        Assert.Equal(55, await Fibonacci(Granularity.Sequential).RunAsync(10));
        await Assert.ThrowsAsync<InvalidOperationException>(() => Fibonacci(Granularity.EveryNodeATask, failAtLeaves: true).RunAsync(10));

        long Sum(string name, string? tag) => measured.Where(m => m.Name == name && m.Tag == tag).Sum(m => m.Value);
        Assert.Equal(3, Sum("divcon.skeleton.runs.started", null));
        Assert.Equal(2, Sum("divcon.skeleton.runs.completed", "succeeded"));
        Assert.Equal(1, Sum("divcon.skeleton.runs.completed", "faulted"));
        Assert.Equal(0, Sum("divcon.skeleton.runs.completed", "canceled"));
        // fib(10) has 177 nodes: the first run makes every one a task, the second runs the whole tree inline as one
        // subtree (its nodes are counted only when the run is observed), the failing one stops early.
        Assert.InRange(Sum("divcon.skeleton.nodes", "task"), 177 + 1, 177 + 1 + 177);
        Assert.Equal(1, Sum("divcon.skeleton.inline.subtrees", null));
        Assert.Equal(0, Sum("divcon.skeleton.nodes", "inline"));
    }
}
