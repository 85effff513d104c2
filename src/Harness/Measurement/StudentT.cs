namespace DivCon.Harness.Measurement;
/// <summary>
/// Critical values of Student's t distribution for two-sided confidence intervals.
/// </summary>
/// <remarks>
/// A two-sided interval at confidence level <c>c</c> leaves <c>(1 - c) / 2</c> in each tail, so the critical
/// value is the <c>1 - (1 - c) / 2</c> quantile. Reference points (any statistics table): 99% with 4 degrees
/// of freedom is 4.604, 99% with 9 is 3.250, 95% with 9 is 2.262. Degrees of freedom may be fractional, as
/// the Welch-Satterthwaite approximation produces.
/// </remarks>
public static class StudentT
{
    /// <summary>The two-sided critical value <c>t*</c> such that <c>P(|T| &lt;= t*) = confidenceLevel</c>.</summary>
    /// <param name="confidenceLevel">Confidence level, strictly between 0 and 1 (e.g. 0.99).</param>
    /// <param name="degreesOfFreedom">Degrees of freedom, strictly positive and finite.</param>
    /// <exception cref="ArgumentOutOfRangeException">A parameter is outside its range.</exception>
    public static double TwoSidedCriticalValue(double confidenceLevel, double degreesOfFreedom)
    {
        ValidateConfidenceLevel(confidenceLevel);
        if (!(degreesOfFreedom > 0) || double.IsInfinity(degreesOfFreedom))
        {
            throw new ArgumentOutOfRangeException(nameof(degreesOfFreedom), degreesOfFreedom,
                "Degrees of freedom must be positive and finite.");
        }

        return MathNet.Numerics.Distributions.StudentT.InvCDF(0.0, 1.0, degreesOfFreedom, 1.0 - ((1.0 - confidenceLevel) / 2.0));
    }

    /// <summary>Throws unless <paramref name="confidenceLevel"/> lies strictly between 0 and 1.</summary>
    /// <param name="confidenceLevel">The value to check.</param>
    /// <exception cref="ArgumentOutOfRangeException">The value is not in (0, 1).</exception>
    public static void ValidateConfidenceLevel(double confidenceLevel)
    {
        if (!(confidenceLevel > 0 && confidenceLevel < 1))
        {
            throw new ArgumentOutOfRangeException(nameof(confidenceLevel), confidenceLevel,
                "The confidence level must lie strictly between 0 and 1 (e.g. 0.99).");
        }
    }
}
