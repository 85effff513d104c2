using DivCon.Skeletons.Tests.Infrastructure;

namespace DivCon.Skeletons.Tests;

/// <summary>
/// The nested loops (<c>ForAsync</c>, <c>ForRangesAsync</c>, <c>MapReduceAsync</c>): every index once, inline (already
/// complete) once the loop's code has a remembered cost that predicts it cheap, errors and cancellation in the returned
/// task, bad arguments named.
/// </summary>
public sealed class NestedLoopTests
{
    private readonly record struct Slice(long[] Data, int Start, int Length);

    [Theory]
    [InlineData(0, 1)]
    [InlineData(0, 10_000)]
    [InlineData(-500, 500)]
    [InlineData(7, 7)]
    [InlineData(10, 3)]
    public async Task ForAsync_runs_the_body_once_for_every_index(int from, int to)
    {
        int count = Math.Max(0, to - from);
        var hits = new int[count];

        await DivideAndConquer.ForAsync(from, to, i => Interlocked.Increment(ref hits[i - from])).AsTask().WaitAsync(TestTimeouts.Generous);

        Assert.All(hits, h => Assert.Equal(1, h));
    }

    [Fact]
    public async Task ForRangesAsync_covers_the_range_exactly_once()
    {
        var hits = new int[5000];

        await DivideAndConquer.ForRangesAsync(100, 5000, range =>
        {
            for (int i = range.Start; i < range.End; i++)
            {
                Interlocked.Increment(ref hits[i]);
            }
        }).AsTask().WaitAsync(TestTimeouts.Generous);

        Assert.All(hits.Take(100), h => Assert.Equal(0, h));
        Assert.All(hits.Skip(100), h => Assert.Equal(1, h));
    }

    [Fact]
    public async Task A_loop_runs_inline_once_its_code_has_been_measured_even_from_a_new_closure_each_time()
    {
        var key = new object();
        var totals = new long[8];

        // The first loop has nothing to predict from: a run, which measures its leaves and remembers their cost.
        await Loop(0).AsTask().WaitAsync(TestTimeouts.Generous);
        var later = new bool[totals.Length];
        for (int k = 1; k < totals.Length; k++)
        {
            var loop = Loop(k);
            later[k] = loop.IsCompletedSuccessfully;
            await loop;
        }

        Assert.All(totals, t => Assert.Equal(64L * 63 / 2, t));
        // A pass preempted by the OS measures one inflated cost, which sends the next call to a run (which measures
        // again): most, not all, of the later calls must have been inline.
        int inlineCalls = later.Skip(1).Count(inline => inline);
        Assert.True(inlineCalls >= 5, $"{inlineCalls} of 7 loops of 64 cheap indexes ran inline");

        // A new closure per call, as a node makes; they share the cost of the one lambda.
        ValueTask Loop(int k) => DivideAndConquer.ForAsync(0, 64, i => Interlocked.Add(ref totals[k], i), costKey: key);
    }

    [Fact]
    public async Task Without_a_key_new_closures_of_one_lambda_share_the_learned_cost()
    {
        var totals = new long[8];

        // The first loop measures the lambda's cost; the later ones, each a new closure over another slot, find it.
        await Loop(0).AsTask().WaitAsync(TestTimeouts.Generous);
        var later = new bool[totals.Length];
        for (int k = 1; k < totals.Length; k++)
        {
            var loop = Loop(k);
            later[k] = loop.IsCompletedSuccessfully;
            await loop;
        }

        Assert.All(totals, t => Assert.Equal(64L * 63 / 2, t));
        int inlineCalls = later.Skip(1).Count(inline => inline);
        Assert.True(inlineCalls >= 5, $"{inlineCalls} of 7 loops of 64 cheap indexes ran inline");

        ValueTask Loop(int k) => DivideAndConquer.ForAsync(0, 64, i => Interlocked.Add(ref totals[k], i));
    }

    [Fact]
    public void The_cost_of_a_lambda_is_one_memory_for_all_its_closures_and_the_same_as_by_reflection()
    {
        Action<int> first = Closure(new int[1]);
        Action<int> second = Closure(new int[1]);
        Assert.NotSame(first, second);
        Assert.NotSame(first.Target, second.Target);

        var memory = Engines.LoopCosts.For(first, key: null);

        // Asked again (the cached path), from another closure, and through the method (reflection): one memory.
        Assert.Same(memory, Engines.LoopCosts.For(first, key: null));
        Assert.Same(memory, Engines.LoopCosts.For(second, key: null));
        Assert.Same(memory, Engines.LoopCosts.ForMethod(second));

        // What one closure's loop learns, the next closure's finds.
        memory.Remember(123.0);
        Assert.Equal(123.0, Engines.LoopCosts.For(Closure(new int[1]), key: null).CostPerUnit);

        static Action<int> Closure(int[] total) => i => total[0] += i;
    }

    [Fact]
    public void Different_code_gets_different_memories_static_methods_and_combined_delegates_included()
    {
        int[] total = new int[1];
        Action<int> one = i => total[0] += i;
        Action<int> other = i => total[0] -= i;
        Action<int> staticOne = AddNothing;
        Action<int> staticOther = SubtractNothing;
        var memories = new[] { one, other, staticOne, staticOther }.Select(code => Engines.LoopCosts.For(code, key: null)).ToArray();
        Assert.Equal(memories.Length, memories.Distinct().Count());

        // Static methods: each delegate created anew still finds its method's memory.
        Assert.Same(memories[2], Engines.LoopCosts.For(new Action<int>(AddNothing), key: null));
        Assert.Same(memories[3], Engines.LoopCosts.For(new Action<int>(SubtractNothing), key: null));

        // A combined delegate is keyed by its last method (Delegate.Method), never by the shared invocation stub.
        var combined = (Action<int>)Delegate.Combine(one, staticOther);
        var otherCombined = (Action<int>)Delegate.Combine(other, staticOne);
        Assert.Same(memories[3], Engines.LoopCosts.For(combined, key: null));
        Assert.Same(memories[2], Engines.LoopCosts.For(otherCombined, key: null));
        Assert.Same(memories[3], Engines.LoopCosts.For(combined, key: null));
    }

