using System.Collections.Concurrent;
using System.Diagnostics;
using DivCon.Skeletons.Engines;
using DivCon.Skeletons.Tests.Infrastructure;

namespace DivCon.Skeletons.Tests;

/// <summary>
/// Index loops of few expensive iterations (<c>ForAsync</c>, <c>ForRangesAsync</c> whose remembered cost per index is at
/// least a quarter of the minimum task cost) are dealt out: a dealer task per worker takes the next chunk of at most
/// four indexes until none is left. The policy on plain data; the loops: chunks, tasks, coverage, what they learn,
/// faults and cancellation; and that cheaper loops keep inlining and halving.
/// </summary>
public sealed class DealtLoopTests
{
    private static readonly double s_minimumTicks = Granularity.DefaultMinimumTaskCost.TotalSeconds * Stopwatch.Frequency;

    [Theory]
    [InlineData(100.0, 100, 1)]
    [InlineData(1e9, 100, 1)]
    [InlineData(99.0, 100, 2)]
    [InlineData(50.0, 100, 2)]
    [InlineData(34.0, 100, 3)]
    [InlineData(25.0, 100, 4)]
    [InlineData(24.9, 100, 0)]
    [InlineData(1.0, 100, 0)]
    [InlineData(double.PositiveInfinity, 100, 0)]
    public void DealtChunk_is_the_indexes_worth_a_task_when_at_most_four(double costPerUnit, long minimumTicks, int expected) =>
        Assert.Equal(expected, NestedLoop.DealtChunk(costPerUnit, minimumTicks));

    [Theory]
    [InlineData(1, 1, 4, 1)]
    [InlineData(7, 1, 2, 2)]
    [InlineData(5, 2, 8, 3)]
    [InlineData(8, 4, 8, 2)]
    [InlineData(1000, 1, 16, 16)]
    public void Dealers_are_one_per_worker_but_no_more_than_the_chunks(long size, int chunk, int workers, int expected) =>
        Assert.Equal(expected, NestedLoop.Dealers(size, chunk, workers));

    [Theory]
    [InlineData(1, false, 1)]
    [InlineData(8, false, 8)]
    [InlineData(1, true, 2)]
    [InlineData(8, true, 16)]
    [InlineData(int.MaxValue, true, int.MaxValue)]
    public void Dealer_slots_are_the_workers_and_twice_them_on_the_thread_pool(int workers, bool onThreadPool, int expected) =>
        Assert.Equal(expected, NestedLoop.DealerSlots(workers, onThreadPool));

    [Fact]
    public async Task On_the_thread_pool_a_loop_deals_to_two_dealers_per_worker()
    {
        var ranges = new ConcurrentQueue<IndexRange>();
        int workers = GranularityPolicy.WorkerCount(TaskScheduler.Default.MaximumConcurrencyLevel, Environment.ProcessorCount);
        int size = (4 * workers) + 3;

        var observer = await DealAsync(TaskScheduler.Default, size, ranges.Enqueue);

        // Chunks of one index (each worth two minimum task costs): every index once, a dealer task per slot.
        Assert.Equal(Enumerable.Range(0, size), ranges.Select(r => r.Start).Order());
        Assert.Equal(2 * workers, observer.TaskNodes);
        Assert.Equal(1, observer.InlineNodes);
    }

    [Theory]
    [InlineData(0L, 4L)]
    [InlineData(100L, 400L)]
    [InlineData(long.MaxValue / 2, long.MaxValue)]
    public void A_dealers_slice_is_four_minimum_task_costs_saturated(long minimumTicks, long expected) =>
        Assert.Equal(expected, NestedLoop.SliceTicks(minimumTicks));

