using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Schedulers.Tests.Multiprogram;

/// <summary>The thesis's Figure 5.20, reproduced row by row.</summary>
public class TaskAvailabilityFigureTests
{
    private static readonly AllocationSnapshot Figure = Workloads.Snapshot(32, [15.18, 10.43, 9.71], [18, 1, 12]);

    public static TheoryData<int, int, int[], double[], int?> Rows => new()
    {
        // pass, remaining, allocations before the choice, scores (3 decimals), chosen program
        { 1, 8, new[] { 14, 1, 9 }, new[] { 1.018, 0.106, 1.023 }, 0 },
        { 1, 7, new[] { 15, 1, 9 }, new[] { 1.091, 0.106, 1.023 }, 2 },
        { 1, 6, new[] { 15, 1, 10 }, new[] { 1.091, 0.106, 1.137 }, 0 },
        { 1, 5, new[] { 16, 1, 10 }, new[] { 1.163, 0.106, 1.137 }, 2 },
        { 1, 4, new[] { 16, 1, 11 }, new[] { 1.163, 0.106, 1.250 }, 0 },
        { 1, 3, new[] { 17, 1, 11 }, new[] { 1.236, 0.106, 1.250 }, 0 },
        { 1, 2, new[] { 18, 1, 11 }, new[] { 1.309, 0.106, 1.250 }, 2 },
        { 1, 1, new[] { 18, 1, 12 }, new[] { 1.309, 0.106, 1.364 }, null },
        { 2, 1, new[] { 18, 1, 12 }, new[] { 1.309, 0.106, 1.364 }, 1 },
    };

    [Fact]
    public void Base_and_capped_allocations_match_the_figure()
    {
        var trace = new TaskAvailabilityPolicy().Explain(Figure);
        Assert.Equal([13.75, 9.45, 8.80], trace.Shares.Select(s => Math.Round(s, 2)));
        Assert.Equal([14, 9, 9], trace.BaseCores);
        Assert.Equal([14, 1, 9], trace.CappedCores);
    }

    [Fact]
    public void The_trace_has_exactly_the_figures_rows()
    {
        var trace = new TaskAvailabilityPolicy().Explain(Figure);
        Assert.Equal(Rows.Count, trace.Steps.Count);
    }

    [Theory]
    [MemberData(nameof(Rows))]
    public void Each_row_matches_the_figure(int pass, int remaining, int[] cores, double[] scores, int? chosen)
    {
        var steps = new TaskAvailabilityPolicy().Explain(Figure).Steps;
        var step = Assert.Single(steps, s => s.Pass == pass && s.Remaining == remaining);
        Assert.Equal(cores, step.Cores);
        Assert.Equal(scores, step.Scores.Select(s => Math.Round(s, 3)));
        Assert.Equal(chosen, step.Chosen);
    }

    [Fact]
    public void Final_allocation_is_18_2_12()
    {
        var decision = new TaskAvailabilityPolicy().Allocate(Figure);
        Assert.Equal([18, 2, 12], decision.Cores);
        Assert.False(decision.UsedFastPath);
        Assert.Equal(decision.Cores, new TaskAvailabilityPolicy().Explain(Figure).Decision.Cores);
    }

    [Fact]
    public void Fast_path_returns_the_base_when_every_program_has_enough_tasks()
    {
        var snapshot = Workloads.Snapshot(32, [15.18, 10.43, 9.71], [14, 9, 9]);
        var trace = new TaskAvailabilityPolicy().Explain(snapshot);
        Assert.True(trace.Decision.UsedFastPath);
        Assert.Contains("fast path", trace.Decision.Explanation, StringComparison.Ordinal);
        Assert.Equal([14, 9, 9], trace.Decision.Cores);
        Assert.Empty(trace.Steps);
    }

    [Fact]
    public void One_task_short_leaves_the_fast_path()
    {
        var decision = new TaskAvailabilityPolicy().Allocate(Workloads.Snapshot(32, [15.18, 10.43, 9.71], [14, 8, 100]));
        Assert.False(decision.UsedFastPath);
        Assert.Equal([14, 8, 10], decision.Cores);
    }

    [Fact]
    public void A_program_with_no_tasks_keeps_one_core_when_cores_suffice()
    {
        var decision = new TaskAvailabilityPolicy().Allocate(Workloads.Snapshot(16, [8, 8], [0, 100]));
        Assert.Equal([1, 15], decision.Cores);
    }

    [Fact]
    public void When_no_program_has_enough_tasks_pass_two_spreads_by_score()
    {
        // 16 cores, base 8/8, one task each: capped 1/1, pass 1 has nobody eligible, pass 2 alternates by score.
        var trace = new TaskAvailabilityPolicy().Explain(Workloads.Snapshot(16, [8, 8], [1, 1]));
        Assert.Equal([8, 8], trace.Decision.Cores);
        Assert.Equal(1 + 14, trace.Steps.Count);
        Assert.Null(trace.Steps[0].Chosen);
        Assert.All(trace.Steps.Skip(1), s => Assert.Equal(2, s.Pass));
    }
}
