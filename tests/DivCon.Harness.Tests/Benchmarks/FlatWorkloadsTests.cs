using DivCon.Harness.Benchmarks;

namespace DivCon.Harness.Tests.Benchmarks;

/// <summary>
/// The flat cases of the paired comparison of two builds: the line a child writes per case and its reading, the case
/// catalogue, and the TPL recursions the BenchmarkDotNet suites share with it (on small data: the sum is right).
/// </summary>
public sealed class FlatWorkloadsTests
{
    [Fact]
    public void A_case_line_reads_back_as_written()
    {
        string line = FlatWorkloads.FormatLine("sum.task-run", 123456.78, 42);
        Assert.Equal("case sum.task-run 123456.8 42", line);
        Assert.Equal(("sum.task-run", 123456.8, 42), FlatWorkloads.ParseLine(line));
        Assert.Equal(("fib.divcon-pool", 5.0, 1), FlatWorkloads.ParseLine("  case   fib.divcon-pool 5 1 "));
    }

    [Theory]
    [InlineData("")]
    [InlineData("flat workers=2")]
    [InlineData("cases sum.task-run 1 1")]
    [InlineData("Unhandled exception. System.InvalidOperationException: x")]
    public void Other_lines_give_no_result(string line) => Assert.Null(FlatWorkloads.ParseLine(line));

    [Theory]
    [InlineData("case")]
    [InlineData("case sum.task-run")]
    [InlineData("case sum.task-run 12.5")]
    [InlineData("case sum.task-run 12.5 3 extra")]
    [InlineData("case sum.task-run abc 3")]
    [InlineData("case sum.task-run 0 3")]
    [InlineData("case sum.task-run -1 3")]
    [InlineData("case sum.task-run NaN 3")]
    [InlineData("case sum.task-run Infinity 3")]
    [InlineData("case sum.task-run 12.5 0")]
    [InlineData("case sum.task-run 12.5 -3")]
    [InlineData("case sum.task-run 12.5 2.5")]
    [InlineData("case sum.task-run 12,5 3")]
    public void A_malformed_case_line_is_refused_naming_it(string line)
    {
        var ex = Assert.Throws<FormatException>(() => FlatWorkloads.ParseLine(line));
        Assert.Contains(line, ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Every_case_has_a_unique_spaceless_name_and_a_baseline_of_its_group_that_is_its_own_baseline()
    {
        var names = FlatWorkloads.Cases.Select(c => c.Name).ToList();
        Assert.Equal(names.Count, names.Distinct(StringComparer.Ordinal).Count());
        Assert.All(FlatWorkloads.Cases, c =>
        {
            Assert.DoesNotContain(' ', c.Name);
            Assert.Equal(c.Name.Split('.')[0], c.Baseline.Split('.')[0]);
            FlatCase baseline = Assert.Single(FlatWorkloads.Cases, b => b.Name == c.Baseline);
            Assert.Equal(baseline.Name, baseline.Baseline);
        });
        Assert.Equal(["fib.plain-recursion", "sum.plain-recursion", "tree.task-run"], FlatWorkloads.Cases.Select(c => c.Baseline).Distinct().Order(StringComparer.Ordinal));
    }

    [Theory]
    [InlineData(1, 16)]
    [InlineData(16, 16)]
    [InlineData(1000, 16)]
    [InlineData(4096, 256)]
    public async Task The_TPL_recursions_sum_every_element_once(int length, int leafSize)
    {
        int[] data = GranularityWorkloads.Data(length);
        long expected = data.Sum(x => (long)x);
        Assert.Equal(expected, FlatWorkloads.ParallelInvokeSum(data, 0, data.Length, leafSize));
        Assert.Equal(expected, await FlatWorkloads.TaskRunSumAsync(data, 0, data.Length, leafSize));
        Assert.Equal(expected, FlatWorkloads.ParallelForEachSum(data));
    }

    [Fact]
    public void The_batch_timing_refuses_bad_times_and_runs_its_minimum_batches()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => BatchTiming.Time(() => { }, -1, 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => BatchTiming.Time(() => { }, 0, double.NaN));
        int calls = 0;
        double[] batches = BatchTiming.Time(() => calls++, 0, 0);
        Assert.Equal(BatchTiming.MinimumBatches, batches.Length);
        Assert.True(calls >= BatchTiming.MinimumWarmupCalls + BatchTiming.MinimumBatches);
        Assert.All(batches, b => Assert.True(b >= 0));
        Assert.Equal(2.5, BatchTiming.Median([4, 1, 2, 3]));
        Assert.Equal(3, BatchTiming.Median([5, 1, 3]));
        Assert.Throws<ArgumentException>(() => BatchTiming.Median([]));
    }
}
