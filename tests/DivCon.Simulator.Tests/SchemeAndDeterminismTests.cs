using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Skeletons.Tracing;

namespace DivCon.Simulator.Tests;

/// <summary>Every scheme runs a mixed workload to the end; a seed fixes the result.</summary>
public sealed class SchemeAndDeterminismTests
{
    private const long Us = 1_000;

    private static SimulatedProgram[] Workload() =>
    [
        // A wide cheap tree, a deep unbalanced one and a sequential-heavy one (big split and merge).
        new("wide", TaskGraph.FromTree(TaskTree.FromShape(branching: 8, depth: 2, execute: 300 * Us, split: 5 * Us, merge: 5 * Us))),
        new("deep", TaskGraph.FromTree(TaskTree.FromChildCounts([2, 2, 0, 2, 0, 0, 0], i => (i + 1) * 400 * Us, i => 50 * Us))),
        new("serial", TaskGraph.FromTree(TaskTree.FromShape(branching: 2, depth: 3, execute: 200 * Us, split: 800 * Us, merge: 600 * Us))),
    ];

    public static TheoryData<SimulatedScheme, bool> Schemes()
    {
        var data = new TheoryData<SimulatedScheme, bool>();
        // Standby handover is the default: every scheme with it; the partitioning ones also without it.
        foreach (var scheme in SimulatedSchemes.All)
        {
            data.Add(scheme, true);
            if (scheme.Partitions())
            {
                data.Add(scheme, false);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Schemes))]
    public void Every_scheme_completes_runs_of_every_program(SimulatedScheme scheme, bool standby)
    {
        var options = new SimulationOptions { Cores = 8, Seed = 3, StandbyHandover = standby, RebalanceInterval = TimeSpan.FromMilliseconds(5) };
        var test = new WorkloadSimulator(options).RunCyclic(Workload(), scheme, TimeSpan.FromMilliseconds(300));

        Assert.Equal(scheme, test.Scheme);
        foreach (var program in Workload())
        {
            var runs = test.Runs.Where(r => r.Program == program.Name).ToList();
            Assert.Contains(runs, r => r.Counted);
            // Cyclic: each run starts when the previous one ended (under shared, where programs share one set, at most
            // the restart race's gap later); only the last may end after the limit.
            var gap = scheme == SimulatedScheme.Shared ? TimeSpan.FromTicks(options.RestartGapNs / 100) : TimeSpan.Zero;
            for (int i = 1; i < runs.Count; i++)
            {
                Assert.InRange(runs[i].Start, runs[i - 1].End, runs[i - 1].End + gap);
            }

            Assert.All(runs.SkipLast(1), r => Assert.True(r.Counted));
        }

        Assert.True(test.Elapsed >= test.TimeLimit);
        Assert.Equal(scheme.Partitions(), test.Allocations.Count > 0);
        Assert.All(test.Allocations.Skip(2), a => Assert.Equal(8, a.Cores.Sum()));
        // Moves change a core's owner and arrive after their decision (or never, when superseded).
        Assert.Equal(scheme.Partitions(), test.Moves.Count > 0);
        Assert.All(test.Moves, m =>
        {
            Assert.NotEqual(m.From, m.To);
            Assert.True(m.Latency is null || m.Latency >= TimeSpan.Zero);
        });
        if (!standby)
        {
            Assert.Equal(0, test.Counters.Handovers);
        }
    }

    [Theory]
    [InlineData(SimulatedScheme.Dynamic)]
    [InlineData(SimulatedScheme.Shared)]
    [InlineData(SimulatedScheme.OversubscribedFree)]
    [InlineData(SimulatedScheme.Default)]
    public void Same_seed_gives_the_same_runs(SimulatedScheme scheme)
    {
        var options = new SimulationOptions { Cores = 16, Seed = 42 };
        var first = new WorkloadSimulator(options).RunCyclic(Workload(), scheme, TimeSpan.FromMilliseconds(200));
        var second = new WorkloadSimulator(options).RunCyclic(Workload(), scheme, TimeSpan.FromMilliseconds(200));

        Assert.True(options.StandbyHandover);
        Assert.Equal(first.Runs, second.Runs);
        Assert.Equal(first.Counters, second.Counters);
        Assert.Equal(first.Moves, second.Moves);
        Assert.Equal(first.Allocations.Select(a => (a.Time, string.Join(",", a.Cores))), second.Allocations.Select(a => (a.Time, string.Join(",", a.Cores))));
    }

