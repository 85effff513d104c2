using DivCon.Harness.Reports.Charts;

namespace DivCon.Harness.Tests.Reports;

public class ChartAxisTests
{
    [Fact]
    public void Linear_ticks_are_round_and_cover_the_data()
    {
        var axis = new ChartAxis(AxisScale.Linear, 0.3, 9.2, 0, 100, includeZero: true);
        Assert.Equal([0.0, 2, 4, 6, 8, 10], axis.Ticks);
        Assert.Equal(0, axis.Map(0));
        Assert.Equal(100, axis.Map(10));
        Assert.Equal(50, axis.Map(5));
    }

    [Fact]
    public void Linear_axis_without_zero_and_with_a_single_value()
    {
        var axis = new ChartAxis(AxisScale.Linear, 1.12, 1.38, 0, 100, includeZero: false);
        Assert.Equal(1.1, axis.Min, 12);
        Assert.Equal(1.4, axis.Max, 12);
        var flat = new ChartAxis(AxisScale.Linear, 2, 2, 0, 100, includeZero: false);
        Assert.True(flat.Min < 2 && flat.Max > 2);
        var zero = new ChartAxis(AxisScale.Linear, 0, 0, 0, 100, includeZero: true);
        Assert.Equal(0, zero.Min);
        Assert.True(zero.Max > 0);
    }

    [Fact]
    public void Log_axes_use_whole_powers_and_thin_long_ranges()
    {
        var log2 = new ChartAxis(AxisScale.Log2, 1, 64, 0, 60, includeZero: false);
        Assert.Equal([1.0, 2, 4, 8, 16, 32, 64], log2.Ticks);
        Assert.Equal(10, log2.Map(2), 9);

        var wide = new ChartAxis(AxisScale.Log2, Math.Pow(2, -16), 1, 0, 100, includeZero: false);
        Assert.True(wide.Ticks.Count <= 13);
        Assert.Equal("1/65536", wide.Format(wide.Ticks[0]));

        var log10 = new ChartAxis(AxisScale.Log10, 0.05, 300, 0, 100, includeZero: false);
        Assert.Equal([0.01, 0.1, 1, 10, 100, 1000], log10.Ticks.Select(t => Math.Round(t, 6)));
        Assert.Throws<ArgumentException>(() => new ChartAxis(AxisScale.Log10, 0, 1, 0, 1, includeZero: false));
    }
}