    [Fact]
    public void The_dealing_policy_rejects_bad_arguments_by_name()
    {
        Assert.Equal("workers", Assert.Throws<ArgumentOutOfRangeException>(() => NestedLoop.DealerSlots(0, true)).ParamName);
        Assert.Equal("costPerUnit", Assert.Throws<ArgumentOutOfRangeException>(() => NestedLoop.DealtChunk(0, 100)).ParamName);
        Assert.Equal("costPerUnit", Assert.Throws<ArgumentOutOfRangeException>(() => NestedLoop.DealtChunk(-1, 100)).ParamName);
        Assert.Equal("costPerUnit", Assert.Throws<ArgumentOutOfRangeException>(() => NestedLoop.DealtChunk(double.NaN, 100)).ParamName);
        Assert.Equal("minimumTicks", Assert.Throws<ArgumentOutOfRangeException>(() => NestedLoop.DealtChunk(10, 0)).ParamName);
        Assert.Equal("size", Assert.Throws<ArgumentOutOfRangeException>(() => NestedLoop.Dealers(0, 1, 1)).ParamName);
        Assert.Equal("chunk", Assert.Throws<ArgumentOutOfRangeException>(() => NestedLoop.Dealers(1, 0, 1)).ParamName);
        Assert.Equal("workers", Assert.Throws<ArgumentOutOfRangeException>(() => NestedLoop.Dealers(1, 1, 0)).ParamName);
    }

    [Fact]
    public async Task Expensive_indexes_are_dealt_one_at_a_time_to_a_task_per_worker_on_the_callers_scheduler()
    {
        using var scheduler = new CountingTaskScheduler(2, allowInlining: false, "dealt");
        var ranges = new ConcurrentQueue<IndexRange>();
        int offScheduler = 0;

        var observer = await DealAsync(scheduler, 40, range =>
        {
            ranges.Enqueue(range);
            if (!scheduler.IsCurrentThreadAWorker)
            {
                Interlocked.Increment(ref offScheduler);
            }
        });

        // Every index once, each its own piece; one dealer task per worker, however many indexes (all on the
        // scheduler's workers: no index ran on the calling thread), and the root, which only queued them, inline.
        Assert.All(ranges, r => Assert.Equal(1, r.Length));
        Assert.Equal(Enumerable.Range(0, 40), ranges.Select(r => r.Start).Order());
        Assert.Equal(0, offScheduler);
        Assert.Equal(2, observer.TaskNodes);
        Assert.Equal(1, observer.InlineNodes);
    }

    [Fact]
    public async Task A_dealer_gives_its_worker_back_after_a_slice_while_indexes_are_left()
    {
        using var scheduler = new CountingTaskScheduler(2, allowInlining: false, "dealt");
        var slice = TimeSpan.FromTicks(Granularity.DefaultMinimumTaskCost.Ticks * NestedLoop.DealerSlice);
        var ranges = new ConcurrentQueue<IndexRange>();

        // Every index outlasts a slice, so a dealer's task runs one index and queues its next step while any is left:
        // at least a task per index on the scheduler, still two dealer nodes, every index once.
        var observer = await DealAsync(scheduler, 12, range =>
        {
            ranges.Enqueue(range);
            var elapsed = Stopwatch.StartNew();
            while (elapsed.Elapsed <= slice)
            {
                Thread.SpinWait(20);
            }
        });

        Assert.Equal(Enumerable.Range(0, 12), ranges.Select(r => r.Start).Order());
        Assert.All(ranges, r => Assert.Equal(1, r.Length));
        Assert.True(scheduler.ExecutedCount >= 12, $"{scheduler.ExecutedCount} tasks for 12 indexes each longer than a slice");
        Assert.Equal(2, observer.TaskNodes);
        Assert.Equal(1, observer.InlineNodes);
    }

