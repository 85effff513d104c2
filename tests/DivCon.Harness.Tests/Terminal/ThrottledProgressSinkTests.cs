using DivCon.Harness.Measurement;
using DivCon.Harness.Terminal;
using DivCon.Harness.Tests.Support;

namespace DivCon.Harness.Tests.Terminal;

public class ThrottledProgressSinkTests
{
    [Fact]
    public void Forwards_one_report_per_interval_and_every_begin_and_end()
    {
        var clock = new ManualTimeProvider();
        var output = new StringWriter();
        var sink = new ThrottledProgressSink(new PlainProgressSink(output), clock, TimeSpan.FromSeconds(1));
        sink.BeginPhase("p", 10);
        sink.Report("p", 1, "too soon");
        clock.Advance(TimeSpan.FromSeconds(1));
        sink.Report("p", 2, "after a second");
        sink.Report("p", 3, "too soon again");
        sink.EndPhase("p");
        string text = output.ToString();
        Assert.Contains("[p] started", text, StringComparison.Ordinal);
        Assert.Contains("after a second", text, StringComparison.Ordinal);
        Assert.DoesNotContain("too soon", text, StringComparison.Ordinal);
        Assert.Contains("[p] done", text, StringComparison.Ordinal);
    }

    [Fact]
    public void Rejects_a_non_positive_interval() =>
        Assert.Throws<ArgumentOutOfRangeException>(() => new ThrottledProgressSink(NullProgressSink.Instance, TimeProvider.System, TimeSpan.Zero));
}
