using DivCon.Harness.Measurement;

namespace DivCon.Harness.Tests.Measurement;

public class MultiprogramMetricsTests
{
    // Hand-computed workload:
    //   A: C_SP = mean(2,2,2) = 2; C_MP = mean(3,5,4) = 4; NTT = 2; per-run NTTs 1.5, 2.5, 2.0 (s = 0.5); NP = 0.5.
    //   B: C_SP = mean(4,4) = 4;   C_MP = mean(6,6,6,6) = 6; NTT = 1.5 (s = 0); NP = 2/3.
    //   ANTT = 1.75, STP = 7/6, MNTT = 2 (A).
    private static readonly ProgramMeasurements A = new("A", [2.0, 2.0, 2.0], [3.0, 5.0, 4.0]);
    private static readonly ProgramMeasurements B = new("B", [4.0, 4.0], [6.0, 6.0, 6.0, 6.0]);
    private const double T99Df2 = 9.925;

    [Fact]
    public void Per_program_metrics_match_hand_computation()
    {
        ProgramMetrics a = MultiprogramMetrics.ForProgram(A);

        Assert.Equal(2.0, a.SingleProgramSeconds, 12);
        Assert.Equal(4.0, a.MultiprogramSeconds, 12);
        Assert.Equal(2.0, a.NormalizedTurnaroundTime, 12);
        Assert.Equal(0.5, a.NormalizedProgress, 12);
        Assert.Equal(0.5, a.Ntt.StandardDeviation, 12);
        Assert.Equal(T99Df2 * 0.5 / Math.Sqrt(3), a.Ntt.ConfidenceHalfWidth, 2);
        Assert.Equal(a.Ntt.ConfidenceHalfWidth / 4, a.NormalizedProgressHalfWidth, 12);
    }

    [Fact]
    public void System_metrics_match_hand_computation()
    {
        WorkloadMetrics w = MultiprogramMetrics.Compute([A, B]);

        Assert.Equal(2, w.Programs.Count);
        Assert.Equal(1.5, w.Programs[1].NormalizedTurnaroundTime, 12);
        Assert.Equal(1.75, w.Antt, 12);
        Assert.Equal(0.5 + (2.0 / 3.0), w.Stp, 12);
        Assert.Equal(2.0, w.Mntt, 12);
        Assert.Equal("A", w.MnttProgram);
        Assert.Equal(0.99, w.ConfidenceLevel);
    }

    [Fact]
    public void System_half_widths_follow_welch_satterthwaite()
    {
        // Only A varies: var(mean NTT_A) = 0.25 / 3 with df 2, so the effective df is 2.
        // ANTT: sqrt((0.25/3) / 2²) * t(0.99, 2); STP: sqrt((0.25/3) / 2⁴) * t(0.99, 2).
        WorkloadMetrics w = MultiprogramMetrics.Compute([A, B]);

        Assert.Equal(T99Df2 * Math.Sqrt(0.25 / 3 / 4), w.AnttHalfWidth, 2);
        Assert.Equal(T99Df2 * Math.Sqrt(0.25 / 3 / 16), w.StpHalfWidth, 2);
    }

    [Fact]
    public void Equal_times_give_ntt_one_and_stp_n()
    {
        WorkloadMetrics w = MultiprogramMetrics.Compute([
            new ProgramMeasurements("x", [1.0, 1.0], [1.0, 1.0]),
            new ProgramMeasurements("y", [2.0, 2.0], [2.0, 2.0]),
            new ProgramMeasurements("z", [3.0, 3.0], [3.0, 3.0]),
        ]);

        Assert.Equal(1.0, w.Antt, 12);
        Assert.Equal(3.0, w.Stp, 12);
        Assert.Equal(0.0, w.AnttHalfWidth);
    }

    [Fact]
    public void A_single_workload_run_leaves_system_intervals_undefined()
    {
        WorkloadMetrics w = MultiprogramMetrics.Compute([A, new ProgramMeasurements("C", [1.0], [3.0])]);

        Assert.Equal(3.0, w.Programs[1].NormalizedTurnaroundTime, 12);
        Assert.True(double.IsNaN(w.AnttHalfWidth));
        Assert.True(double.IsNaN(w.StpHalfWidth));
        Assert.Equal("C", w.MnttProgram);
    }

    [Fact]
    public void Repetitions_are_summarised_with_student_t()
    {
        WorkloadMetrics w1 = MultiprogramMetrics.Compute([A, B]);
        WorkloadMetrics w2 = MultiprogramMetrics.Compute([new ProgramMeasurements("A", [2.0], [2.0]), B]);

        RepeatedWorkloadSummary summary = MultiprogramMetrics.SummarizeRepetitions([w1, w2]);

        Assert.Equal(2, summary.Antt.Count);
        Assert.Equal((1.75 + 1.25) / 2, summary.Antt.Mean, 12);
        Assert.Equal(((0.5 + (2.0 / 3)) + (1 + (2.0 / 3))) / 2, summary.Stp.Mean, 12);
        Assert.Equal((2.0 + 1.5) / 2, summary.Mntt.Mean, 12);
        Assert.Throws<ArgumentException>(() => MultiprogramMetrics.SummarizeRepetitions([]));
    }

    [Fact]
    public void Bad_inputs_are_rejected()
    {
        Assert.Throws<ArgumentException>(() => MultiprogramMetrics.Compute([]));
        Assert.Throws<ArgumentException>(() => MultiprogramMetrics.Compute([A, A]));
        var empty = Assert.Throws<ArgumentException>(() => MultiprogramMetrics.Compute([new ProgramMeasurements("E", [1.0], [])]));
        Assert.Contains("'E' has no multiprogram timings", empty.Message, StringComparison.Ordinal);
        var zero = Assert.Throws<ArgumentException>(() => MultiprogramMetrics.Compute([new ProgramMeasurements("Z", [0.0], [1.0])]));
        Assert.Contains("0 s", zero.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => MultiprogramMetrics.Compute([new ProgramMeasurements("N", [1.0], [-2.0])]));
        Assert.Throws<ArgumentOutOfRangeException>(() => MultiprogramMetrics.Compute([A], 0));
    }
}