    [Fact]
    public async Task Indexes_worth_a_third_of_a_task_are_dealt_in_chunks_of_three_covering_the_range()
    {
        using var scheduler = new CountingTaskScheduler(2, allowInlining: false, "dealt");
        var key = new object();
        Remember(key, s_minimumTicks / 2.9);
        var ranges = new ConcurrentQueue<IndexRange>();

        await DivideAndConquer.ForRangesAsync(5, 36, ranges.Enqueue, new DivideAndConquerOptions { Scheduler = scheduler }, key)
            .AsTask().WaitAsync(TestTimeouts.Generous);

        // 31 indexes from 5, 2 dealers: chunks of 3 while at least 12 remain, then 2 while at least 8, then single
        // indexes (the claims follow the counter, so the sequence does not depend on which dealer claims).
        var sorted = ranges.OrderBy(r => r.Start).ToList();
        int[] lengths = [3, 3, 3, 3, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1];
        Assert.Equal(lengths, sorted.Select(r => r.Length));
        Assert.Equal(5, sorted[0].Start);
        Assert.All(sorted.Zip(sorted.Skip(1)), pair => Assert.Equal(pair.First.End, pair.Second.Start));
        Assert.Equal(36, sorted[^1].End);
    }

    [Theory]
    [InlineData(31, 3, 2, 3)]
    [InlineData(12, 3, 2, 3)]
    [InlineData(11, 3, 2, 2)]
    [InlineData(7, 3, 2, 1)]
    [InlineData(1, 4, 8, 1)]
    [InlineData(1000, 4, 1, 4)]
    [InlineData(5, 2, 2, 1)]
    public void NextChunk_shrinks_to_single_indexes_as_the_range_runs_out(long remaining, int chunk, int dealers, int expected) =>
        Assert.Equal(expected, NestedLoop.NextChunk(remaining, chunk, dealers));

    [Fact]
    public void NextChunk_names_a_bad_argument()
    {
        Assert.Equal("remaining", Assert.Throws<ArgumentOutOfRangeException>(() => NestedLoop.NextChunk(0, 3, 2)).ParamName);
        Assert.Equal("chunk", Assert.Throws<ArgumentOutOfRangeException>(() => NestedLoop.NextChunk(5, 0, 2)).ParamName);
        Assert.Equal("dealers", Assert.Throws<ArgumentOutOfRangeException>(() => NestedLoop.NextChunk(5, 3, 0)).ParamName);
    }

    [Fact]
    public async Task A_worker_held_by_one_index_leaves_every_other_index_to_the_other_dealer()
    {
        using var scheduler = new CountingTaskScheduler(2, allowInlining: false, "dealt");
        var key = new object();
        Remember(key, s_minimumTicks * 10);
        using var othersDone = new ManualResetEventSlim();
        int others = 0;
        bool released = false;

        // Index 0 waits until the 15 others have run: they can only run on the other worker, one after another.
        await DivideAndConquer.ForAsync(
            0,
            16,
            i =>
            {
                if (i == 0)
                {
                    released = othersDone.Wait(TestTimeouts.Generous);
                }
                else if (Interlocked.Increment(ref others) == 15)
                {
                    othersDone.Set();
                }
            },
            new DivideAndConquerOptions { Scheduler = scheduler },
            key).AsTask().WaitAsync(TestTimeouts.Generous);

        Assert.True(released);
        Assert.Equal(15, others);
    }

    [Fact]
    public async Task A_dealt_loop_remembers_its_measured_cost_so_a_cheap_body_runs_inline_next_time()
    {
        var key = new object();
        var memory = Remember(key, s_minimumTicks * 100);
        int total = 0;

        await Loop().AsTask().WaitAsync(TestTimeouts.Generous);
        Assert.True(memory.CostPerUnit < s_minimumTicks * 100, $"remembered {memory.CostPerUnit} ticks per index");

        // Measured cheap: the next loop of these 32 indexes is predicted below two tasks, unless a preemption inflated
        // the measurement; a few calls give it the chance to measure again.
        bool inline = false;
        int loops = 1;
        for (int attempt = 0; attempt < 5 && !inline; attempt++, loops++)
        {
            var next = Loop();
            inline = next.IsCompletedSuccessfully;
            await next;
        }

        Assert.True(inline);
        Assert.Equal(32 * loops, total);

        ValueTask Loop() => DivideAndConquer.ForAsync(0, 32, _ => Interlocked.Increment(ref total), costKey: key);
    }

