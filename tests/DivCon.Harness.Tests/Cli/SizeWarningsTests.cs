using DivCon.Harness.Cli;
using DivCon.Harness.Workload;
using DivCon.Programs;

namespace DivCon.Harness.Tests.Cli;

public class SizeWarningsTests
{
    private static IReadOnlyList<WorkloadProgram> Workload(string program, long size) =>
        WorkloadBuilder.Distinct([program], new SizeSelection(SizePreset.Quick, new Dictionary<string, long>(StringComparer.OrdinalIgnoreCase) { [program] = size }), seed: 1);

    [Fact]
    public void An_absurd_size_is_warned_about_with_an_estimate()
    {
        // pi is linear: 2^40 points are 2^20 times the 2^20-point quick size; 0.05 s per quick run makes about 14.6 h.
        string warning = Assert.Single(SizeWarnings.Check(Workload("pi", 1L << 40), _ => TimeSpan.FromSeconds(0.05)));

        Assert.Contains("pi at size 1099511627776", warning, StringComparison.Ordinal);
        Assert.Contains("about 14.6 h", warning, StringComparison.Ordinal);
    }

    [Fact]
    public void Sizes_up_to_the_thesis_size_are_not_timed_or_warned_about()
    {
        int timed = 0;
        Assert.Empty(SizeWarnings.Check(Workload("pi", 1L << 30), _ => { timed++; return TimeSpan.FromHours(1); }));
        Assert.Equal(0, timed);
        Assert.Empty(SizeWarnings.Check(Workload("pi", 1L << 31), _ => TimeSpan.FromMilliseconds(1))); // 2 s: reasonable
    }

    [Theory]
    [InlineData("quicksort", 1 << 20, 1 << 10, 1024 * 2.0)]
    [InlineData("strassen", 512, 256, 7.0)]
    [InlineData("pi", 8, 2, 4.0)]
    public void Work_grows_with_each_programs_complexity(string program, long size, long reference, double expected) =>
        Assert.Equal(expected, SizeWarnings.WorkRatio(program, size, reference)!.Value, 9);
}
