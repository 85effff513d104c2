using DivCon.Simulator.Engine;

namespace DivCon.Simulator.Tests;

/// <summary>
/// The simulator's two heaps against the plain structures they replace: the same events (and finishers) come out in
/// the same order, ties included, so a faster event loop cannot change a simulated result.
/// </summary>
public sealed class EventQueueTests
{
    [Theory]
    [InlineData(1, 4)]
    [InlineData(2, 64)]
    [InlineData(3, 320)]
    public void Event_queue_pops_what_one_shot_events_with_versions_pop(int seed, int groups)
    {
        // Reference: every schedule is a one-shot event carrying the group's version; a later schedule or a cancel
        // makes the earlier ones stale, and stale events are skipped when they come due.
        var random = new Random(seed);
        var queue = new EventQueue(groups);
        var reference = new PriorityQueue<(int Group, int Version, int Kind), (long Time, long Sequence)>();
        var version = new int[groups];
        long sequence = 0;
        long now = 0;
        var popped = new List<(long Time, int Group, int Kind)>();
        for (int step = 0; step < 20_000; step++)
        {
            int op = random.Next(10);
            // Small time offsets: equal times are common, so the tie rule is exercised.
            long time = now + random.Next(4);
            if (op < 5)
            {
                int g = random.Next(groups);
                queue.ScheduleGroup(g, time);
                reference.Enqueue((g, ++version[g], -1), (time, sequence++));
            }
            else if (op < 6)
            {
                int g = random.Next(groups);
                queue.CancelGroup(g);
                version[g]++;
            }
            else if (op < 7)
            {
                int kind = random.Next(1, 5);
                queue.Schedule(time, kind, kind, 0);
                reference.Enqueue((-1, 0, kind), (time, sequence++));
            }
            else
            {
                bool got = queue.TryDequeue(out long at, out int group, out var timed);
                (long Time, int Group, int Kind)? next = null;
                while (reference.TryDequeue(out var e, out var key))
                {
                    if (e.Group >= 0)
                    {
                        if (e.Version != version[e.Group])
                        {
                            continue; // stale
                        }

                        version[e.Group]++; // handled: no pending event until the group is rescheduled
                    }

                    next = (key.Time, e.Group, e.Kind);
                    break;
                }

                Assert.Equal(next.HasValue, got);
                if (got)
                {
                    Assert.Equal(next!.Value, (at, group, group >= 0 ? -1 : timed.Kind));
                    popped.Add((at, group, group >= 0 ? -1 : timed.Kind));
                    now = at;
                }
            }
        }

        Assert.True(popped.Count > 1_000, $"only {popped.Count} events popped");
        Assert.Contains(popped, e => e.Kind > 0);
    }

    [Theory]
    [InlineData(1, 5)]
    [InlineData(2, 320)]
    public void Finisher_heap_releases_threads_in_the_runtime_priority_queue_order(int seed, int threads)
    {
        var random = new Random(seed);
        var heap = new FinisherHeap();
        var reference = new PriorityQueue<int, double>();
        var idle = Enumerable.Range(0, threads).ToList();
        int ties = 0;
        for (int step = 0; step < 50_000; step++)
        {
            if (idle.Count > 0 && (idle.Count == threads || random.Next(2) == 0))
            {
                int pick = random.Next(idle.Count);
                int t = idle[pick];
                idle.RemoveAt(pick);
                // Finish times on a coarse grid: many are equal, and equal ones must leave in the same order.
                double finish = random.Next(50);
                heap.Enqueue(t, finish);
                reference.Enqueue(t, finish);
            }
            else
            {
                Assert.True(heap.TryPeek(out int thread, out double finish));
                Assert.True(reference.TryPeek(out int expectedThread, out double expectedFinish));
                Assert.Equal((expectedThread, expectedFinish), (thread, finish));
                heap.Dequeue();
                reference.Dequeue();
                idle.Add(thread);
                if (reference.TryPeek(out _, out double next) && next == finish)
                {
                    ties++;
                }
            }

            Assert.Equal(reference.Count, heap.Count);
        }

        Assert.True(ties > 100, $"only {ties} ties");
    }
}
