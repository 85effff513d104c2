using DivCon.Programs.Sorting;
using DivCon.Programs.Tests.Infrastructure;
using DivCon.Skeletons;

namespace DivCon.Programs.Tests;

public sealed class ParallelMergeTests
{
    public static TheoryData<int, int, int, SchedulerKind> Cases()
    {
        var data = new TheoryData<int, int, int, SchedulerKind>();
        foreach (var (left, right) in new[] { (0, 0), (0, 50), (50, 0), (1, 1), (1, 1000), (1000, 1), (777, 333), (2000, 2000) })
        {
            foreach (int distinct in new[] { 2, 1_000_000 })
            {
                data.Add(left, right, distinct, SchedulerKind.OneWorker);
                data.Add(left, right, distinct, SchedulerKind.TwoWorkers);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Merges_two_sorted_runs_like_the_sequential_merge(int leftLength, int rightLength, int distinct, SchedulerKind kind)
    {
        using var lease = new SchedulerLease(kind);
        var random = new Random(leftLength * 31 + rightLength);
        var left = Enumerable.Range(0, leftLength).Select(_ => random.Next(distinct)).Order().ToArray();
        var right = Enumerable.Range(0, rightLength).Select(_ => random.Next(distinct)).Order().ToArray();
        int[] source = [.. left, .. right];
        const int offset = 3;
        var destination = new int[source.Length + offset];
        var problem = new MergeProblem(source, new IndexRange(0, leftLength), new IndexRange(leftLength, source.Length), destination, offset, LeafSize: 2);

        var filled = await ParallelMerge.Shared.RunAsync(problem, DivideAndConquerOptions.Default with { Scheduler = lease.Scheduler }).Bounded();

        Assert.Equal(new IndexRange(offset, offset + source.Length), filled);
        Assert.Equal(source.Order(), destination.Skip(offset));
        Assert.Equal([0, 0, 0], destination.Take(offset));
    }

    [Fact]
    public void Division_makes_two_strictly_smaller_merges_that_fill_adjacent_ranges()
    {
        var source = new[] { 1, 2, 2, 2, 9, 2, 2, 3 };
        var problem = new MergeProblem(source, new IndexRange(0, 5), new IndexRange(5, 8), new int[8], 0, 2);
        var (first, second) = ParallelMerge.Divide(problem);
        Assert.Equal(problem.Length, first.Length + second.Length);
        Assert.InRange(first.Length, 1, problem.Length - 1);
        Assert.Equal(first.Length, second.DestinationStart);
        int firstMax = source.Skip(first.Left.Start).Take(first.Left.End - first.Left.Start).Concat(source.Skip(first.Right.Start).Take(first.Right.End - first.Right.Start)).Max();
        int secondMin = source.Skip(second.Left.Start).Take(second.Left.End - second.Left.Start).Concat(source.Skip(second.Right.Start).Take(second.Right.End - second.Right.Start)).Min();
        Assert.True(firstMax <= secondMin);
    }

    [Fact]
    public void The_sequential_merge_rejects_a_destination_of_the_wrong_length() =>
        Assert.Throws<ArgumentException>(() => SortKernels.Merge([1], [2], new int[3]));
}
