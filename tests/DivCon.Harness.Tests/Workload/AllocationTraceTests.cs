using DivCon.Harness.Reports;
using DivCon.Harness.Tests.Support;
using DivCon.Harness.Workload;

namespace DivCon.Harness.Tests.Workload;

public class AllocationTraceTests
{
    [Fact]
    public void Records_allocations_at_the_clock_time_and_charts_them()
    {
        var clock = new ManualTimeProvider();
        var trace = new AllocationTrace(["a", "b"], clock);
        trace.Record([2, 2]);
        clock.Advance(TimeSpan.FromSeconds(3));
        trace.Record([3, 1]);
        clock.Advance(TimeSpan.FromSeconds(2));

        IReadOnlyList<AllocationSample> samples = trace.Samples();
        Assert.Equal([TimeSpan.Zero, TimeSpan.FromSeconds(3)], samples.Select(s => s.Time));
        Assert.Equal([3, 1], samples[1].Cores);
        AllocationChart chart = AllocationChart.Of(trace, "alloc", 4);
        Assert.Equal(TimeSpan.FromSeconds(5), chart.End);
    }

    [Fact]
    public void Bad_records_are_rejected()
    {
        var trace = new AllocationTrace(["a", "b"]);
        Assert.Throws<InvalidOperationException>(() => AllocationChart.Of(trace, "t", 2));
        Assert.Throws<ArgumentException>(() => trace.Record([1]));
        Assert.Throws<ArgumentException>(() => trace.Record([1, -1]));
        Assert.Throws<ArgumentException>(() => new AllocationTrace([]));
    }
}
