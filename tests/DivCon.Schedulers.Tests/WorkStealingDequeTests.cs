using DivCon.Schedulers.Collections;

namespace DivCon.Schedulers.Tests;

public sealed class WorkStealingDequeTests
{
    private static readonly TimeSpan StressTimeout = TimeSpan.FromSeconds(30);

    [Fact]
    public void Owner_pops_newest_first_and_thief_steals_oldest_first()
    {
        var deque = new WorkStealingDeque<string>();
        deque.LocalPush("a");
        deque.LocalPush("b");
        deque.LocalPush("c");

        Assert.Equal("c", deque.LocalPop());
        Assert.Equal(StealResult.Success, deque.TrySteal(out string? stolen));
        Assert.Equal("a", stolen);
        Assert.Equal("b", deque.LocalPop());
        Assert.Null(deque.LocalPop());
        Assert.Equal(StealResult.Empty, deque.TrySteal(out stolen));
        Assert.Null(stolen);
        Assert.Equal(0, deque.Count);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-1)]
    [InlineData((1 << 30) + 1)]
    public void Bad_initial_capacity_is_rejected(int capacity) =>
        Assert.Throws<ArgumentOutOfRangeException>(() => new WorkStealingDeque<string>(capacity));

    [Fact]
    public void Null_items_are_rejected() =>
        Assert.Throws<ArgumentNullException>(() => new WorkStealingDeque<string>().LocalPush(null!));

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void Random_owner_sequences_match_a_stack_model(int seed)
    {
        var random = new Random(seed);
        var deque = new WorkStealingDeque<object>(initialCapacity: 2);
        var model = new Stack<object>();
        for (int step = 0; step < 20_000; step++)
        {
            if (random.Next(3) < 2)
            {
                var item = new object();
                deque.LocalPush(item);
                model.Push(item);
            }
            else
            {
                object? popped = deque.LocalPop();
                object? expected = model.Count > 0 ? model.Pop() : null;
                Assert.Same(expected, popped);
            }

            Assert.Equal(model.Count, deque.Count);
        }

        Assert.True(deque.Capacity >= 2);
    }

    [Fact]
    public void Grows_past_its_initial_capacity_and_keeps_fifo_order_for_thieves()
    {
        var deque = new WorkStealingDeque<string>(initialCapacity: 2);
        for (int i = 0; i < 100; i++)
        {
            deque.LocalPush(i.ToString(System.Globalization.CultureInfo.InvariantCulture));
        }

        Assert.True(deque.Capacity >= 100);
        for (int i = 0; i < 100; i++)
        {
            Assert.Equal(StealResult.Success, deque.TrySteal(out string? item));
            Assert.Equal(i.ToString(System.Globalization.CultureInfo.InvariantCulture), item);
        }
    }

    [Fact]
    public void Local_drain_returns_everything_oldest_first()
    {
        var deque = new WorkStealingDeque<string>();
        deque.LocalPush("a");
        deque.LocalPush("b");
        deque.LocalPush("c");
        var drained = new List<string>();

        Assert.Equal(3, deque.LocalDrain(drained));
        Assert.Equal(["a", "b", "c"], drained);
        Assert.True(deque.IsEmpty);
    }

    [Fact]
    public void Snapshot_lists_live_items_oldest_first()
    {
        var deque = new WorkStealingDeque<string>();
        deque.LocalPush("a");
        deque.LocalPush("b");
        deque.LocalPop();
        deque.LocalPush("c");

        Assert.Equal(["a", "c"], deque.ToArraySnapshot());
    }

    [Theory]
    [InlineData(2, 11)]
    [InlineData(3, 12)]
    public void Owner_and_thieves_take_every_item_exactly_once(int thiefCount, int seed)
    {
        const int ItemCount = 200_000;
        var items = new Box[ItemCount];
        for (int i = 0; i < ItemCount; i++)
        {
            items[i] = new Box(i);
        }

        var deque = new WorkStealingDeque<Box>(initialCapacity: 4);
        var takenBy = new int[ItemCount];
        int ownerDone = 0;
        long retries = 0;

        void Take(Box box)
        {
            // Interlocked: records who took it; a second taker of the same item is a failure.
            int previous = Interlocked.Exchange(ref takenBy[box.Value], 1);
            Assert.Equal(0, previous);
        }

        var thieves = Enumerable.Range(0, thiefCount).Select(t => Task.Factory.StartNew(
            () =>
            {
                var random = new Random(seed * 100 + t);
                while (true)
                {
                    bool ownerFinished = Volatile.Read(ref ownerDone) != 0;
                    switch (deque.TrySteal(out Box? box))
                    {
                        case StealResult.Success:
                            Take(box!);
                            break;
                        case StealResult.Retry:
                            Interlocked.Increment(ref retries);
                            break;
                        default:
                            if (ownerFinished)
                            {
                                return;
                            }

                            break;
                    }

                    if (random.Next(64) == 0)
                    {
                        Thread.Yield();
                    }
                }
            },
            TaskCreationOptions.LongRunning)).ToArray();

        var ownerRandom = new Random(seed);
        int next = 0;
        while (next < ItemCount)
        {
            int burst = ownerRandom.Next(1, 64);
            for (int i = 0; i < burst && next < ItemCount; i++)
            {
                deque.LocalPush(items[next++]);
            }

            int pops = ownerRandom.Next(0, burst);
            for (int i = 0; i < pops; i++)
            {
                if (deque.LocalPop() is { } box)
                {
                    Take(box);
                }
            }

            if (ownerRandom.Next(16) == 0)
            {
                Thread.Yield();
            }
        }

        while (deque.LocalPop() is { } rest)
        {
            Take(rest);
        }

        Volatile.Write(ref ownerDone, 1);
        Assert.True(Task.WaitAll(thieves, StressTimeout), "Thieves did not finish.");
        Assert.Equal(ItemCount, takenBy.Count(flag => flag == 1));
        Assert.True(deque.IsEmpty);
    }

    private sealed record Box(int Value);
}
