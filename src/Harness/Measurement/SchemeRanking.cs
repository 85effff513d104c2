using System.Globalization;

namespace DivCon.Harness.Measurement;
/// <summary>A scheme's system metrics across the rounds of one experiment (one ANTT, STP and MNTT per round).</summary>
/// <param name="Scheme">The scheme.</param>
/// <param name="Rounds">Rounds in which every program completed a counted run under it (the sample size).</param>
/// <param name="Summary">ANTT, STP and MNTT with Student-t intervals across those rounds.</param>
public sealed record AcrossRounds(string Scheme, int Rounds, RepeatedWorkloadSummary Summary)
{
    /// <summary>Each program's NTT (one per round: that round's C_MP over that round's C_SP) with its interval across rounds.</summary>
    public IReadOnlyList<ProgramAcrossRounds> Programs { get; init; } = [];
}

/// <summary>One program's NTT across the rounds of one scheme.</summary>
/// <param name="Program">The program.</param>
/// <param name="Ntt">Its per-round NTTs summarised, Student-t interval across rounds.</param>
public sealed record ProgramAcrossRounds(string Program, SampleSummary Ntt);

/// <summary>One ranking statement: <paramref name="Better"/> beats <paramref name="Worse"/> on <paramref name="Metric"/>.</summary>
/// <param name="Metric">"STP" (higher is better) or "ANTT" (lower is better).</param>
/// <param name="Better">The better scheme.</param>
/// <param name="Worse">The worse scheme.</param>
/// <param name="Text">The statement with both intervals.</param>
public sealed record RankingStatement(string Metric, string Better, string Worse, string Text);

/// <summary>
/// Which schemes beat which: a scheme is said to beat another on STP or ANTT only when their confidence intervals
/// across rounds do not overlap. Pure: no clock, no I/O.
/// </summary>
/// <remarks>
/// Non-overlapping intervals are a conservative test (two means can differ significantly with slightly overlapping
/// intervals); it is used because a stated ranking must survive the rerun of a skeptical reader. A scheme with fewer
/// than two rounds has no interval (NaN) and is never ranked.
/// </remarks>
public static class SchemeRanking
{
    /// <summary>Summarises each scheme's per-round metrics.</summary>
    /// <param name="perRound">Per scheme, its metrics in each round that had them.</param>
    /// <param name="confidenceLevel">Two-sided confidence level.</param>
    /// <returns>One summary per scheme with at least one round, in input order.</returns>
    public static IReadOnlyList<AcrossRounds> Summarize(
        IReadOnlyList<(string Scheme, IReadOnlyList<WorkloadMetrics> Rounds)> perRound, double confidenceLevel = SampleSummary.DefaultConfidenceLevel)
    {
        ArgumentNullException.ThrowIfNull(perRound);
        return [.. perRound.Where(s => s.Rounds.Count > 0)
            .Select(s => new AcrossRounds(s.Scheme, s.Rounds.Count, MultiprogramMetrics.SummarizeRepetitions(s.Rounds, confidenceLevel))
            {
                Programs = [.. s.Rounds[0].Programs.Select(p => new ProgramAcrossRounds(p.Program, SampleSummary.Of(
                    s.Rounds.Select(r => r.Programs.Single(x => x.Program == p.Program).NormalizedTurnaroundTime), confidenceLevel)))],
            })];
    }

    /// <summary>Every pair of schemes whose STP or ANTT intervals separate, best-first within each metric.</summary>
    /// <param name="schemes">The summaries.</param>
    /// <returns>The statements (empty when no intervals separate).</returns>
    public static IReadOnlyList<RankingStatement> Separated(IReadOnlyList<AcrossRounds> schemes)
    {
        ArgumentNullException.ThrowIfNull(schemes);
        var statements = new List<RankingStatement>();
        foreach (AcrossRounds a in schemes.OrderByDescending(s => s.Summary.Stp.Mean))
        {
            foreach (AcrossRounds b in schemes.Where(b => !ReferenceEquals(a, b)))
            {
                if (Low(a.Summary.Stp) > High(b.Summary.Stp))
                {
                    statements.Add(new RankingStatement("STP", a.Scheme, b.Scheme, Text("STP", a, a.Summary.Stp, b, b.Summary.Stp)));
                }
            }
        }

        foreach (AcrossRounds a in schemes.OrderBy(s => s.Summary.Antt.Mean))
        {
            foreach (AcrossRounds b in schemes.Where(b => !ReferenceEquals(a, b)))
            {
                if (High(a.Summary.Antt) < Low(b.Summary.Antt))
                {
                    statements.Add(new RankingStatement("ANTT", a.Scheme, b.Scheme, Text("ANTT", a, a.Summary.Antt, b, b.Summary.Antt)));
                }
            }
        }

        return statements;
    }

    // NaN bounds make every comparison false: a scheme without an interval is never ranked.
    private static double Low(SampleSummary s) => s.Mean - s.ConfidenceHalfWidth;

    private static double High(SampleSummary s) => s.Mean + s.ConfidenceHalfWidth;

    private static string Text(string metric, AcrossRounds a, SampleSummary sa, AcrossRounds b, SampleSummary sb) =>
        string.Create(CultureInfo.InvariantCulture,
            $"{a.Scheme} beats {b.Scheme} on {metric}: {sa.Mean:0.###} ± {sa.ConfidenceHalfWidth:0.###} vs {sb.Mean:0.###} ± {sb.ConfidenceHalfWidth:0.###} ({a.Rounds} and {b.Rounds} rounds, {sa.ConfidenceLevel:0.##%} intervals)");
}
