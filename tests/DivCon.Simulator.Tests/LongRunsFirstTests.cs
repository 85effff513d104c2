using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Simulator.Tests;

/// <summary>
/// Long runs first (the default policy's rule, <c>simulate-mixes --long-runs-first</c>) in the simulator: one long run of
/// a wide program beside a wide program of short runs, on 4 cores with every cost zero. The rule itself is tested on
/// plain data in the Schedulers tests (<c>LongRunsFirstTests</c>).
/// </summary>
public sealed class LongRunsFirstTests
{
    private const long Ms = 1_000_000;

    // L: one run, a split into 64 leaves of 5 ms: 320 core-ms, 80 ms alone on 4 cores.
    private static readonly SimulatedProgram L = new("L", TaskGraph.FromChildCounts(
        [64, .. Enumerable.Repeat(0, 64)], [0, .. Enumerable.Repeat(5 * Ms, 64)], [.. Enumerable.Repeat(0L, 65)]))
    {
        MaxRuns = 1,
    };

    // S: runs of 64 leaves of 0.5 ms: 8 ms alone on 4 cores, wide all the time.
    private static readonly SimulatedProgram S = new("S", TaskGraph.FromChildCounts(
        [64, .. Enumerable.Repeat(0, 64)], [0, .. Enumerable.Repeat(Ms / 2, 64)], [.. Enumerable.Repeat(0L, 65)]));

    private static SimulatedCyclicTest Run(double factor) =>
        new WorkloadSimulator(HandComputedScheduleTests.Free(4) with { DynamicPolicy = new LearnedScalabilityPolicy { LongRunsFirst = factor } }).RunCyclic([L, S], SimulatedScheme.Dynamic, TimeSpan.FromSeconds(1));

    private static double LongRunMs(SimulatedCyclicTest test) =>
        test.Runs.Single(r => r.Program == "L").End.TotalMilliseconds;

    [Fact]
    public void The_long_run_takes_the_short_run_programs_workers_from_the_first_decision()
    {
        // Both programs are wide and keep two cores each until the first interval decision (100 ms), when L has done
        // 200 of its 320 core-ms. Without the rule that decision moves one core to L: the last 120 core-ms on three
        // cores, L ends at 140 ms. With it, S's runs (16 ms on two cores) are far shorter than L's 100 ms one, so S's workers serve L
        // first: the last 120 core-ms on four cores, L ends near 125-130 ms.
        double without = LongRunMs(Run(0)), with = LongRunMs(Run(4));
        Assert.InRange(without, 137, 143);
        Assert.InRange(with, 120, 132);
    }

    [Fact]
    public void Long_runs_first_is_deterministic()
    {
        Assert.Equal(Run(4).Runs, Run(4).Runs);
    }

    [Fact]
    public void The_default_policy_runs_long_runs_first_at_factor_four()
    {
        var byDefault = new WorkloadSimulator(HandComputedScheduleTests.Free(4)).RunCyclic([L, S], SimulatedScheme.Dynamic, TimeSpan.FromSeconds(1));
        Assert.Equal(Run(4).Runs, byDefault.Runs);
        Assert.NotEqual(Run(0).Runs, byDefault.Runs);
    }
}
