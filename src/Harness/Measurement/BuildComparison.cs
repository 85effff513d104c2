namespace DivCon.Harness.Measurement;

/// <summary>One case's time in one child process of a paired comparison of two builds.</summary>
/// <param name="Pair">The pair (1-based).</param>
/// <param name="Build">'A' or 'B'.</param>
/// <param name="Case">The case.</param>
/// <param name="Nanoseconds">Its median time per call in that child.</param>
public sealed record BuildRun(int Pair, char Build, string Case, double Nanoseconds);

/// <summary>One case compared between the builds: the median of the pairs' ratios B/A and its interval.</summary>
/// <param name="Case">The case.</param>
/// <param name="MedianA">The median time of build A's children.</param>
/// <param name="MedianB">The median time of build B's children.</param>
/// <param name="BOverA">The pairs' ratios B/A, summarized.</param>
public sealed record CaseComparison(string Case, double MedianA, double MedianB, PairedRatios BOverA);

/// <summary>One case of one build against its baseline in the same child: the median over the children of time / baseline's time.</summary>
/// <param name="Build">'A' or 'B'.</param>
/// <param name="Case">The case.</param>
/// <param name="Baseline">The baseline case.</param>
/// <param name="ToBaseline">The children's ratios case / baseline, summarized.</param>
public sealed record BaselineComparison(char Build, string Case, string Baseline, PairedRatios ToBaseline);

/// <summary>
/// The analysis of a paired comparison of two builds (<c>bench-pairs</c>): child processes of build A and of build
/// B run back to back, pair after pair, so a machine whose speed drifts between minutes slows both members of a pair
/// alike. Per case the ratio B/A is taken within each pair and summarized by <see cref="PairedRatios"/> (median, 95%
/// bootstrap interval); per build, each case's time is divided by its baseline's time in the same child (cases run
/// seconds apart, so drift cancels there too) and summarized over the children the same way.
/// </summary>
public static class BuildComparison
{
    /// <summary>Per case (in first-seen order), the ratios B/A of the pairs that have both builds' times.</summary>
    /// <param name="runs">Every child's times.</param>
    /// <returns>One comparison per case with at least 2 complete pairs.</returns>
    /// <exception cref="ArgumentException">A build other than 'A' or 'B', a time not positive and finite, or a case twice in one child.</exception>
    public static IReadOnlyList<CaseComparison> CompareBuilds(IReadOnlyList<BuildRun> runs)
    {
        Validate(runs);
        var comparisons = new List<CaseComparison>();
        foreach (string name in runs.Select(r => r.Case).Distinct(StringComparer.Ordinal))
        {
            var pairs = runs.Where(r => r.Case == name).GroupBy(r => r.Pair)
                .Where(g => g.Any(r => r.Build == 'A') && g.Any(r => r.Build == 'B'))
                .Select(g => (A: g.Single(r => r.Build == 'A').Nanoseconds, B: g.Single(r => r.Build == 'B').Nanoseconds))
                .ToList();
            if (pairs.Count < 2)
            {
                continue;
            }

            comparisons.Add(new CaseComparison(
                name,
                MathNet.Numerics.Statistics.Statistics.Median(pairs.Select(p => p.A)),
                MathNet.Numerics.Statistics.Statistics.Median(pairs.Select(p => p.B)),
                PairedRatios.Of([.. pairs.Select(p => p.B / p.A)])));
        }

        return comparisons;
    }

    /// <summary>
    /// Per build and case (builds A then B, cases in first-seen order), the ratios of the case's time to its
    /// baseline's in each child that timed both. Baselines themselves and cases without a baseline are left out.
    /// </summary>
    /// <param name="runs">Every child's times.</param>
    /// <param name="baselines">Each case's baseline (a case mapped to itself is a baseline).</param>
    /// <returns>One comparison per build and case with at least 2 children that timed both.</returns>
    /// <exception cref="ArgumentException">As <see cref="CompareBuilds"/>.</exception>
    public static IReadOnlyList<BaselineComparison> CompareToBaselines(IReadOnlyList<BuildRun> runs, IReadOnlyDictionary<string, string> baselines)
    {
        Validate(runs);
        ArgumentNullException.ThrowIfNull(baselines);
        var comparisons = new List<BaselineComparison>();
        foreach (char build in (char[])['A', 'B'])
        {
            var children = runs.Where(r => r.Build == build).GroupBy(r => r.Pair)
                .Select(g => g.ToDictionary(r => r.Case, r => r.Nanoseconds, StringComparer.Ordinal))
                .ToList();
            foreach (string name in runs.Select(r => r.Case).Distinct(StringComparer.Ordinal))
            {
                if (!baselines.TryGetValue(name, out string? baseline) || baseline == name)
                {
                    continue;
                }

                double[] ratios = [.. children
                    .Where(c => c.ContainsKey(name) && c.ContainsKey(baseline))
                    .Select(c => c[name] / c[baseline])];
                if (ratios.Length >= 2)
                {
                    comparisons.Add(new BaselineComparison(build, name, baseline, PairedRatios.Of(ratios)));
                }
            }
        }

        return comparisons;
    }

    private static void Validate(IReadOnlyList<BuildRun> runs)
    {
        ArgumentNullException.ThrowIfNull(runs);
        foreach (BuildRun run in runs)
        {
            if (run.Build is not ('A' or 'B'))
            {
                throw new ArgumentException($"A run's build must be 'A' or 'B', got '{run.Build}'.", nameof(runs));
            }

            if (!double.IsFinite(run.Nanoseconds) || run.Nanoseconds <= 0)
            {
                throw new ArgumentException($"A run's time must be positive and finite, got {run.Nanoseconds} ({run.Case}, pair {run.Pair}, build {run.Build}).", nameof(runs));
            }
        }

        var twice = runs.GroupBy(r => (r.Pair, r.Build, r.Case)).FirstOrDefault(g => g.Count() > 1);
        if (twice is not null)
        {
            throw new ArgumentException($"Case {twice.Key.Case} appears twice in pair {twice.Key.Pair}, build {twice.Key.Build}.", nameof(runs));
        }
    }
}