    [Fact]
    public void A_lending_order_is_followed_deterministically_and_changes_who_is_served()
    {
        // The dynamic scheme with the policy's lending order: the same runs for the same seed, every program served,
        // and a schedule other than round-robin lending's (the simulator follows the order, as the mechanism does).
        var ordered = new SimulationOptions { Cores = 16, Seed = 42, DynamicPolicy = new LearnedScalabilityPolicy { OrdersLending = true } };
        var first = new WorkloadSimulator(ordered).RunCyclic(Workload(), SimulatedScheme.Dynamic, TimeSpan.FromMilliseconds(400));
        var second = new WorkloadSimulator(ordered).RunCyclic(Workload(), SimulatedScheme.Dynamic, TimeSpan.FromMilliseconds(400));
        Assert.Equal(first.Runs, second.Runs);
        Assert.Equal(first.Counters, second.Counters);
        Assert.True(first.Counters.Lends > 0);
        foreach (var program in Workload())
        {
            Assert.Contains(first.Runs, r => r.Program == program.Name && r.Counted);
        }

        var roundRobin = new WorkloadSimulator(ordered with { DynamicPolicy = null }).RunCyclic(Workload(), SimulatedScheme.Dynamic, TimeSpan.FromMilliseconds(400));
        Assert.NotEqual(roundRobin.Counters, first.Counters);
    }

    [Fact]
    public void The_dynamic_scheme_decides_again_10_ms_after_the_start_as_the_mechanism_does()
    {
        // The learned policy's early decision: the simulator asks the mechanism's rule (EarlyDecision) at each 10 ms
        // sample, so with every program started at 0 an extra decision falls at 10 ms, before the first interval one;
        // without it (the default) nothing is decided between the registrations and 100 ms.
        var options = new SimulationOptions { Cores = 16, Seed = 42 };
        var early = new WorkloadSimulator(options with { DynamicPolicy = new LearnedScalabilityPolicy { DecidesEarly = true } })
            .RunCyclic(Workload(), SimulatedScheme.Dynamic, TimeSpan.FromMilliseconds(300));
        var late = new WorkloadSimulator(options).RunCyclic(Workload(), SimulatedScheme.Dynamic, TimeSpan.FromMilliseconds(300));
        static bool Early(SimulatedAllocation a) => a.Time > TimeSpan.Zero && a.Time < TimeSpan.FromMilliseconds(100);
        Assert.Contains(early.Allocations, a => a.Time == TimeSpan.FromMilliseconds(10));
        Assert.DoesNotContain(late.Allocations, Early);
        Assert.Equal(late.Counters.Decisions + 1, early.Counters.Decisions);
    }

    [Fact]
    public void Dynamic_starts_from_the_offline_tables_only_when_given_them_as_priors()
    {
        // A wide program beside one dominated by sequential splits and merges, both started at time 0: before any
        // work is seen, the learning scheme guesses them alike (a linear speedup, an even split) unless it has the
        // tables the other partitioning schemes decide by, which put the sequential-heavy one far below the wide one.
        // (Which split the policy makes from them is its own business, tested on plain data: with full lending credit
        // it may keep homes a program leaves idle, as they are lent anyway.)
        SimulatedProgram[] two = [Workload()[0], Workload()[2]];
        var learning = new WorkloadSimulator(new SimulationOptions { Cores = 8, Seed = 2 }).RunCyclic(two, SimulatedScheme.Dynamic, TimeSpan.FromMilliseconds(50));
        var primed = new WorkloadSimulator(new SimulationOptions { Cores = 8, Seed = 2, DynamicPriors = true }).RunCyclic(two, SimulatedScheme.Dynamic, TimeSpan.FromMilliseconds(50));

        SimulatedEstimate First(SimulatedCyclicTest test, int program) => test.Estimates.First(e => e.Program == program && e.Time == TimeSpan.Zero);
        int[] Registered(SimulatedCyclicTest test) => [.. test.Allocations.Last(a => a.Time == TimeSpan.Zero).Cores]; // once both registered
        Assert.Equal(8, First(learning, 0).SpeedupAtAll, 6);
        Assert.Equal(8, First(learning, 1).SpeedupAtAll, 6);
        Assert.Equal([4, 4], Registered(learning));

        double serial = new WorkloadSimulator(new SimulationOptions { Cores = 8, Seed = 2 }).SpeedupTable(two[1]).SpeedupAt(8);
        Assert.InRange(serial, 1, 4);
        Assert.Equal(serial, First(primed, 1).SpeedupAtAll, 6);
        Assert.Equal(new WorkloadSimulator(new SimulationOptions { Cores = 8, Seed = 2 }).SpeedupTable(two[0]).SpeedupAt(8), First(primed, 0).SpeedupAtAll, 6);
        Assert.Equal(8, Registered(primed).Sum());
    }

