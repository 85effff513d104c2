using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Schedulers.Tests.Multiprogram;

public class EqualSharePolicyTests
{
    [Theory]
    [InlineData(64, 3, new[] { 22, 21, 21 })]
    [InlineData(8, 4, new[] { 2, 2, 2, 2 })]
    [InlineData(3, 5, new[] { 1, 1, 1, 0, 0 })]
    [InlineData(1, 1, new[] { 1 })]
    public void Splits_evenly_with_the_remainder_to_the_earliest_programs(int cores, int programs, int[] expected)
    {
        var snapshot = Workloads.Snapshot(cores, [.. Enumerable.Repeat(2.0, programs)]);
        Assert.Equal(expected, new EqualSharePolicy().Allocate(snapshot).Cores);
    }

    [Fact]
    public void Ignores_speedup_and_available_tasks()
    {
        var decision = new EqualSharePolicy().Allocate(Workloads.Snapshot(10, [50, 1], [0, 100]));
        Assert.Equal([5, 5], decision.Cores);
    }
}
