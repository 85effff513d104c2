namespace DivCon.Harness.Oracle;

/// <summary>The best static partition of the machine for a workload and the system throughput it reaches.</summary>
/// <param name="Cores">Cores in the machine.</param>
/// <param name="Shares">Each program's cores and NP, in input order.</param>
/// <param name="Stp">The oracle's STP, Σ NP over <paramref name="Shares"/>.</param>
public sealed record OracleResult(int Cores, IReadOnlyList<PartitionShare> Shares, double Stp)
{
    /// <summary>
    /// How close a measured scheme came to the oracle: <c>measuredStp / Stp</c> (1 = as good as the best static
    /// partition; above 1 is possible for dynamic schemes, which can move cores as programs' needs change).
    /// </summary>
    /// <param name="measuredStp">A scheme's measured STP (positive).</param>
    /// <returns>The fraction.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="measuredStp"/> is not positive and finite.</exception>
    public double FractionOfOracle(double measuredStp)
    {
        if (!(measuredStp > 0) || double.IsInfinity(measuredStp))
        {
            throw new ArgumentOutOfRangeException(nameof(measuredStp), measuredStp, "A measured STP is positive and finite.");
        }

        return measuredStp / Stp;
    }
}
