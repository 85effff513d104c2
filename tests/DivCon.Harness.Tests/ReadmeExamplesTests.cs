using DivCon.Schedulers;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Skeletons;

namespace DivCon.Harness.Tests;

/// <summary>
/// The code shown in the repository's README and docs/guide.md, verbatim where possible, with its results checked:
/// if an API they show changes, these stop compiling or fail. (CI also compiles and runs every snippet as pasted,
/// against the packed packages: .ci/snippets.)
/// </summary>
[Collection(ReadmeExamplesGroup.Name)]
public sealed class ReadmeExamplesTests
{
    private static readonly TimeSpan s_timeout = TimeSpan.FromSeconds(60);

    [Fact]
    public async Task Lambda_quicksort_sorts()
    {
        var quicksort = ReadmeQuicksort();

        int[] input = Enumerable.Range(0, 1_000_000).Select(i => i * 7919 % 1_000_003).ToArray();
        int[] sorted = await quicksort.RunAsync(input).WaitAsync(s_timeout);

        Assert.Equal(input.Order().ToArray(), sorted);
    }

    [Fact]
    public async Task All_equal_input_terminates_with_the_depth_bound()
    {
        var quicksort = ReadmeQuicksort();

        int[] sorted = await quicksort.RunAsync(new int[10_000]).WaitAsync(s_timeout);

        Assert.Equal(10_000, sorted.Length);
        Assert.All(sorted, x => Assert.Equal(0, x));
    }

    [Fact]
    public async Task Subclass_sum_of_squares_on_a_work_stealing_scheduler()
    {
        using var scheduler = new WorkStealingTaskScheduler(workerCount: 2);
        var sum = new SumOfSquaresExample(Enumerable.Range(0, 100_000).Select(i => i % 1024).ToArray())
        {
            Granularity = Granularity.ByLeafCount(leavesPerWorker: 4),
        };
        var phases = new PhaseAggregator();

        long result = await sum.RunAsync(
            new IndexRange(0, 100_000),
            DivideAndConquerOptions.Default with { Scheduler = scheduler, Observer = phases }).WaitAsync(s_timeout);

        Assert.Equal(Enumerable.Range(0, 100_000).Sum(i => (long)(i % 1024) * (i % 1024)), result);
        Assert.Equal(8, phases.TotalCount(DivideAndConquerPhase.Execute));
    }

    [Fact]
    public async Task Subclass_maximum_subarray_matches_a_linear_scan_and_reports_its_nodes()
    {
        using var scheduler = new WorkStealingTaskScheduler(workerCount: 2);
        var random = new Random(7);
        int[] values = Enumerable.Range(0, 50_000).Select(_ => random.Next(-100, 100)).ToArray();
        var phases = new PhaseAggregator();

        long best = await new MaximumSubarray(values).RunAsync(
            new IndexRange(0, values.Length),
            DivideAndConquerOptions.Default with { Scheduler = scheduler, Observer = phases }).WaitAsync(s_timeout);

        long expected = long.MinValue, running = 0;
        foreach (int value in values)
        {
            running = Math.Max(value, running + value);
            expected = Math.Max(expected, running);
        }

        Assert.Equal(expected, best);
        Assert.Equal((2 * values.Length) - 1, phases.TaskNodes + phases.InlineNodes);
    }

    [Fact]
    public async Task Binary_fib_computes_fib_32()
    {
        // README: "Binary programs", verbatim.
        var fib = DivideAndConquer.CreateBinary<int, long>(
            shouldSplit: (n, depth) => n > 1,                  // every call a node: the skeleton picks the tasks
            split: (n, depth) => (n - 1, n - 2),
            execute: (n, depth) => n,
            merge: (n, left, right, depth) => left + right);
        long fib32 = await fib.RunAsync(32).WaitAsync(s_timeout);

        Assert.Equal(2_178_309, fib32);
    }

