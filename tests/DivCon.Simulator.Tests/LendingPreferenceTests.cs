using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Simulator.Tests;

/// <summary>
/// The lending preference (<see cref="SimulationOptions.LendingPreference"/>) against schedules worked out by hand.
/// Four cores with scripted homes (cores 0 and 1 program L's, core 2 P's, core 3 Q's), every cost zero, no decision
/// after time 0, so only lending moves work between programs. The rule itself, on plain data, is tested beside it in
/// the Schedulers tests (<c>LendingChoiceTests</c>).
/// </summary>
/// <remarks>
/// L: a 0.5 ms split into two leaves, 6 ms and 100 ms: its second worker (B) runs the 6 ms leaf and is idle from
/// 6.5 ms until L's run ends at 100.5 ms. P: a 1 ms split into two 2 ms leaves, 5 ms a run on its one core, restarted
/// every 5 ms; from 6 to 8 ms its second leaf of the run started at 5 ms is queued. Q: a 1.5 ms split into ten 10 ms
/// leaves, one run started at 0. At 6.5 ms B chooses between P (queued work, run started at 5 ms) and Q (queued work,
/// run started at 0).
/// </remarks>
public sealed class LendingPreferenceTests
{
    private const long Ms = 1_000_000;
    private const long HalfMs = 500_000;

    private static readonly SimulatedProgram L = new("L", TaskGraph.FromChildCounts([2, 0, 0], [HalfMs, 6 * Ms, 100 * Ms], [0, 0, 0]));
    private static readonly SimulatedProgram P = new("P", TaskGraph.FromChildCounts([2, 0, 0], [1 * Ms, 2 * Ms, 2 * Ms], [0, 0, 0]));
    private static readonly SimulatedProgram Q = new("Q", TaskGraph.FromChildCounts(
        [10, .. Enumerable.Repeat(0, 10)], [3 * HalfMs, .. Enumerable.Repeat(10 * Ms, 10)], [.. Enumerable.Repeat(0L, 11)]));

    private static SimulatedCyclicTest Run(LendingPreference preference) =>
        new WorkloadSimulator(HandComputedScheduleTests.Free(4) with { LendingPreference = preference }).RunScripted(
            [L, P, Q], SimulatedScheme.Dynamic, [(TimeSpan.Zero, 0, 0), (TimeSpan.Zero, 1, 0), (TimeSpan.Zero, 2, 1), (TimeSpan.Zero, 3, 2)],
            TimeSpan.FromMilliseconds(200));

    private static SimulatedRun FirstRun(SimulatedCyclicTest test, string program) => test.Runs.First(r => r.Program == program && r.Start == TimeSpan.Zero);

    [Fact]
    public void Oldest_run_lends_the_idle_worker_to_the_run_started_longest_ago()
    {
        // B goes to Q at 6.5 ms and stays (Q always has queued leaves): Q's leaves alternate between its home (from
        // 1.5 ms: 1.5, 11.5, ..., 41.5-51.5) and B (6.5, 16.5, ..., 46.5-56.5), so Q's run ends with B's fifth leaf
        // at 56.5 ms; P never has an idle worker to lend or a lent one, so its runs take 5 ms each.
        var test = Run(LendingPreference.OldestRun);

        Assert.Equal(TimeSpan.FromMilliseconds(56.5), FirstRun(test, "Q").End);
        Assert.All(test.Runs.Where(r => r.Program == "P" && r.End <= TimeSpan.FromMilliseconds(50)), r => Assert.Equal(TimeSpan.FromMilliseconds(5), r.End - r.Start));
        Assert.Equal(TimeSpan.FromMilliseconds(100.5), FirstRun(test, "L").End);
    }

    [Fact]
    public void Round_robin_lends_the_idle_worker_to_the_first_program_in_turn()
    {
        // Without the rule B goes to P at 6.5 ms (the first program after L in turn) and takes its queued leaf, so
        // P's run started at 5 ms ends at 8.5 ms instead of 10, and Q gets its second worker later (P's home, lent
        // at 8 ms), ending after 56.5 ms.
        var test = Run(LendingPreference.RoundRobin);

        Assert.Contains(test.Runs, r => r.Program == "P" && r.Start == TimeSpan.FromMilliseconds(5) && r.End == TimeSpan.FromMilliseconds(8.5));
        Assert.True(FirstRun(test, "Q").End > TimeSpan.FromMilliseconds(56.5), $"Q ended at {FirstRun(test, "Q").End}");
    }

    [Fact]
    public void Runs_in_progress_keeps_the_turn_when_every_candidate_has_a_run_in_progress()
    {
        // At 6.5 ms both P's and Q's queued work belongs to runs in progress, so the rule leaves the round-robin turn.
        Assert.Equal(Run(LendingPreference.RoundRobin).Runs, Run(LendingPreference.RunsInProgress).Runs);
    }

    [Theory]
    [InlineData(LendingPreference.OldestRun)]
    [InlineData(LendingPreference.RunsInProgress)]
    public void A_preference_is_deterministic(LendingPreference preference)
    {
        Assert.Equal(Run(preference).Runs, Run(preference).Runs);
    }

    [Fact]
    public void An_undefined_preference_is_refused_naming_it()
    {
        var options = new SimulationOptions { LendingPreference = (LendingPreference)7 };
        var error = Assert.Throws<ArgumentOutOfRangeException>(options.Validate);
        Assert.Equal(nameof(SimulationOptions.LendingPreference), error.ParamName);
    }
}
