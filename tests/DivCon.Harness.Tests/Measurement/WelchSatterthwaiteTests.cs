using DivCon.Harness.Measurement;

namespace DivCon.Harness.Tests.Measurement;

public class WelchSatterthwaiteTests
{
    [Fact]
    public void Single_term_reduces_to_the_plain_student_interval()
    {
        // One term with variance 4 and df 9: half-width = t(0.99, 9) * 2 = 6.50.
        Assert.Equal(3.250 * 2, WelchSatterthwaite.HalfWidth([new VarianceTerm(4, 9)], 0.99), 2);
    }

    [Fact]
    public void Two_equal_terms_add_their_degrees_of_freedom()
    {
        // v = 1 + 1 = 2; df = 4 / (1/4 + 1/4) = 8; t(0.95, 8) = 2.306.
        Assert.Equal(2.306 * Math.Sqrt(2), WelchSatterthwaite.HalfWidth([new VarianceTerm(1, 4), new VarianceTerm(1, 4)], 0.95), 2);
    }

    [Fact]
    public void Unknown_term_gives_nan_and_zero_variance_gives_zero()
    {
        Assert.True(double.IsNaN(WelchSatterthwaite.HalfWidth([new VarianceTerm(1, 4), new VarianceTerm(double.NaN, 0)], 0.99)));
        Assert.True(double.IsNaN(WelchSatterthwaite.HalfWidth([new VarianceTerm(1, 0)], 0.99)));
        Assert.Equal(0, WelchSatterthwaite.HalfWidth([new VarianceTerm(0, 4), new VarianceTerm(0, 2)], 0.99));
    }

    [Fact]
    public void Bad_input_is_rejected()
    {
        Assert.Throws<ArgumentException>(() => WelchSatterthwaite.HalfWidth([], 0.99));
        Assert.Throws<ArgumentException>(() => WelchSatterthwaite.HalfWidth([new VarianceTerm(-1, 3)], 0.99));
        Assert.Throws<ArgumentOutOfRangeException>(() => WelchSatterthwaite.HalfWidth([new VarianceTerm(1, 3)], 1.5));
    }
}
