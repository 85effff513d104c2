namespace DivCon.Harness.Statistics;

/// <summary>
/// One independent contribution to the variance of a combined estimate, with the degrees of freedom of the
/// sample it was estimated from (input to <see cref="WelchSatterthwaite"/>).
/// </summary>
/// <param name="Variance">The (already weighted) variance contribution, non-negative; NaN when unknown.</param>
/// <param name="DegreesOfFreedom">Degrees of freedom of its estimate (sample size - 1); 0 when unknown.</param>
public readonly record struct VarianceTerm(double Variance, double DegreesOfFreedom);