    [Fact]
    public async Task Multiprogram_scheduler_runs_two_programs_and_records_decisions()
    {
        // README: "Several programs at once", with four unpinned workers so that the test does not depend on the
        // machine's CPUs.
        using var pool = new MultiprogramScheduler(new MultiprogramSchedulerOptions
        {
            WorkerCount = 4,
            Pin = false,
            Policy = new TaskAvailabilityPolicy(),
            RebalanceInterval = TimeSpan.FromMilliseconds(100),
        });
        using ProgramTaskScheduler squares = pool.Register("sumsq", speedup: 3.8);
        using ProgramTaskScheduler fibs = pool.Register("fib", speedup: 1.9);
        int decisions = 0;
        pool.Rebalanced += (_, decision) => Interlocked.Increment(ref decisions);   // as in the README; counted, not asserted

        var sumOfSquares = MapReduce.Create<long>(map: i => (long)i * i, reduce: (a, b) => a + b, identity: 0);
        var fib = DivideAndConquer.CreateBinary<int, long>(
            (n, depth) => n > 1, (n, depth) => (n - 1, n - 2), (n, depth) => n, (n, left, right, depth) => left + right);

        Task<long> a = sumOfSquares.RunAsync(new IndexRange(0, 1_000_000), DivideAndConquerOptions.Default with { Scheduler = squares });
        Task<long> b = fib.RunAsync(30, DivideAndConquerOptions.Default with { Scheduler = fibs });
        await Task.WhenAll(a, b).WaitAsync(s_timeout);

        Assert.Equal(Enumerable.Range(0, 1_000_000).Sum(i => (long)i * i), await a);
        Assert.Equal(832_040L, await b);
        Assert.Equal(4, pool.CurrentAllocation.Sum(allocation => allocation.Cores));
        Assert.NotEmpty(pool.History);
    }

    /// <summary>README: "A parallel quicksort in a few lines", verbatim.</summary>
    private static DivideAndConquer<int[], int[]> ReadmeQuicksort() =>
        DivideAndConquer.Create<int[], int[]>(
            shouldSplit: (items, depth) => items.Length > 4096 && depth < 40,
            split: (items, depth) =>
            {
                int pivot = items[items.Length / 2];
                return [items.Where(x => x < pivot).ToArray(),
                        items.Where(x => x == pivot).ToArray(),
                        items.Where(x => x > pivot).ToArray()];
            },
            execute: (items, depth) => { var copy = (int[])items.Clone(); Array.Sort(copy); return copy; },
            merge: (parts, depth) => [.. parts[0], .. parts[1], .. parts[2]]);

    /// <summary>docs/guide.md, "The subclass model": a merge that receives its problem.</summary>
    private sealed class MaximumSubarray(int[] values) : DivideAndConquer<IndexRange, long>
    {
        protected override bool ShouldSplit(IndexRange range, int depth) => range.Length > 1;

        protected override IReadOnlyList<IndexRange> Split(IndexRange range, int depth) => range.Split(2);

        protected override long Execute(IndexRange range, int depth) => values[range.Start];

        protected override long Merge(IndexRange range, IReadOnlyList<long> best, int depth)
        {
            int middle = range.Start + ((range.Length + 1) / 2); // where Split cut the range
            long left = long.MinValue, right = long.MinValue, sum = 0;
            for (int i = middle - 1; i >= range.Start; i--)
            {
                left = Math.Max(left, sum += values[i]);
            }

            sum = 0;
            for (int i = middle; i < range.End; i++)
            {
                right = Math.Max(right, sum += values[i]);
            }

            return Math.Max(Math.Max(best[0], best[1]), left + right);
        }
    }

    /// <summary>docs/guide.md, "The subclass model": a map-reduce over index ranges.</summary>
    private sealed class SumOfSquaresExample(int[] values) : MapReduce<long>
    {
        protected override long Identity => 0;

        protected override long Map(int index) => (long)values[index] * values[index];

        protected override long Reduce(long left, long right) => left + right;
    }
}

[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ReadmeExamplesGroup
{
    public const string Name = "README examples";
}