    private static void AddNothing(int index) => GC.KeepAlive(index);

    private static void SubtractNothing(int index) => GC.KeepAlive(-index);

    [Fact]
    public async Task A_loop_with_a_large_remembered_cost_runs_in_parallel_on_the_callers_scheduler()
    {
        using var scheduler = new CountingTaskScheduler(2, allowInlining: false, "loop");
        int offScheduler = 0;
        var key = new object();

        // Each index sleeps (1 ms), so once measured the loop is never predicted cheap.
        var task = Task.Factory.StartNew(
            async () =>
            {
                for (int round = 0; round < 2; round++)
                {
                    var loop = DivideAndConquer.ForAsync(0, 16, i =>
                    {
                        Thread.Sleep(1);
                        if (!scheduler.IsCurrentThreadAWorker)
                        {
                            Interlocked.Increment(ref offScheduler);
                        }
                    }, costKey: key);
                    Assert.False(loop.IsCompleted);
                    await loop;
                }
            },
            CancellationToken.None,
            TaskCreationOptions.DenyChildAttach,
            scheduler).Unwrap();
        await task.WaitAsync(TestTimeouts.Generous);

        Assert.Equal(0, offScheduler);
    }

    [Fact]
    public async Task MapReduceAsync_sums_a_slice_of_any_type()
    {
        var data = Enumerable.Range(0, 100_000).Select(i => (long)i * 3).ToArray();

        long sum = await DivideAndConquer.MapReduceAsync(
            new Slice(data, 0, data.Length),
            getSize: s => s.Length,
            split: s => (s with { Length = s.Length / 2 }, new Slice(s.Data, s.Start + (s.Length / 2), s.Length - (s.Length / 2))),
            map: s =>
            {
                long total = 0;
                for (int i = s.Start; i < s.Start + s.Length; i++)
                {
                    total += s.Data[i];
                }

                return total;
            },
            reduce: (a, b) => a + b).AsTask().WaitAsync(TestTimeouts.Generous);

        Assert.Equal(data.Sum(), sum);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(10_000)]
    public async Task A_failing_body_faults_the_returned_task_with_its_exception(int length)
    {
        var boom = new InvalidOperationException("body failed");

        var loop = DivideAndConquer.ForAsync(0, length, i => throw boom);

        Assert.Same(boom, await Assert.ThrowsAsync<InvalidOperationException>(() => loop.AsTask().WaitAsync(TestTimeouts.Generous)));
    }

    [Fact]
    public async Task A_cancelled_token_cancels_the_loop_without_running_the_body()
    {
        using var cancellation = new CancellationTokenSource();
        cancellation.Cancel();
        int calls = 0;

        var loop = DivideAndConquer.ForAsync(0, 100, i => Interlocked.Increment(ref calls), cancellationToken: cancellation.Token);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => loop.AsTask());
        Assert.Equal(0, calls);
    }

    [Fact]
    public void Loops_reject_bad_arguments_by_name()
    {
        Assert.Equal("body", Assert.Throws<ArgumentNullException>(() => Start(DivideAndConquer.ForAsync(0, 1, null!))).ParamName);
        Assert.Equal("body", Assert.Throws<ArgumentNullException>(() => Start(DivideAndConquer.ForRangesAsync(0, 1, null!))).ParamName);
        var tooMany = Assert.Throws<ArgumentOutOfRangeException>(() => Start(DivideAndConquer.ForAsync(int.MinValue, int.MaxValue, i => { })));
        Assert.Equal("toExclusive", tooMany.ParamName);
        Assert.Equal("fromInclusive", Assert.Throws<ArgumentOutOfRangeException>(() => Start(DivideAndConquer.ForRangesAsync(-1, 1, r => { }))).ParamName);

        Func<Slice, long> size = s => s.Length;
        Func<Slice, (Slice, Slice)> split = s => (s, s);
        Func<Slice, long> map = s => 0;
        Func<long, long, long> reduce = (a, b) => a + b;
        var slice = new Slice([], 0, 0);
        Assert.Equal("getSize", Assert.Throws<ArgumentNullException>(() => StartMapReduce(DivideAndConquer.MapReduceAsync(slice, null!, split, map, reduce))).ParamName);
        Assert.Equal("split", Assert.Throws<ArgumentNullException>(() => StartMapReduce(DivideAndConquer.MapReduceAsync(slice, size, null!, map, reduce))).ParamName);
        Assert.Equal("map", Assert.Throws<ArgumentNullException>(() => StartMapReduce(DivideAndConquer.MapReduceAsync(slice, size, split, null!, reduce))).ParamName);
        Assert.Equal("reduce", Assert.Throws<ArgumentNullException>(() => StartMapReduce(DivideAndConquer.MapReduceAsync(slice, size, split, map, null!))).ParamName);

        static void Start(ValueTask loop) => loop.AsTask().Wait();

        static void StartMapReduce<T>(ValueTask<T> loop) => loop.AsTask().Wait();
    }

    [Fact]
    public async Task A_negative_size_faults_the_map_reduce()
    {
        var loop = DivideAndConquer.MapReduceAsync(1, getSize: p => -1, split: p => (p, p), map: p => p, reduce: (a, b) => a + b);

        await Assert.ThrowsAsync<InvalidOperationException>(() => loop.AsTask());
    }
}
