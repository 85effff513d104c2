namespace DivCon.Harness.Measurement;

/// <summary>
/// Confidence intervals for a sum of independent estimates whose variances were each estimated from a small
/// sample, using the Welch-Satterthwaite effective degrees of freedom.
/// </summary>
/// <remarks>
/// For an estimate <c>Σ a_i·m_i</c> with variance terms <c>v_i = a_i²·s_i²/n_i</c>, the variance is
/// <c>V = Σ v_i</c> and the effective degrees of freedom are <c>V² / Σ (v_i² / df_i)</c>. The half-width is
/// <c>t*(df) · √V</c>. If any term is unknown (NaN variance or no degrees of freedom) the result is NaN; if
/// every variance is zero the half-width is zero.
/// </remarks>
public static class WelchSatterthwaite
{
    /// <summary>Half-width of the two-sided interval for the combined estimate.</summary>
    /// <param name="terms">The independent variance contributions (at least one).</param>
    /// <param name="confidenceLevel">Two-sided confidence level in (0, 1).</param>
    /// <returns>The half-width, 0 when all variances are 0, NaN when a term is unknown.</returns>
    /// <exception cref="ArgumentException"><paramref name="terms"/> is empty or a variance is negative.</exception>
    public static double HalfWidth(IReadOnlyList<VarianceTerm> terms, double confidenceLevel)
    {
        ArgumentNullException.ThrowIfNull(terms);
        StudentT.ValidateConfidenceLevel(confidenceLevel);
        if (terms.Count == 0)
        {
            throw new ArgumentException("At least one variance term is needed.", nameof(terms));
        }

        double total = 0;
        double denominator = 0;
        foreach (VarianceTerm term in terms)
        {
            if (term.Variance < 0)
            {
                throw new ArgumentException($"Variance {term.Variance} is negative.", nameof(terms));
            }

            if (double.IsNaN(term.Variance) || !(term.DegreesOfFreedom > 0))
            {
                return double.NaN;
            }

            total += term.Variance;
            denominator += term.Variance * term.Variance / term.DegreesOfFreedom;
        }

        if (total == 0)
        {
            return 0;
        }

        double degreesOfFreedom = total * total / denominator;
        return StudentT.TwoSidedCriticalValue(confidenceLevel, degreesOfFreedom) * Math.Sqrt(total);
    }
}

/// <summary>
/// One independent contribution to the variance of a combined estimate, with the degrees of freedom of the
/// sample it was estimated from (input to <see cref="WelchSatterthwaite"/>).
/// </summary>
/// <param name="Variance">The (already weighted) variance contribution, non-negative; NaN when unknown.</param>
/// <param name="DegreesOfFreedom">Degrees of freedom of its estimate (sample size - 1); 0 when unknown.</param>
public readonly record struct VarianceTerm(double Variance, double DegreesOfFreedom);
