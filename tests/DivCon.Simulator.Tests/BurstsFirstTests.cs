using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Simulator.Tests;

/// <summary>
/// Bursts first (the default policy's <see cref="LearnedScalabilityPolicy.PrioritisesBursts"/>) in the simulator: a
/// program with a long sequential step and a short wide one beside a program that is always wide, on 4 cores with
/// every cost zero. The roles themselves are tested on plain data in the Schedulers tests (<c>BurstPriorityTests</c>).
/// </summary>
public sealed class BurstsFirstTests
{
    private const long Ms = 1_000_000;

    // B: an 8 ms sequential split, then 16 leaves of 1 ms: 12 ms alone on 4 cores, a third of it wide.
    private static readonly SimulatedProgram B = new("B", TaskGraph.FromChildCounts(
        [16, .. Enumerable.Repeat(0, 16)], [8 * Ms, .. Enumerable.Repeat(1 * Ms, 16)], [.. Enumerable.Repeat(0L, 17)]));

    // S: a 0.1 ms split into 64 leaves of 0.5 ms: wide all the time.
    private static readonly SimulatedProgram S = new("S", TaskGraph.FromChildCounts(
        [64, .. Enumerable.Repeat(0, 64)], [Ms / 10, .. Enumerable.Repeat(Ms / 2, 64)], [.. Enumerable.Repeat(0L, 65)]));

    private static SimulatedCyclicTest Run(bool burstsFirst) =>
        new WorkloadSimulator(HandComputedScheduleTests.Free(4) with
        {
            DynamicPolicy = new LearnedScalabilityPolicy { PrioritisesBursts = burstsFirst },
        }).RunCyclic([B, S], SimulatedScheme.Dynamic, TimeSpan.FromSeconds(5));

    private static double MeanRunMs(SimulatedCyclicTest test, string program) =>
        test.Runs.Where(r => r.Program == program && r.Start >= TimeSpan.FromSeconds(1)).Average(r => (r.End - r.Start).TotalMilliseconds);

    [Fact]
    public void The_bursty_programs_wide_step_takes_the_saturated_programs_workers()
    {
        var with = Run(burstsFirst: true);
        var without = Run(burstsFirst: false);

        // Without: B's wide step runs on its two homes (16 ms a run: 8 + 16 / 2); with: on all four (12 ms).
        Assert.InRange(MeanRunMs(without, "B"), 15.5, 16.5);
        Assert.InRange(MeanRunMs(with, "B"), 11.5, 12.5);

        // S has three cores while B is narrow either way; B's wide step takes S's last two for 4 ms instead of holding
        // two for 8 ms. So S averages 2 cores instead of 2.5 (0.8 of the runs) and B runs a third more often: B at
        // its alone speed and S at half (STP 1.5) against 0.75 and 0.625 (STP 1.375).
        double sWith = with.Runs.Count(r => r.Program == "S"), sWithout = without.Runs.Count(r => r.Program == "S");
        Assert.InRange(sWith / sWithout, 0.77, 0.85);
        double bWith = with.Runs.Count(r => r.Program == "B"), bWithout = without.Runs.Count(r => r.Program == "B");
        Assert.InRange(bWith / bWithout, 1.28, 1.38);
    }

    [Fact]
    public void Bursts_first_is_deterministic()
    {
        Assert.Equal(Run(burstsFirst: true).Runs, Run(burstsFirst: true).Runs);
    }
}
