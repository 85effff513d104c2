using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>
/// <see cref="MultiprogramScheduler.ReadEventsAsync(int, CancellationToken)"/>: the decisions in order, the end of the
/// stream at disposal, cancellation, and a bounded stream that drops its oldest events.
/// </summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class MechanismEventStreamTests
{
    [Fact]
    public async Task The_stream_holds_every_decision_in_order_from_the_call_on_and_ends_at_disposal()
    {
        var raised = new List<RebalanceEvent>();
        var scheduler = MechanismSchedulers.Unpinned(4);
        scheduler.Rebalanced += (_, e) => raised.Add(e);
        IAsyncEnumerable<RebalanceEvent> stream = scheduler.ReadEventsAsync(TestCancellation());
        using (ProgramTaskScheduler a = scheduler.Register("a"))
        using (ProgramTaskScheduler b = scheduler.Register("b"))
        {
            scheduler.SetAllocation([new(a, 1), new(b, 3)]);
        }

        using (scheduler.Register("c"))
        {
            await scheduler.DisposeAsync();
        }

        List<RebalanceEvent> read = await ReadAllAsync(stream);
        Assert.Equal(
            [RebalanceReason.Arrival, RebalanceReason.Arrival, RebalanceReason.Manual, RebalanceReason.Departure, RebalanceReason.Departure, RebalanceReason.Arrival, RebalanceReason.Departure],
            read.Select(e => e.Reason));
        Assert.Equal(raised, read); // The same events as the handlers, in the same order.
        Assert.Equal(0, scheduler.DroppedEvents);
    }

    [Fact]
    public async Task A_pending_read_ends_when_the_scheduler_is_disposed_and_a_stream_opened_afterwards_is_empty()
    {
        var scheduler = MechanismSchedulers.Unpinned(2);
        await using IAsyncEnumerator<RebalanceEvent> reader = scheduler.ReadEventsAsync(TestCancellation()).GetAsyncEnumerator();
        ValueTask<bool> next = reader.MoveNextAsync();
        Assert.False(next.IsCompleted); // Nothing decided yet: the read waits.

        scheduler.Dispose();
        Assert.False(await next.AsTask().WaitAsync(TestSchedulers.Timeout));
        Assert.Empty(await ReadAllAsync(scheduler.ReadEventsAsync(TestCancellation())));
    }

    [Fact]
    public async Task Cancelling_the_read_ends_it_and_closes_the_stream()
    {
        using var scheduler = MechanismSchedulers.Unpinned(4);
        using var cancel = new CancellationTokenSource();
        IAsyncEnumerator<RebalanceEvent> reader = scheduler.ReadEventsAsync(1, cancel.Token).GetAsyncEnumerator(CancellationToken.None);
        ValueTask<bool> next = reader.MoveNextAsync();
        Assert.False(next.IsCompleted);

        cancel.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => next.AsTask().WaitAsync(TestSchedulers.Timeout));
        await reader.DisposeAsync();

        // Closed: later decisions are not written into it (a capacity-1 stream would drop all but the last).
        using ProgramTaskScheduler a = scheduler.Register("a");
        using ProgramTaskScheduler b = scheduler.Register("b");
        scheduler.SetAllocation([new(a, 1), new(b, 3)]);
        Assert.Equal(0, scheduler.DroppedEvents);
    }

    [Fact]
    public async Task A_reader_that_falls_behind_keeps_only_the_newest_events_and_the_dropped_ones_are_counted()
    {
        using var scheduler = MechanismSchedulers.Unpinned(4);
        await using IAsyncEnumerator<RebalanceEvent> reader = scheduler.ReadEventsAsync(2, TestCancellation()).GetAsyncEnumerator();
        using ProgramTaskScheduler a = scheduler.Register("a");
        using ProgramTaskScheduler b = scheduler.Register("b");
        const int Explicit = 50;
        for (int i = 0; i < Explicit; i++)
        {
            scheduler.SetAllocation(i % 2 == 0 ? [new(a, 1), new(b, 3)] : [new(a, 3), new(b, 1)]);
        }

        // Two arrivals and the explicit decisions went in; the stream kept the last two.
        Assert.Equal(2 + Explicit - 2, scheduler.DroppedEvents);
        IReadOnlyList<RebalanceEvent> history = scheduler.History;
        Assert.True(await reader.MoveNextAsync());
        Assert.Same(history[^2], reader.Current);
        Assert.True(await reader.MoveNextAsync());
        Assert.Same(history[^1], reader.Current);
        Assert.Equal([new ProgramAllocation(a.ProgramId, 3), new ProgramAllocation(b.ProgramId, 1)], reader.Current.After);
    }

    [Fact]
    public void A_capacity_below_one_is_refused()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2);
        var error = Assert.Throws<ArgumentOutOfRangeException>("capacity", () => scheduler.ReadEventsAsync(0, CancellationToken.None));
        Assert.Contains("0", error.Message, StringComparison.Ordinal);
    }

    private static CancellationToken TestCancellation() => new CancellationTokenSource(TestSchedulers.Timeout).Token;

    private static async Task<List<RebalanceEvent>> ReadAllAsync(IAsyncEnumerable<RebalanceEvent> stream)
    {
        var read = new List<RebalanceEvent>();
        await foreach (RebalanceEvent decision in stream)
        {
            read.Add(decision);
        }

        return read;
    }
}
