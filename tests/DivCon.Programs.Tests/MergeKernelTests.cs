using DivCon.Programs.Sorting;

namespace DivCon.Programs.Tests;

/// <summary>The two-way merge kernel against a reference (concatenate and sort), on run lengths that exercise both ends and the middle.</summary>
public sealed class MergeKernelTests
{
    public static TheoryData<int, int, int> Lengths()
    {
        var data = new TheoryData<int, int, int>();
        int[] lengths = [0, 1, 2, 3, 7, 64, 65, 1000];
        foreach (int left in lengths)
        {
            foreach (int right in lengths)
            {
                // Value ranges: 2 (many ties across the runs), 1000, and the whole int range.
                foreach (int range in new[] { 2, 1000, int.MaxValue })
                {
                    data.Add(left, right, range);
                }
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Lengths))]
    public void Merge_EqualsTheSortedConcatenation(int leftLength, int rightLength, int range)
    {
        var random = new Random((leftLength * 7919) + (rightLength * 31) + range);
        int[] left = Sorted(leftLength, range, random), right = Sorted(rightLength, range, random);
        var destination = new int[leftLength + rightLength];
        Array.Fill(destination, -1);

        SortKernels.Merge(left, right, destination);

        int[] expected = [.. left, .. right];
        Array.Sort(expected);
        Assert.Equal(expected, destination);
    }

    [Fact]
    public void Merge_OneRunEntirelyBelowTheOther()
    {
        int[] low = [.. Enumerable.Range(0, 100)], high = [.. Enumerable.Range(100, 37)];
        var forward = new int[137];
        var backward = new int[137];

        SortKernels.Merge(low, high, forward);
        SortKernels.Merge(high, low, backward);

        Assert.Equal(Enumerable.Range(0, 137), forward);
        Assert.Equal(Enumerable.Range(0, 137), backward);
    }

    [Fact]
    public void Merge_NegativeAndExtremeValues()
    {
        // The kernel chooses by the sign of a 64-bit difference: the extremes of int must not overflow it.
        var random = new Random(11);
        int[] pool = [int.MinValue, int.MinValue + 1, -1, 0, 1, int.MaxValue - 1, int.MaxValue];
        int[] left = [.. Enumerable.Range(0, 300).Select(_ => random.Next(2) == 0 ? pool[random.Next(pool.Length)] : random.Next(int.MinValue, int.MaxValue)).Order()];
        int[] right = [.. Enumerable.Range(0, 301).Select(_ => random.Next(2) == 0 ? pool[random.Next(pool.Length)] : random.Next(int.MinValue, int.MaxValue)).Order()];
        var destination = new int[601];

        SortKernels.Merge(left, right, destination);

        int[] expected = [.. left, .. right];
        Array.Sort(expected);
        Assert.Equal(expected, destination);
    }

    [Fact]
    public void Merge_WrongDestinationLength_Throws()
    {
        var e = Assert.Throws<ArgumentException>(() => SortKernels.Merge([1, 2], [3], new int[4]));
        Assert.Equal("destination", e.ParamName);
    }

    private static int[] Sorted(int length, int range, Random random)
    {
        var values = new int[length];
        for (int i = 0; i < length; i++)
        {
            values[i] = random.Next(range);
        }

        Array.Sort(values);
        return values;
    }
}
