using DivCon.Harness.Measurement;

namespace DivCon.Harness.Tests.Measurement;

public class SampleSummaryTests
{
    [Fact]
    public void Five_values_give_mean_bessel_deviation_and_99_percent_interval()
    {
        // Mean 6; squared deviations 16+4+0+4+16 = 40; s = sqrt(40/4) = sqrt(10).
        var s = SampleSummary.Of([2.0, 4.0, 6.0, 8.0, 10.0]);

        Assert.Equal(5, s.Count);
        Assert.Equal(6.0, s.Mean, 12);
        Assert.Equal(Math.Sqrt(10), s.StandardDeviation, 12);
        Assert.Equal(Math.Sqrt(10) / 6, s.RelativeStandardDeviation, 12);
        Assert.Equal(0.99, s.ConfidenceLevel);
        Assert.Equal(4.604 * Math.Sqrt(10) / Math.Sqrt(5), s.ConfidenceHalfWidth, 2);
        Assert.Equal(s.Mean - s.ConfidenceHalfWidth, s.Lower, 12);
        Assert.Equal(s.Mean + s.ConfidenceHalfWidth, s.Upper, 12);
        Assert.True(s.HasConfidenceInterval);
    }

    [Fact]
    public void Ten_values_at_95_percent_use_df_9()
    {
        double[] values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
        var s = SampleSummary.Of(values, 0.95);
        double sd = Math.Sqrt(values.Sum(v => (v - 5.5) * (v - 5.5)) / 9);

        Assert.Equal(sd, s.StandardDeviation, 12);
        Assert.Equal(2.262 * sd / Math.Sqrt(10), s.ConfidenceHalfWidth, 2);
    }

    [Fact]
    public void One_value_has_a_mean_but_no_spread_or_interval()
    {
        var s = SampleSummary.Of([3.5]);

        Assert.Equal(1, s.Count);
        Assert.Equal(3.5, s.Mean);
        Assert.True(double.IsNaN(s.StandardDeviation));
        Assert.True(double.IsNaN(s.ConfidenceHalfWidth));
        Assert.True(double.IsNaN(s.RelativeStandardDeviation));
        Assert.False(s.HasConfidenceInterval);
        Assert.Equal("3.50", s.ToString("F2"));
    }

    [Fact]
    public void Identical_values_have_zero_width()
    {
        var s = SampleSummary.Of([2.0, 2.0, 2.0]);
        Assert.Equal(0, s.StandardDeviation);
        Assert.Equal(0, s.ConfidenceHalfWidth);
        Assert.Equal("2.00 ± 0.00", s.ToString("F2"));
    }

    [Fact]
    public void Zero_mean_has_undefined_relative_deviation() =>
        Assert.True(double.IsNaN(SampleSummary.Of([-1.0, 1.0]).RelativeStandardDeviation));

    [Fact]
    public void Empty_sample_is_rejected()
    {
        var ex = Assert.Throws<ArgumentException>(() => SampleSummary.Of([]));
        Assert.Equal("sample", ex.ParamName);
    }

    [Theory]
    [InlineData(double.NaN)]
    [InlineData(double.PositiveInfinity)]
    public void Non_finite_values_are_rejected(double bad)
    {
        var ex = Assert.Throws<ArgumentException>(() => SampleSummary.Of([1.0, bad]));
        Assert.Contains("Value 1", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Null_sample_is_rejected() => Assert.Throws<ArgumentNullException>(() => SampleSummary.Of(null!));
}
