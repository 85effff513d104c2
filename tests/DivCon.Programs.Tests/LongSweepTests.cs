using DivCon.Programs.Matrices;
using DivCon.Programs.Sorting;
using DivCon.Programs.Tests.Infrastructure;
using DivCon.Schedulers.Multiprogram;
using DivCon.Skeletons;
using DivCon.Skeletons.Tracing;

namespace DivCon.Programs.Tests;

/// <summary>
/// The long sweeps (quicksort's partitions, mergesort's merges, Strassen's quadrant sums) are cut into blocks, so no
/// task of these programs touches more than a bounded number of elements; and the outputs stay exact.
/// </summary>
public sealed class LongSweepTests
{
    private const int SortLength = 1 << 16;
    private const int SweepLimit = SortLength / 32;

    public static TheoryData<SortKind, ExecutionEngine> SortCases()
    {
        var data = new TheoryData<SortKind, ExecutionEngine>();
        foreach (var sort in Enum.GetValues<SortKind>())
        {
            foreach (var engine in Enum.GetValues<ExecutionEngine>())
            {
                data.Add(sort, engine);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(SortCases))]
    public async Task No_piece_of_a_sort_touches_more_than_the_sweep_limit(SortKind kind, ExecutionEngine engine)
    {
        using var lease = new SchedulerLease(SchedulerKind.TwoWorkers);
        var source = SortInputs.Create(SortInputKind.Random, seed: 5).Concat(Enumerable.Range(0, SortLength - SortInputs.Length).Select(i => (i * 7919) % 100_003)).ToArray();
        var pieces = new PieceLog();
        var recorder = new TaskTreeRecorder();
        var (run, output) = CreateSort(kind, source, SweepLimit, pieces, lease.Scheduler, engine, recorder);

        Assert.Equal(new IndexRange(0, SortLength), await run().Bounded());

        var expected = (int[])source.Clone();
        Array.Sort(expected);
        Assert.Equal(expected, output);
        var tree = recorder.ToTree();
        Assert.True(tree.Nodes.Count >= (2 * (SortLength / SweepLimit)) - 1, $"the run's tree has {tree.Nodes.Count} nodes");
        // Elements touched per sequential piece (a block of a sweep, a split or merge done in one task, a leaf): every
        // piece, hence every task, is bounded, and small relative to the run's whole work.
        Assert.True(pieces.Largest <= SweepLimit, $"{kind}: a piece touched {pieces.Largest} elements (limit {SweepLimit})");
        Assert.True(pieces.Total >= 2L * SortLength, $"{kind}: the pieces touched {pieces.Total} elements in all");
        Assert.True(pieces.Largest * 8 <= pieces.Total, $"{kind}: the largest piece ({pieces.Largest}) is more than 1/8 of the work ({pieces.Total})");
    }

    [Theory]
    [InlineData(SortKind.Quicksort)]
    [InlineData(SortKind.Mergesort)]
    public async Task Without_the_sweep_limit_the_top_sweep_is_one_piece_of_every_element(SortKind kind)
    {
        // The measure of the test above, on the programs as they were (limit above the input): it does catch the
        // root's partition and the top merge.
        using var lease = new SchedulerLease(SchedulerKind.TwoWorkers);
        var source = Enumerable.Range(0, SortLength).Select(i => (int)((i * 2654435761L) % 1_000_003)).ToArray();
        var pieces = new PieceLog();
        var (run, _) = CreateSort(kind, source, int.MaxValue, pieces, lease.Scheduler, ExecutionEngine.Continuation, observer: null);
        await run().Bounded();
        Assert.Equal(SortLength, pieces.Largest);
    }

    public static TheoryData<SortKind, SortInputKind, ExecutionEngine> EdgeCases()
    {
        var data = new TheoryData<SortKind, SortInputKind, ExecutionEngine>();
        foreach (var sort in Enum.GetValues<SortKind>())
        {
            foreach (var input in Enum.GetValues<SortInputKind>())
            {
                foreach (var engine in Enum.GetValues<ExecutionEngine>())
                {
                    data.Add(sort, input, engine);
                }
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(EdgeCases))]
    public async Task Sorts_with_tiny_sweeps_are_exact_on_hard_inputs(SortKind kind, SortInputKind input, ExecutionEngine engine)
    {
        using var lease = new SchedulerLease(SchedulerKind.TwoWorkers);
        var source = SortInputs.Create(input);
        var before = (int[])source.Clone();
        var expected = (int[])source.Clone();
        Array.Sort(expected);

        // A limit of 7 elements: every range longer than that is partitioned or merged in parallel blocks, with
        // ragged last blocks.
        var (run, output) = CreateSort(kind, source, 7, pieces: null, lease.Scheduler, engine, observer: null);
        Assert.Equal(new IndexRange(0, source.Length), await run().Bounded());
        Assert.Equal(expected, output);
        Assert.Equal(before, source);
    }

    [Theory]
    [InlineData(int.MaxValue)]
    [InlineData(int.MinValue)]
    [InlineData(0)]
    public async Task Quicksort_sets_aside_pivot_copies_in_a_parallel_partition(int value)
    {
        using var lease = new SchedulerLease(SchedulerKind.TwoWorkers);
        // All equal but for a few larger (or, for int.MaxValue, none) elements at the end: the pivot is the minimum.
        var source = Enumerable.Repeat(value, 5000).Concat(value == int.MaxValue ? [] : Enumerable.Range(1, 37).Select(i => value + i)).ToArray();
        var expected = (int[])source.Clone();
        Array.Sort(expected);
        var output = new int[source.Length];
        var quicksort = new Quicksort(source, output) { MaximumSweepLength = 100, Granularity = Granularity.Fixed(50) };
        await quicksort.RunAsync(quicksort.WholeProblem, DivideAndConquerOptions.Default with { Scheduler = lease.Scheduler }).Bounded();
        Assert.Equal(expected, output);
    }

    [Fact]
    public async Task Sort_programs_with_parallel_sweeps_verify_on_the_multiprogram_scheduler()
    {
        using var multiprogram = new MultiprogramScheduler(new MultiprogramSchedulerOptions { Pin = false, WorkerCount = 2, RebalanceInterval = Timeout.InfiniteTimeSpan });
        var scheduler = multiprogram.Register("sweeps");
        var source = Enumerable.Range(0, 40_000).Select(i => (int)((i * 2654435761L) % 40_009)).ToArray();
        var quicksortOutput = new int[source.Length];
        var mergesortOutput = new int[source.Length];
        var quicksort = new Quicksort(source, quicksortOutput) { MaximumSweepLength = 1000 };
        var mergesort = new Mergesort(source, mergesortOutput) { MaximumSweepLength = 1000 };
        var options = DivideAndConquerOptions.Default with { Scheduler = scheduler };
        var ranges = await Task.WhenAll(quicksort.RunAsync(quicksort.WholeProblem, options), mergesort.RunAsync(mergesort.WholeRange, options)).Bounded();
        var expected = (int[])source.Clone();
        Array.Sort(expected);
        Assert.All(ranges, range => Assert.Equal(new IndexRange(0, source.Length), range));
        Assert.Equal(expected, quicksortOutput);
        Assert.Equal(expected, mergesortOutput);
        await scheduler.DisposeAsync();
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task No_piece_of_a_Strassen_split_or_merge_writes_more_than_the_sweep_limit(ExecutionEngine engine)
    {
        using var lease = new SchedulerLease(SchedulerKind.TwoWorkers);
        const int Order = 256;
        const int Limit = 4096;
        var left = SquareMatrix.Random(Order, seed: 3, stream: 0, StrassenProgram.MaxValueExclusive);
        var right = SquareMatrix.Random(Order, seed: 3, stream: 1, StrassenProgram.MaxValueExclusive);
        var pieces = new PieceLog();
        var strassen = new StrassenMultiplication { MinimumSplitOrder = 32, MaximumSweepLength = Limit, Granularity = Granularity.Fixed(1), PieceObserver = pieces.Add };
        var product = await strassen.RunAsync(new StrassenProblem(left, right), DivideAndConquerOptions.Default with { Scheduler = lease.Scheduler, Engine = engine }).Bounded();

        Assert.Equal(SquareMatrix.MultiplyPlain(left, right).Elements, product.Elements);
        // Without blocks the root's split alone writes 14 x 128^2 elements; now every piece writes at most the limit.
        Assert.True(pieces.Largest <= Limit, $"a piece wrote {pieces.Largest} elements (limit {Limit})");
        Assert.True(pieces.Total >= 14L * 128 * 128, $"the pieces wrote {pieces.Total} elements in all");
        Assert.True(pieces.Largest * 8 <= pieces.Total);
    }

    [Theory]
    [InlineData(1, ExecutionEngine.Continuation)]
    [InlineData(2, ExecutionEngine.Continuation)]
    [InlineData(130, ExecutionEngine.Continuation)]
    [InlineData(130, ExecutionEngine.ForkJoin)]
    [InlineData(96, ExecutionEngine.ForkJoin)]
    public async Task Strassen_with_one_row_blocks_is_exact(int order, ExecutionEngine engine)
    {
        using var lease = new SchedulerLease(SchedulerKind.TwoWorkers);
        var left = SquareMatrix.Random(order, seed: 9, stream: 0, StrassenProgram.MaxValueExclusive);
        var right = SquareMatrix.Random(order, seed: 9, stream: 1, StrassenProgram.MaxValueExclusive);
        var strassen = new StrassenMultiplication { MinimumSplitOrder = 1, MaximumSweepLength = 1, Granularity = Granularity.Fixed(1) };
        var product = await strassen.RunAsync(new StrassenProblem(left, right), DivideAndConquerOptions.Default with { Scheduler = lease.Scheduler, Engine = engine }).Bounded();
        Assert.Equal(SquareMatrix.MultiplyPlain(left, right).Elements, product.Elements);
    }

    [Fact]
    public void Sweep_limits_reject_bad_values()
    {
        var data = new int[4];
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => new Quicksort(data, new int[4]) { MaximumSweepLength = 0 }).ParamName);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => new Mergesort(data, new int[4]) { MaximumSweepLength = 1 }).ParamName);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => new StrassenMultiplication { MaximumSweepLength = 0 }).ParamName);
    }

    private static (Func<Task<IndexRange>> Run, int[] Output) CreateSort(
        SortKind kind, int[] source, int sweepLimit, PieceLog? pieces, TaskScheduler scheduler, ExecutionEngine engine, IDivideAndConquerObserver? observer)
    {
        var output = new int[source.Length];
        var options = DivideAndConquerOptions.Default with { Scheduler = scheduler, Engine = engine, Observer = observer };
        // Leaves no longer than the sweep limit either, so every piece is bounded.
        var granularity = Granularity.Fixed(Math.Min(sweepLimit, Math.Max(source.Length / 32, 1)));
        switch (kind)
        {
            case SortKind.Quicksort:
                var quicksort = new Quicksort(source, output) { Granularity = granularity, MaximumSweepLength = sweepLimit, PieceObserver = pieces is null ? null : pieces.Add };
                return (() => quicksort.RunAsync(quicksort.WholeProblem, options), output);
            case SortKind.Mergesort:
                var mergesort = new Mergesort(source, output) { Granularity = granularity, MaximumSweepLength = Math.Max(sweepLimit, 2), PieceObserver = pieces is null ? null : pieces.Add };
                return (() => mergesort.RunAsync(mergesort.WholeRange, options), output);
            default:
                var parallel = new ParallelMergesort(source, output) { Granularity = granularity, MaximumSweepLength = Math.Max(sweepLimit, 2), MinimumMergeLeafSize = 64, PieceObserver = pieces is null ? null : pieces.Add };
                return (() => parallel.RunAsync(parallel.WholeRange, options), output);
        }
    }

    /// <summary>The largest and total element counts of the pieces a run reported (thread-safe).</summary>
    private sealed class PieceLog
    {
        private long _largest;
        private long _total;

        public long Largest => Interlocked.Read(ref _largest);

        public long Total => Interlocked.Read(ref _total);

        public void Add(long elements)
        {
            Interlocked.Add(ref _total, elements);
            long seen = Interlocked.Read(ref _largest);
            while (elements > seen)
            {
                long previous = Interlocked.CompareExchange(ref _largest, elements, seen);
                if (previous == seen)
                {
                    return;
                }

                seen = previous;
            }
        }
    }
}
