using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Tests;

public sealed class CpuListTests
{
    [Theory]
    [InlineData("0-3,8,10-11", new[] { 0, 1, 2, 3, 8, 10, 11 })]
    [InlineData(" 2,3 ,6-7\n", new[] { 2, 3, 6, 7 })]
    [InlineData("5", new[] { 5 })]
    [InlineData("", new int[0])]
    [InlineData("3,1,3", new[] { 1, 3 })]
    public void Parses_lists_and_ranges(string text, int[] expected) =>
        Assert.Equal(expected, CpuList.Parse(text));

    [Theory]
    [InlineData("3-1")]
    [InlineData("a")]
    [InlineData("1-")]
    [InlineData("-1")]
    public void Rejects_malformed_lists(string text) =>
        Assert.Throws<FormatException>(() => CpuList.Parse(text));

    [Theory]
    [InlineData(new[] { 0, 1, 2, 3, 8, 10, 11 }, "0-3,8,10-11")]
    [InlineData(new[] { 7, 6, 3, 2 }, "2-3,6-7")]
    [InlineData(new int[0], "")]
    public void Formats_compactly(int[] ids, string expected) =>
        Assert.Equal(expected, CpuList.Format(ids));
}