    [Fact]
    public async Task A_failing_index_faults_the_dealt_loop_with_its_exception_and_stops_the_dealing()
    {
        using var scheduler = new CountingTaskScheduler(2, allowInlining: false, "dealt");
        var key = new object();
        Remember(key, s_minimumTicks * 10);
        var boom = new InvalidOperationException("index failed");
        int calls = 0;

        var loop = DivideAndConquer.ForAsync(
            0,
            10_000,
            i =>
            {
                Interlocked.Increment(ref calls);
                if (i == 3)
                {
                    throw boom;
                }
            },
            new DivideAndConquerOptions { Scheduler = scheduler },
            key);

        Assert.Same(boom, await Assert.ThrowsAsync<InvalidOperationException>(() => loop.AsTask().WaitAsync(TestTimeouts.Generous)));

        // The run faults at the first exception; the other dealer may still be inside its index then, and stops at its
        // next claim: the scheduler goes idle with most of the range never run.
        Assert.True(TestTimeouts.SpinUntil(() => scheduler.IsIdle), "a dealer kept running after the fault");
        Assert.True(Volatile.Read(ref calls) < 10_000, $"{calls} indexes ran after index 3 failed");
    }

    [Fact]
    public async Task A_scheduler_refusing_the_first_dealer_faults_the_loop_and_is_offered_no_other()
    {
        var scheduler = new RefusingTaskScheduler(maximumConcurrencyLevel: 4);
        scheduler.StopAccepting();
        int calls = 0;

        // Dealt to four dealers (indexes worth two minimum task costs each): the first is refused, so the others are
        // never offered and the loop faults with the refusal, no index run.
        var error = await Assert.ThrowsAsync<TaskSchedulerException>(() => DealAsync(scheduler, 40, _ => Interlocked.Increment(ref calls)));

        Assert.Same(scheduler.Refusal, error.InnerException);
        Assert.Equal(1, scheduler.RefusedCount);
        Assert.Equal(0, Volatile.Read(ref calls));
    }

    [Fact]
    public async Task A_scheduler_refusing_a_dealers_next_slice_faults_the_loop_and_stops_the_dealing()
    {
        var scheduler = new RefusingTaskScheduler(maximumConcurrencyLevel: 2);
        var slice = TimeSpan.FromTicks(Granularity.DefaultMinimumTaskCost.Ticks * NestedLoop.DealerSlice);
        int calls = 0;

        // Every index outlasts a slice, so each dealer queues its next step after every index; the scheduler stops
        // accepting during index 3, so the next step offered is refused: the loop faults with the refusal, and every
        // dealer stops at its next claim or step, leaving most of the range unrun and nothing on the scheduler.
        var error = await Assert.ThrowsAsync<TaskSchedulerException>(() => DealAsync(scheduler, 1_000, range =>
        {
            Interlocked.Increment(ref calls);
            if (range.Start == 3)
            {
                scheduler.StopAccepting();
            }

            var elapsed = Stopwatch.StartNew();
            while (elapsed.Elapsed <= slice)
            {
                Thread.SpinWait(20);
            }
        }));

        Assert.Same(scheduler.Refusal, error.InnerException);
        Assert.True(scheduler.RefusedCount >= 1);
        Assert.True(TestTimeouts.SpinUntil(() => scheduler.IsIdle), "a dealer kept running after the refusal");
        Assert.True(Volatile.Read(ref calls) < 1_000, $"{calls} indexes ran after the scheduler stopped accepting");
    }