    [Fact]
    public void With_lifetime_hints_a_program_of_two_runs_gets_more_of_the_registration_split_and_only_dynamic_changes()
    {
        // Two programs alike but for their lifetimes, both started at time 0: without hints they are equally young and
        // split evenly; with hints the one that makes two runs states 2 runs x 2 x its run's time alone (a few ms)
        // and the cyclic one the whole test, 2 s, so the youth weight favours the short one from the first decision.
        var graph = Workload()[0].Graph;
        SimulatedProgram[] two = [new("cyclic", graph), new("twice", graph) { MaxRuns = 2 }];
        var limit = TimeSpan.FromSeconds(2);
        int[] Registered(SimulatedCyclicTest test) => [.. test.Allocations.Last(a => a.Time == TimeSpan.Zero).Cores];
        var plain = new WorkloadSimulator(new SimulationOptions { Cores = 8, Seed = 2 });
        var hinted = new WorkloadSimulator(new SimulationOptions { Cores = 8, Seed = 2, LifetimeHints = true });

        Assert.Equal([4, 4], Registered(plain.RunCyclic(two, SimulatedScheme.Dynamic, limit)));
        int[] split = Registered(hinted.RunCyclic(two, SimulatedScheme.Dynamic, limit));
        Assert.Equal(8, split.Sum());
        Assert.True(split[1] > 4, $"the two-run program got {split[1]} of 8 cores");

        // The other schemes do not read the hint.
        var staticPlain = plain.RunCyclic(two, SimulatedScheme.Static, limit);
        var staticHinted = hinted.RunCyclic(two, SimulatedScheme.Static, limit);
        Assert.Equal(staticPlain.Runs.Select(r => r.End), staticHinted.Runs.Select(r => r.End));

        // A stated lifetime off by up to 1000 times either way: the same error on every rerun (fixed per program and
        // seed), and a different decision from the exact one for some seed.
        var options = new SimulationOptions { Cores = 8, LifetimeHints = true, LifetimeHintError = 1000 };
        int[] Split(SimulationOptions o) => Registered(new WorkloadSimulator(o).RunCyclic(two, SimulatedScheme.Dynamic, limit));
        Assert.Equal(Split(options with { Seed = 2 }), Split(options with { Seed = 2 }));
        Assert.Contains(Enumerable.Range(1, 8), seed => !Split(options with { Seed = seed }).SequenceEqual(Split(options with { Seed = seed, LifetimeHintError = 1 })));
    }

    [Fact]
    public void A_program_with_a_fixed_number_of_runs_states_twice_its_runs_alone_time_not_its_work_spread_over_the_cores()
    {
        // A chain (one task after another) scales not at all: its run alone takes its whole work, not work / cores.
        // Its user, who knows how long a run takes, states runs x 2 x that; the cyclic program states the test's length.
        var chain = TaskGraph.FromTree(TaskTree.FromChildCounts([1, 1, 1, 0], _ => 1_000_000, _ => 0));
        SimulatedProgram[] two = [new("cyclic", Workload()[0].Graph), new("chain", chain) { MaxRuns = 3 }];
        var simulator = new WorkloadSimulator(new SimulationOptions { Cores = 8, Seed = 2, LifetimeHints = true });
        var test = simulator.RunCyclic(two, SimulatedScheme.Dynamic, TimeSpan.FromSeconds(2));

        double alone = simulator.AloneTime(two[1]);
        Assert.InRange(alone, chain.TotalWork / 1e9, 2 * chain.TotalWork / 1e9); // about its work: no speedup
        Assert.Equal(2, test.StatedLifetimes.Count);
        Assert.Equal(2, test.StatedLifetimes[0].TotalSeconds, 3);
        Assert.Equal(3 * 2 * alone, test.StatedLifetimes[1].TotalSeconds, 6);
        Assert.Empty(simulator.RunCyclic(two, SimulatedScheme.Static, TimeSpan.FromSeconds(2)).StatedLifetimes);
    }

    [Fact]
    public void More_programs_than_cores_all_get_turns_under_partitioning()
    {
        // Three busy programs on two cores: the starvation guard time-shares, so every program completes runs.
        var options = new SimulationOptions { Cores = 2, Seed = 1 };
        var test = new WorkloadSimulator(options).RunCyclic(Workload(), SimulatedScheme.Static, TimeSpan.FromSeconds(1));
        foreach (var program in Workload())
        {
            Assert.Contains(test.Runs, r => r.Program == program.Name && r.Counted);
        }
    }

    [Fact]
    public void Bad_input_names_the_parameter()
    {
        Assert.Equal("Cores", Assert.Throws<ArgumentOutOfRangeException>(() => new WorkloadSimulator(new SimulationOptions { Cores = 0 })).ParamName);
        Assert.Equal("LifetimeHintError", Assert.Throws<ArgumentOutOfRangeException>(() => new WorkloadSimulator(new SimulationOptions { Cores = 2, LifetimeHintError = 0.5 })).ParamName);
        Assert.Equal("LifetimeHintError", Assert.Throws<ArgumentOutOfRangeException>(() => new WorkloadSimulator(new SimulationOptions { Cores = 2, LifetimeHintError = double.PositiveInfinity })).ParamName);
        var simulator = new WorkloadSimulator(new SimulationOptions { Cores = 2 });
        Assert.Equal("programs", Assert.Throws<ArgumentException>(() => simulator.RunCyclic([], SimulatedScheme.Shared, TimeSpan.FromSeconds(1))).ParamName);
        Assert.Equal("timeLimit", Assert.Throws<ArgumentOutOfRangeException>(() => simulator.RunCyclic(Workload(), SimulatedScheme.Shared, TimeSpan.Zero)).ParamName);
        Assert.Throws<ArgumentException>(() => SimulatedSchemes.Parse("round-robin"));
        Assert.Equal(SimulatedScheme.HillClimbing, SimulatedSchemes.Parse("Hill-Climbing"));
    }
}
