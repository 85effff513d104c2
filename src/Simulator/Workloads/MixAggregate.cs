namespace DivCon.Simulator.Workloads;

/// <summary>One scheme on one mix at one core count: the per-mix CSV's row.</summary>
/// <param name="Mix">The mix's id.</param>
/// <param name="Cores">Simulated cores.</param>
/// <param name="Scheme">The scheme's name.</param>
/// <param name="Stp">System throughput (NaN: incomplete, a program starved).</param>
/// <param name="Antt">Average normalized turnaround time (NaN: incomplete).</param>
/// <param name="WorstNtt">Worst program's NTT (NaN: incomplete).</param>
/// <param name="MovesPerSecond">Core moves between programs per simulated second.</param>
/// <param name="HandoversPerSecond">Standby handovers per simulated second.</param>
public sealed record MixOutcome(string Mix, int Cores, string Scheme, double Stp, double Antt, double WorstNtt, double MovesPerSecond, double HandoversPerSecond);

/// <summary>One scheme's line of the aggregate table (one core count).</summary>
/// <param name="Scheme">The scheme.</param>
/// <param name="Mixes">Mixes it ran.</param>
/// <param name="Incomplete">Mixes where it starved a program (no STP).</param>
/// <param name="Wins">Mixes where its STP is the highest (ties all win).</param>
/// <param name="NearBest">Mixes where it wins, or is within 1% of the best STP and 2% of the best ANTT.</param>
/// <param name="GeoMeanRatio">Geometric mean over mixes of its STP / the best STP of the other schemes.</param>
/// <param name="WorstRatio">The smallest such ratio.</param>
/// <param name="WorstMix">The mix of the smallest ratio.</param>
/// <param name="MovesPerSecond">Mean moves per simulated second over its mixes.</param>
/// <param name="HandoversPerSecond">Mean standby handovers per simulated second.</param>
public sealed record SchemeAggregate(
    string Scheme, int Mixes, int Incomplete, int Wins, int NearBest, double GeoMeanRatio, double WorstRatio, string? WorstMix, double MovesPerSecond, double HandoversPerSecond);

/// <summary>
/// The aggregate over many mixes at one core count (pure arithmetic on <see cref="MixOutcome"/> rows). Per scheme:
/// wins (highest STP on a mix; equal STPs all win), near-best (a win, or STP at least 99% of the mix's best and ANTT at
/// most 102% of the mix's best ANTT), the geometric mean and the minimum over mixes of its STP divided by the best
/// STP among the <i>other</i> schemes (above 1: it beat them all; a scheme alone on a mix has no ratio there), and
/// mean moves and handovers per second. Incomplete outcomes (NaN STP) win nothing, enter no ratio and no best.
/// </summary>
public static class MixAggregate
{
    /// <summary>Tolerance of near-best on STP (1%).</summary>
    public const double StpTolerance = 0.01;

    /// <summary>Tolerance of near-best on ANTT (2%).</summary>
    public const double AnttTolerance = 0.02;

    /// <summary>
    /// Whether an outcome is near-best on its mix: the mix's best STP, or STP at least 99% of it
    /// (<see cref="StpTolerance"/>) with ANTT at most 102% of the mix's best ANTT (<see cref="AnttTolerance"/>).
    /// </summary>
    /// <param name="stp">The outcome's STP.</param>
    /// <param name="antt">The outcome's ANTT.</param>
    /// <param name="bestStp">The highest STP on the mix (the outcome's own included).</param>
    /// <param name="bestAntt">The lowest ANTT on the mix (the outcome's own included).</param>
    /// <returns>True when near-best.</returns>
    public static bool IsNearBest(double stp, double antt, double bestStp, double bestAntt) =>
        stp >= bestStp || (stp >= (1 - StpTolerance) * bestStp && antt <= (1 + AnttTolerance) * bestAntt);

    /// <summary>Aggregates the rows of one core count.</summary>
    /// <param name="outcomes">Rows (one core count; at most one per mix and scheme).</param>
    /// <param name="schemes">The schemes in table order (every row's scheme must be one of them).</param>
    /// <returns>One line per scheme, in <paramref name="schemes"/>' order.</returns>
    /// <exception cref="ArgumentException">Rows of several core counts, an unknown scheme, or a mix and scheme twice.</exception>
    public static IReadOnlyList<SchemeAggregate> Compute(IReadOnlyList<MixOutcome> outcomes, IReadOnlyList<string> schemes)
    {
        ArgumentNullException.ThrowIfNull(outcomes);
        ArgumentNullException.ThrowIfNull(schemes);
        if (outcomes.Select(o => o.Cores).Distinct().Count() > 1)
        {
            throw new ArgumentException("Aggregate one core count at a time.", nameof(outcomes));
        }

        if (outcomes.FirstOrDefault(o => !schemes.Contains(o.Scheme, StringComparer.Ordinal)) is { } unknown)
        {
            throw new ArgumentException($"Row of scheme '{unknown.Scheme}' is not among the schemes.", nameof(outcomes));
        }

        if (outcomes.GroupBy(o => (o.Mix, o.Scheme)).FirstOrDefault(g => g.Count() > 1) is { } twice)
        {
            throw new ArgumentException($"Mix '{twice.Key.Mix}' has two rows for scheme '{twice.Key.Scheme}'.", nameof(outcomes));
        }

        var byMix = outcomes.GroupBy(o => o.Mix, StringComparer.Ordinal).ToList();
        var result = new List<SchemeAggregate>(schemes.Count);
        foreach (string scheme in schemes)
        {
            int mixes = 0, incomplete = 0, wins = 0, near = 0;
            double logSum = 0;
            int ratios = 0;
            double worst = double.NaN;
            string? worstMix = null;
            double moves = 0, handovers = 0;
            foreach (var mix in byMix)
            {
                var own = mix.FirstOrDefault(o => o.Scheme == scheme);
                if (own is null)
                {
                    continue;
                }

                mixes++;
                moves += own.MovesPerSecond;
                handovers += own.HandoversPerSecond;
                if (double.IsNaN(own.Stp))
                {
                    incomplete++;
                    continue;
                }

                var complete = mix.Where(o => !double.IsNaN(o.Stp)).ToList();
                double bestStp = complete.Max(o => o.Stp);
                double bestAntt = complete.Min(o => o.Antt);
                bool win = own.Stp >= bestStp;
                wins += win ? 1 : 0;
                near += IsNearBest(own.Stp, own.Antt, bestStp, bestAntt) ? 1 : 0;
                var others = complete.Where(o => o.Scheme != scheme).ToList();
                if (others.Count > 0)
                {
                    double ratio = own.Stp / others.Max(o => o.Stp);
                    logSum += Math.Log(ratio);
                    ratios++;
                    if (double.IsNaN(worst) || ratio < worst)
                    {
                        worst = ratio;
                        worstMix = mix.Key;
                    }
                }
            }

            result.Add(new SchemeAggregate(scheme, mixes, incomplete, wins, near, ratios == 0 ? double.NaN : Math.Exp(logSum / ratios), worst, worstMix,
                mixes == 0 ? 0 : moves / mixes, mixes == 0 ? 0 : handovers / mixes));
        }

        return result;
    }
}
