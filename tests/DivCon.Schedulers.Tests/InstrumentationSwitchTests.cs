namespace DivCon.Schedulers.Tests;

/// <summary>
/// The <c>DivCon.Instrumentation.IsSupported</c> feature switch's decision on plain data. The process-level effect
/// (a child process started with the switch off has no DivCon meter or event source and still runs programs) is
/// tested in the harness's tests, since the switch is read once per process.
/// </summary>
public sealed class InstrumentationSwitchTests
{
    [Theory]
    [InlineData(null, null, true)]
    [InlineData(true, null, true)]
    [InlineData(null, true, true)]
    [InlineData(true, true, true)]
    [InlineData(false, null, false)]
    [InlineData(false, true, false)]
    [InlineData(null, false, false)]
    [InlineData(true, false, false)]
    [InlineData(false, false, false)]
    public void A_feature_is_present_unless_a_switch_says_false(bool? divcon, bool? runtime, bool expected) =>
        Assert.Equal(expected, Instrumentation.Decide(divcon, runtime));

    [Fact]
    public void No_switch_at_all_means_present() => Assert.True(Instrumentation.Decide());

    [Fact]
    public void The_switch_has_the_documented_name_and_is_unset_here()
    {
        Assert.Equal("DivCon.Instrumentation.IsSupported", Instrumentation.SwitchName);
        Assert.Equal("System.Diagnostics.Metrics.Meter.IsSupported", Instrumentation.MeterSwitchName);
        Assert.False(AppContext.TryGetSwitch(Instrumentation.SwitchName, out _), "the test host sets the switch: the next assertion would test nothing");
        Assert.True(Instrumentation.IsSupported);
        Assert.Equal("System.Diagnostics.Tracing.EventSource.IsSupported", Instrumentation.EventSourceSwitchName);
        Assert.True(Instrumentation.MetricsEnabled);
        Assert.True(Instrumentation.EventsEnabled);
    }
}
