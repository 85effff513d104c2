using DivCon.Programs.Numeric;
using DivCon.Programs.Tests.Infrastructure;
using DivCon.Skeletons;

namespace DivCon.Programs.Tests;

public sealed class MonteCarloPiTests
{
    private const long Samples = 200_003; // odd and prime-ish, so splits are uneven

    public static TheoryData<SchedulerKind, ExecutionEngine, int> Cases()
    {
        var data = new TheoryData<SchedulerKind, ExecutionEngine, int>();
        foreach (var kind in Enum.GetValues<SchedulerKind>())
        {
            foreach (var engine in Enum.GetValues<ExecutionEngine>())
            {
                foreach (int branching in new[] { 2, 3, 7 })
                {
                    data.Add(kind, engine, branching);
                }
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task The_count_is_exactly_the_sequential_count_for_every_split(SchedulerKind kind, ExecutionEngine engine, int branching)
    {
        using var lease = new SchedulerLease(kind);
        var program = new MonteCarloPiProgram(Samples, seed: 99, branching);
        program.RunSequential();
        long sequential = program.LastResult;

        foreach (var granularity in new[] { Granularity.Fixed(1_000), Granularity.Fixed(4_321), Granularity.Depth(4), Granularity.Automatic() })
        {
            program.Granularity = granularity;
            await program.RunParallelAsync(lease.Scheduler, engine).Bounded();
            Assert.Equal(sequential, program.LastResult);
            Assert.Equal(4.0 * sequential / Samples, program.PiEstimate);
        }

        Assert.True(program.Verify().Succeeded, program.Verify().Message);
    }

    [Fact]
    public void Different_seeds_draw_different_points_and_the_estimate_is_near_pi()
    {
        var a = new MonteCarloPi(Samples, seed: 1);
        var b = new MonteCarloPi(Samples, seed: 2);
        long countA = a.CountInside(a.WholeRange), countB = b.CountInside(b.WholeRange);
        Assert.NotEqual(countA, countB);
        Assert.InRange(MonteCarloPi.Estimate(countA, Samples), 3.13, 3.153);
    }

    [Fact]
    public void Sample_ranges_split_into_nearly_equal_contiguous_parts()
    {
        var parts = new SampleRange(10, 27).Split(4);
        Assert.Equal([new(10, 15), new(15, 19), new(19, 23), new(23, 27)], parts);
        Assert.Single(new SampleRange(5, 5).Split(3));
        Assert.Equal(2, new SampleRange(0, 2).Split(5).Length);
    }

    [Fact]
    public void A_branching_factor_below_two_is_rejected() =>
        Assert.Throws<ArgumentOutOfRangeException>(() => new MonteCarloPiProgram(10, 1, branchingFactor: 1));
}
