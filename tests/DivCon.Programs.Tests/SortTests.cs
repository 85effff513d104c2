using DivCon.Programs.Data;
using DivCon.Programs.Sorting;
using DivCon.Programs.Tests.Infrastructure;
using DivCon.Skeletons;

namespace DivCon.Programs.Tests;

public sealed class SortTests
{
    public static TheoryData<SortKind, SortInputKind, ExecutionEngine> Cases()
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

    private static (Func<Task<IndexRange>> Run, int[] Output) Create(SortKind kind, int[] source, TaskScheduler scheduler, ExecutionEngine engine, Granularity granularity)
    {
        var output = new int[source.Length];
        var options = DivideAndConquerOptions.Default with { Scheduler = scheduler, Engine = engine };
        switch (kind)
        {
            case SortKind.Quicksort:
                var quicksort = new Quicksort(source, output) { Granularity = granularity };
                return (() => quicksort.RunAsync(quicksort.WholeProblem, options), output);
            case SortKind.Mergesort:
                var mergesort = new Mergesort(source, output) { Granularity = granularity };
                return (() => mergesort.RunAsync(mergesort.WholeRange, options), output);
            default:
                // Tiny nested merges, so that small inputs exercise the nested runs too.
                var parallel = new ParallelMergesort(source, output) { Granularity = granularity, MinimumMergeLeafSize = 64 };
                return (() => parallel.RunAsync(parallel.WholeRange, options), output);
        }
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Sorts_hard_inputs_without_touching_the_source(SortKind kind, SortInputKind input, ExecutionEngine engine)
    {
        using var lease = new SchedulerLease(SchedulerKind.TwoWorkers);
        var source = SortInputs.Create(input);
        ulong before = Checksum.OfSequence(source);
        var expected = (int[])source.Clone();
        Array.Sort(expected);

        foreach (var granularity in new[] { Granularity.Fixed(16), Granularity.Depth(12), Granularity.Automatic(), Granularity.Sequential })
        {
            var (run, output) = Create(kind, source, lease.Scheduler, engine, granularity);
            var range = await run().Bounded();
            Assert.Equal(new IndexRange(0, source.Length), range);
            Assert.Equal(expected, output);
            Assert.Equal(before, Checksum.OfSequence(source));
        }
    }

    [Theory]
    [InlineData(SchedulerKind.OneWorker)]
    [InlineData(SchedulerKind.Default)]
    public async Task Sort_programs_on_explicit_inputs_verify(SchedulerKind kind)
    {
        using var lease = new SchedulerLease(kind);
        foreach (var input in Enum.GetValues<SortInputKind>())
        {
            BenchmarkProgram[] programs =
            [
                new QuicksortProgram(SortInputs.Create(input)),
                new MergesortProgram(SortInputs.Create(input), parallelMerge: false),
                new MergesortProgram(SortInputs.Create(input), parallelMerge: true),
            ];
            foreach (var program in programs)
            {
                program.Granularity = Granularity.Fixed(100);
                await program.RunParallelAsync(lease.Scheduler).Bounded();
                Assert.True(program.Verify().Succeeded, $"{program.Name} {input}: {program.Verify().Message}");
            }
        }
    }

    [Fact]
    public async Task Quicksort_stops_splitting_at_its_depth_guard_on_sorted_input()
    {
        using var lease = new SchedulerLease(SchedulerKind.TwoWorkers);
        var source = Enumerable.Range(0, 4096).ToArray();
        var output = new int[source.Length];
        var quicksort = new Quicksort(source, output) { Granularity = Granularity.Fixed(1) };
        var phases = new PhaseAggregator();
        await quicksort.RunAsync(quicksort.WholeProblem, DivideAndConquerOptions.Default with { Scheduler = lease.Scheduler, Observer = phases }).Bounded();
        Assert.Equal(2 * (12 + 1), quicksort.MaxSplitDepth);
        Assert.True(phases.MaxDepth <= quicksort.MaxSplitDepth);
        Assert.Equal(source, output);
    }

    [Fact]
    public async Task Quicksort_on_all_equal_input_needs_one_split()
    {
        using var lease = new SchedulerLease(SchedulerKind.OneWorker);
        var source = Enumerable.Repeat(5, 10_000).ToArray();
        var output = new int[source.Length];
        var quicksort = new Quicksort(source, output) { Granularity = Granularity.Fixed(1) };
        var phases = new PhaseAggregator();
        await quicksort.RunAsync(quicksort.WholeProblem, DivideAndConquerOptions.Default with { Scheduler = lease.Scheduler, Observer = phases }).Bounded();
        // The pivot is the minimum, every element equals it: both children are empty.
        Assert.Equal(1, phases.TotalCount(DivideAndConquerPhase.Split));
        Assert.Equal(source, output);
    }

    [Fact]
    public void Partition_kernels_keep_every_element_and_split_at_the_pivot()
    {
        var random = new Random(3);
        var source = Enumerable.Range(0, 1000).Select(_ => random.Next(50)).ToArray();
        var copy = new int[source.Length];
        int less = SortKernels.PartitionCopy(source, copy, 25);
        Assert.All(copy.Take(less), v => Assert.True(v < 25));
        Assert.All(copy.Skip(less), v => Assert.True(v >= 25));
        Assert.Equal(source.Order(), copy.Order());

        var inPlace = (int[])source.Clone();
        Assert.Equal(less, SortKernels.PartitionInPlace(inPlace, 25));
        Assert.Equal(source.Order(), inPlace.Order());

        var high = new[] { int.MaxValue, 3, int.MaxValue };
        Assert.Equal(0, SortKernels.PartitionInPlace(high, 3));
        Assert.Equal(3, SortKernels.PartitionEqual(new[] { int.MaxValue, int.MaxValue, int.MaxValue }, int.MaxValue));
        Assert.Equal(50, SortKernels.MedianOfFirst(Enumerable.Range(0, 1000).ToArray()));
        Assert.Throws<ArgumentException>(() => SortKernels.MedianOfFirst([]));
    }

    [Fact]
    public void Sorts_reject_an_output_that_is_the_source_or_of_another_length()
    {
        var source = new int[10];
        Assert.Throws<ArgumentException>(() => new Quicksort(source, source));
        Assert.Throws<ArgumentException>(() => new Mergesort(source, new int[9]));
        Assert.Throws<ArgumentOutOfRangeException>(() => new ParallelMergesort(source, new int[10]) { MinimumMergeLeafSize = 1 });
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task Nested_merges_run_as_tasks_on_the_runs_own_scheduler(ExecutionEngine engine)
    {
        var source = SortInputs.Create(SortInputKind.Random);
        async Task<long> Tasks(bool parallelMerge)
        {
            using var scheduler = new DedicatedThreadTaskScheduler(2);
            var output = new int[source.Length];
            Mergesort sort = parallelMerge
                ? new ParallelMergesort(source, output) { Granularity = Granularity.Depth(2), MinimumMergeLeafSize = 100 }
                : new Mergesort(source, output) { Granularity = Granularity.Depth(2) };
            await sort.RunAsync(sort.WholeRange, DivideAndConquerOptions.Default with { Scheduler = scheduler, Engine = engine }).Bounded();
            Assert.Equal(source.Order(), output);
            return scheduler.ExecutedCount;
        }

        long plain = await Tasks(parallelMerge: false);
        long nested = await Tasks(parallelMerge: true);
        // Depth 2: 7 nodes and 3 merges on this scheduler either way; the nested merges (6000 elements in leaves of
        // 100) add dozens of tasks, all queued to the same scheduler rather than the thread pool.
        Assert.True(nested > plain + 20, $"plain {plain} tasks, with nested merges {nested}");
    }
}
