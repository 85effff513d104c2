using DivCon.Programs.Matrices;
using DivCon.Programs.Tests.Infrastructure;
using DivCon.Skeletons;

namespace DivCon.Programs.Tests;

public sealed class StrassenTests
{
    [Theory]
    [InlineData(1)]
    [InlineData(7)]
    [InlineData(100)] // 100 -> 50 -> 25 (odd: stops)
    [InlineData(130)]
    public async Task Any_order_multiplies_exactly(int order)
    {
        using var lease = new SchedulerLease(SchedulerKind.TwoWorkers);
        var problem = new StrassenProblem(SquareMatrix.Random(order, 1, 0, 1024), SquareMatrix.Random(order, 1, 1, 1024));
        var strassen = new StrassenMultiplication { MinimumSplitOrder = 4, Granularity = Granularity.Fixed(1) };
        var product = await strassen.RunAsync(problem, DivideAndConquerOptions.Default with { Scheduler = lease.Scheduler }).Bounded();
        Assert.Equal(SquareMatrix.MultiplyPlain(problem.Left, problem.Right).Elements, product.Elements);
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task Reused_temporaries_leave_results_and_inputs_of_earlier_runs_intact(ExecutionEngine engine)
    {
        // Runs of one instance reuse the temporary matrices of the earlier ones; neither the inputs nor a result
        // handed out may be among them. Orders 128 (splits and merges as sweeps of 2^10-element blocks) and 96.
        using var lease = new SchedulerLease(SchedulerKind.TwoWorkers);
        var strassen = new StrassenMultiplication { MinimumSplitOrder = 8, MaximumSweepLength = 1 << 10, Granularity = Granularity.Fixed(1) };
        var options = DivideAndConquerOptions.Default with { Scheduler = lease.Scheduler, Engine = engine };
        var runs = new List<(StrassenProblem Problem, int[] Left, int[] Right, SquareMatrix Product)>();
        for (int run = 0; run < 4; run++)
        {
            int order = run % 2 == 0 ? 128 : 96;
            var problem = new StrassenProblem(SquareMatrix.Random(order, run, 0, 1024), SquareMatrix.Random(order, run, 1, 1024));
            int[] left = (int[])problem.Left.Elements.Clone(), right = (int[])problem.Right.Elements.Clone();
            runs.Add((problem, left, right, await strassen.RunAsync(problem, options).Bounded()));
        }

        foreach (var (problem, left, right, product) in runs)
        {
            Assert.Equal(left, problem.Left.Elements);
            Assert.Equal(right, problem.Right.Elements);
            Assert.Equal(SquareMatrix.MultiplyPlain(problem.Left, problem.Right).Elements, product.Elements);
        }
    }

    [Fact]
    public async Task Negative_entries_and_overflowing_intermediates_still_give_the_exact_product()
    {
        using var lease = new SchedulerLease(SchedulerKind.OneWorker);
        var random = new Random(4);
        var left = new SquareMatrix(32, Enumerable.Range(0, 1024).Select(_ => random.Next(-5_000, 5_000)).ToArray());
        var right = new SquareMatrix(32, Enumerable.Range(0, 1024).Select(_ => random.Next(-5_000, 5_000)).ToArray());
        // Entries below 5000 in magnitude: the true products fit in int (32 x 5000^2), the sums of up to 8 entries
        // at depth 3 do not once multiplied, so only modular (wrapping) arithmetic gives the exact result.
        var strassen = new StrassenMultiplication { MinimumSplitOrder = 2, Granularity = Granularity.Fixed(1) };
        var product = await strassen.RunAsync(new StrassenProblem(left, right), DivideAndConquerOptions.Default with { Scheduler = lease.Scheduler }).Bounded();
        for (int i = 0; i < 32; i++)
        {
            for (int j = 0; j < 32; j++)
            {
                long exact = 0;
                for (int k = 0; k < 32; k++)
                {
                    exact += (long)left[i, k] * right[k, j];
                }

                Assert.Equal(exact, product[i, j]);
            }
        }
    }

    [Fact]
    public async Task Splitting_stops_at_depth_three_so_there_are_at_most_343_leaves()
    {
        using var lease = new SchedulerLease(SchedulerKind.TwoWorkers);
        var problem = new StrassenProblem(SquareMatrix.Random(32, 2, 0, 1024), SquareMatrix.Random(32, 2, 1, 1024));
        var strassen = new StrassenMultiplication { MinimumSplitOrder = 1, Granularity = Granularity.Fixed(1) };
        var phases = new PhaseAggregator();
        var product = await strassen.RunAsync(problem, DivideAndConquerOptions.Default with { Scheduler = lease.Scheduler, Observer = phases }).Bounded();
        Assert.Equal(343, phases.TotalCount(DivideAndConquerPhase.Execute));
        Assert.Equal(1 + 7 + 49, phases.TotalCount(DivideAndConquerPhase.Merge));
        Assert.Equal(SquareMatrix.MultiplyPlain(problem.Left, problem.Right).Elements, product.Elements);
    }

    [Theory]
    [InlineData(1536L * 1536, 1, 1536L * 1536)]
    [InlineData(1536L * 1536, 7, 768L * 768)]
    [InlineData(1536L * 1536, 8, 384L * 384)]
    [InlineData(1536L * 1536, 49, 384L * 384)]
    [InlineData(1536L * 1536, 64, 192L * 192)]
    [InlineData(4, 1000, 1)]
    public void Automatic_granularity_divides_the_size_by_four_per_seven_fold_level(long size, int leaves, long granularity) =>
        Assert.Equal(granularity, StrassenMultiplication.StrassenGranularity(size, leaves));

    [Fact]
    public async Task Automatic_granularity_on_two_workers_makes_49_leaves()
    {
        using var lease = new SchedulerLease(SchedulerKind.TwoWorkers);
        var program = new StrassenProgram(256, seed: 3);
        var phases = new PhaseAggregator();
        await program.RunParallelAsync(lease.Scheduler, observer: phases).Bounded();
        Assert.Equal(256 * 256 / 16, program.EffectiveGranularity);
        Assert.Equal(49, phases.TotalCount(DivideAndConquerPhase.Execute));
        Assert.True(program.Verify().Succeeded);
    }

    [Fact]
    public void Matrices_validate_their_shape()
    {
        Assert.Throws<ArgumentException>(() => new SquareMatrix(3, new int[8]));
        Assert.Throws<ArgumentOutOfRangeException>(() => new SquareMatrix(-1));
        Assert.Throws<ArgumentException>(() => SquareMatrix.MultiplyPlain(new SquareMatrix(2), new SquareMatrix(3)));
        Assert.Throws<ArgumentOutOfRangeException>(() => new StrassenMultiplication { MinimumSplitOrder = 0 });
    }
}
