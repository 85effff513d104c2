using BenchmarkDotNet.Attributes;
using DivCon.Skeletons;

namespace DivCon.Harness.Benchmarks;

/// <summary>
/// The cost of the skeleton itself: a fine tree of 2^16 leaves (2^17 - 1 nodes) whose muscles are trivial (the sum
/// of 16 ints per leaf, halving splits, an addition per merge), so that almost all the time and memory is task
/// machinery. The continuation engine is compared with the recursion a user would write by hand with TPL (leaf tasks
/// joined by <see cref="TaskFactory.ContinueWhenAll{TAntecedentResult, TResult}(Task{TAntecedentResult}[], Func{Task{TAntecedentResult}[], TResult})"/>,
/// the baseline), with the fork-join engine, with a design that unwraps a <c>Task&lt;Task&lt;T&gt;&gt;</c> at every level, and
/// with a plain sequential recursion. Everything runs on <see cref="TaskScheduler.Default"/>.
/// </summary>
/// <remarks>Goal: the continuation engine within 1.2x the hand-written recursion's time and allocations.</remarks>
[MemoryDiagnoser]
public class SkeletonBenchmarks
{
    /// <summary>Elements per leaf.</summary>
    public const int LeafSize = 16;

    /// <summary>Leaves of the tree.</summary>
    public const int Leaves = 1 << 16;

    private int[] _data = [];
    private DivideAndConquer<IndexRange, long> _continuation = null!;
    private DivideAndConquerOptions _forkJoinOptions = null!;

    /// <summary>Fills the data and builds the program once.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _data = new int[Leaves * LeafSize];
        for (int i = 0; i < _data.Length; i++)
        {
            _data[i] = i % 1024;
        }

        // Every node a task, as the hand-written versions: this suite measures the task machinery, not serial elision.
        _continuation = new RangeSum(_data) { Granularity = Granularity.EveryNodeATask };
        _forkJoinOptions = DivideAndConquerOptions.Default with { Engine = ExecutionEngine.ForkJoin };
    }

    /// <summary>Leaf tasks joined pairwise by ContinueWhenAll, the tree unfolded by the caller: the obvious hand-written TPL version.</summary>
    /// <returns>The sum.</returns>
    [Benchmark(Baseline = true)]
    public long HandWrittenTpl() => HandWritten(_data, 0, _data.Length).GetAwaiter().GetResult();

    /// <summary>The skeleton's default engine.</summary>
    /// <returns>The sum.</returns>
    [Benchmark]
    public long ContinuationEngine() => _continuation.RunAsync(new IndexRange(0, _data.Length)).GetAwaiter().GetResult();

    /// <summary>The skeleton's blocking engine.</summary>
    /// <returns>The sum.</returns>
    [Benchmark]
    public long ForkJoinEngine() => _continuation.RunAsync(new IndexRange(0, _data.Length), _forkJoinOptions).GetAwaiter().GetResult();

    /// <summary>A design that returns Task&lt;Task&lt;T&gt;&gt; from every node and unwraps it at every level.</summary>
    /// <returns>The sum.</returns>
    [Benchmark]
    public long UnwrapChain() => UnwrapNode(_data, 0, _data.Length).GetAwaiter().GetResult();

    /// <summary>The same recursion without tasks.</summary>
    /// <returns>The sum.</returns>
    [Benchmark]
    public long Sequential() => SequentialSum(_data, 0, _data.Length);

    private static long SumRange(int[] data, int start, int end)
    {
        long sum = 0;
        for (int i = start; i < end; i++)
        {
            sum += data[i];
        }

        return sum;
    }

    private static long SequentialSum(int[] data, int start, int end)
    {
        if (end - start <= LeafSize)
        {
            return SumRange(data, start, end);
        }

        int middle = start + ((end - start) / 2);
        return SequentialSum(data, start, middle) + SequentialSum(data, middle, end);
    }

    private static Task<long> HandWritten(int[] data, int start, int end)
    {
        if (end - start <= LeafSize)
        {
            return Task.Factory.StartNew(() => SumRange(data, start, end));
        }

        int middle = start + ((end - start) / 2);
        var left = HandWritten(data, start, middle);
        var right = HandWritten(data, middle, end);
        return Task.Factory.ContinueWhenAll([left, right], static halves => halves[0].Result + halves[1].Result);
    }

    private static Task<long> UnwrapNode(int[] data, int start, int end) =>
        Task.Factory.StartNew(() =>
        {
            if (end - start <= LeafSize)
            {
                return Task.FromResult(SumRange(data, start, end));
            }

            int middle = start + ((end - start) / 2);
            var left = UnwrapNode(data, start, middle);
            var right = UnwrapNode(data, middle, end);
            return Task.Factory.ContinueWhenAll([left, right], static halves => halves[0].Result + halves[1].Result);
        }).Unwrap();

    /// <summary>The benchmark's program in the subclass model.</summary>
    private sealed class RangeSum(int[] data) : DivideAndConquer<IndexRange, long>
    {
        protected override bool ShouldSplit(IndexRange problem, int depth) => problem.Length > LeafSize;

        protected override IReadOnlyList<IndexRange> Split(IndexRange problem, int depth)
        {
            int middle = problem.Start + (problem.Length / 2);
            return [new IndexRange(problem.Start, middle), new IndexRange(middle, problem.End)];
        }

        protected override long Execute(IndexRange problem, int depth) => SumRange(data, problem.Start, problem.End);

        protected override long Merge(IReadOnlyList<long> subresults, int depth) => subresults[0] + subresults[1];
    }
}
