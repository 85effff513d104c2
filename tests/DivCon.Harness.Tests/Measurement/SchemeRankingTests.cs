using DivCon.Harness.Measurement;

namespace DivCon.Harness.Tests.Measurement;

public class SchemeRankingTests
{
    [Fact]
    public void Overlapping_intervals_give_no_ranking()
    {
        AcrossRounds a = Scheme("a", stp: [1.0, 1.3, 1.1], antt: [2.0, 2.4, 2.2]);
        AcrossRounds b = Scheme("b", stp: [1.2, 1.4, 1.0], antt: [2.1, 2.3, 2.5]);
        Assert.Empty(SchemeRanking.Separated([a, b]));
    }

    [Fact]
    public void Separated_intervals_rank_the_better_scheme_on_each_metric()
    {
        AcrossRounds good = Scheme("good", stp: [1.50, 1.51, 1.52], antt: [1.30, 1.31, 1.32]);
        AcrossRounds bad = Scheme("bad", stp: [1.00, 1.01, 1.02], antt: [2.00, 2.01, 2.02]);
        IReadOnlyList<RankingStatement> ranking = SchemeRanking.Separated([bad, good]);
        Assert.Equal([("STP", "good", "bad"), ("ANTT", "good", "bad")], ranking.Select(r => (r.Metric, r.Better, r.Worse)));
        Assert.StartsWith("good beats bad on STP: 1.51 ±", ranking[0].Text, StringComparison.Ordinal);
    }

    [Fact]
    public void A_scheme_with_one_round_is_never_ranked()
    {
        AcrossRounds one = Scheme("one", stp: [9.0], antt: [1.0]);
        AcrossRounds other = Scheme("other", stp: [1.0, 1.01, 1.02], antt: [3.0, 3.01, 3.02]);
        Assert.Empty(SchemeRanking.Separated([one, other]));
    }

    [Fact]
    public void Summarize_skips_schemes_without_rounds()
    {
        WorkloadMetrics m = MultiprogramMetrics.Compute([new ProgramMeasurements("p", [1.0, 1.0], [2.0, 2.2])]);
        IReadOnlyList<AcrossRounds> summaries = SchemeRanking.Summarize([("x", [m, m]), ("y", [])]);
        Assert.Equal(["x"], summaries.Select(s => s.Scheme));
        Assert.Equal(2, summaries[0].Rounds);
    }

    private static AcrossRounds Scheme(string name, double[] stp, double[] antt) =>
        new(name, stp.Length, new RepeatedWorkloadSummary(SampleSummary.Of(antt), SampleSummary.Of(stp), SampleSummary.Of(antt)));
}