    [Fact]
    public async Task Cancelling_a_dealt_loop_cancels_its_task_and_stops_the_dealing()
    {
        using var scheduler = new CountingTaskScheduler(2, allowInlining: false, "dealt");
        var key = new object();
        Remember(key, s_minimumTicks * 10);
        using var cancellation = new CancellationTokenSource();
        int calls = 0;

        var loop = DivideAndConquer.ForAsync(
            0,
            10_000,
            i =>
            {
                if (Interlocked.Increment(ref calls) == 5)
                {
                    cancellation.Cancel();
                }
            },
            new DivideAndConquerOptions { Scheduler = scheduler },
            key,
            cancellation.Token);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => loop.AsTask().WaitAsync(TestTimeouts.Generous));
        Assert.True(TestTimeouts.SpinUntil(() => scheduler.IsIdle), "a dealer kept running after the cancellation");
        Assert.True(Volatile.Read(ref calls) < 10_000, $"{calls} indexes ran after the cancellation");
    }

    [Fact]
    public async Task Indexes_below_a_quarter_of_a_task_are_halved_not_dealt()
    {
        using var scheduler = new CountingTaskScheduler(2, allowInlining: false, "halved");
        var key = new object();
        // A tenth of the minimum task cost per index, 1,000 indexes: a run (100 minimum task costs), not dealt.
        Remember(key, s_minimumTicks / 10);
        var ranges = new ConcurrentQueue<IndexRange>();

        var loop = DivideAndConquer.ForRangesAsync(0, 1000, ranges.Enqueue, new DivideAndConquerOptions { Scheduler = scheduler }, key);
        await loop.AsTask().WaitAsync(TestTimeouts.Generous);

        // A run on the scheduler (not inline: its tasks executed there), in halves longer than a dealt chunk. Whether
        // the loop is still pending right after it starts is a race (1,000 trivial indexes may end first).
        Assert.True(scheduler.ExecutedCount > 0, "the loop ran inline");
        Assert.Equal(1000, ranges.Sum(r => r.Length));
        Assert.Contains(ranges, r => r.Length > NestedLoop.MaximumDealtChunk);
    }

    [Fact]
    public void A_small_loop_of_cheap_indexes_still_runs_inline()
    {
        var key = new object();
        Remember(key, 1);
        int thread = Environment.CurrentManagedThreadId;
        int elsewhere = 0;

        var loop = DivideAndConquer.ForAsync(0, 64, _ => elsewhere += Environment.CurrentManagedThreadId == thread ? 0 : 1, costKey: key);

        Assert.True(loop.IsCompletedSuccessfully);
        Assert.Equal(0, elsewhere);
    }

    [Fact]
    public async Task MapReduceAsync_of_expensive_units_keeps_halving_and_reduces_in_order()
    {
        using var scheduler = new CountingTaskScheduler(2, allowInlining: false, "halved");
        var key = new object();
        Remember(key, s_minimumTicks * 10);

        // A reduce that is not commutative: dealing would have to reorder pieces; halving keeps them in order.
        string result = await DivideAndConquer.MapReduceAsync(
            new IndexRange(0, 12),
            getSize: r => r.Length,
            split: r => (new IndexRange(r.Start, r.Start + (r.Length / 2)), new IndexRange(r.Start + (r.Length / 2), r.End)),
            map: r => string.Concat(Enumerable.Range(r.Start, r.Length).Select(i => (char)('a' + i))),
            reduce: (left, right) => left + right,
            new DivideAndConquerOptions { Scheduler = scheduler },
            key).AsTask().WaitAsync(TestTimeouts.Generous);

        Assert.Equal("abcdefghijkl", result);
    }

    // Runs a loop over [0, size) on scheduler, observed, whose indexes are remembered as worth two minimum task costs
    // each (so it is dealt, one index per claim).
    private static async Task<PhaseAggregator> DealAsync(TaskScheduler scheduler, int size, Action<IndexRange> body)
    {
        var observer = new PhaseAggregator();
        var key = new object();
        Remember(key, s_minimumTicks * 2);
        await DivideAndConquer.ForRangesAsync(0, size, body, new DivideAndConquerOptions { Scheduler = scheduler, Observer = observer }, key)
            .AsTask().WaitAsync(TestTimeouts.Generous);
        return observer;
    }

    private static LeafCostMemory Remember(object key, double ticksPerIndex)
    {
        // The key's memory is the one every loop given this key reads (LoopCosts keys by the key when there is one).
        var memory = LoopCosts.For(static () => { }, key);
        memory.Remember(ticksPerIndex);
        return memory;
    }
}
