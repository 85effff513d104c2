using DivCon.Harness.Measurement;

namespace DivCon.Harness.Tests.Measurement;

public class StudentTTests
{
    [Theory]
    [InlineData(0.99, 4, 4.604)]
    [InlineData(0.99, 9, 3.250)]
    [InlineData(0.95, 9, 2.262)]
    [InlineData(0.99, 1, 63.657)]
    [InlineData(0.99, 2, 9.925)]
    [InlineData(0.95, 4, 2.776)]
    [InlineData(0.99, 20, 2.845)]
    public void Critical_values_match_the_table(double confidence, int df, double expected) =>
        Assert.Equal(expected, StudentT.TwoSidedCriticalValue(confidence, df), 3);

    [Theory]
    [InlineData(0.0)]
    [InlineData(1.0)]
    [InlineData(-0.5)]
    [InlineData(99.0)]
    [InlineData(double.NaN)]
    public void Bad_confidence_level_is_rejected(double confidence)
    {
        var ex = Assert.Throws<ArgumentOutOfRangeException>(() => StudentT.TwoSidedCriticalValue(confidence, 5));
        Assert.Equal("confidenceLevel", ex.ParamName);
    }

    [Theory]
    [InlineData(0.0)]
    [InlineData(-1.0)]
    [InlineData(double.PositiveInfinity)]
    public void Bad_degrees_of_freedom_are_rejected(double df) =>
        Assert.Throws<ArgumentOutOfRangeException>(() => StudentT.TwoSidedCriticalValue(0.99, df));
}
