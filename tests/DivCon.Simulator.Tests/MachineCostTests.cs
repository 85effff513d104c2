using DivCon.Simulator.Machine;
using DivCon.Skeletons.Tracing;

namespace DivCon.Simulator.Tests;

/// <summary>
/// The machine's cost terms (memory bandwidth, oversubscription and handover, modules) against schedules worked out by
/// hand on tiny graphs, their pure rules on plain numbers, and a machine with every cost zero against no machine.
/// </summary>
public sealed class MachineCostTests
{
    private const long Us = 1_000;
    private const long Ms = 1_000_000;

    // Every cost off, the context switch included (a machine's context switch replaces the option's).
    private static readonly MachineModel s_zero = MachineModel.Neutral with { ContextSwitchNs = 0 };

    // Two 10 ms leaves under a root whose split takes nothing: on two cores, both leaves start at t = 0.
    private static SimulatedProgram Pair(string name = "p") => new(name, TaskGraph.FromTree(TaskTree.FromShape(branching: 2, depth: 1, execute: 10 * Ms)));

    private static TimeSpan Alone(MachineModel machine, SimulatedProgram program, int cores) =>
        new WorkloadSimulator(HandComputedScheduleTests.Free(cores) with { Machine = machine }).RunIsolated(program).Single();

    [Fact]
    public void Bandwidth_stretches_the_memory_bound_part_by_demand_over_supply()
    {
        // One die of 10 GB/s; each task draws 6 GB/s and is half memory-bound. The first leaf starts alone (6 <= 10:
        // 10 ms); the second starts with 12 GB/s demanded: 10 x (1 + 0.5 x (12 / 10 - 1)) = 11 ms, which ends the run.
        var machine = s_zero with
        {
            ModulesPerDie = 2,
            DieBandwidthGBps = 10,
            Programs = new Dictionary<string, ProgramDemand> { ["p"] = new(6, 0.5, 0) },
        };

        Assert.Equal(TimeSpan.FromMilliseconds(11), Alone(machine, Pair(), 2));
        Assert.Equal(TimeSpan.FromMilliseconds(20), Alone(machine, Pair(), 1)); // one at a time: never above the supply
    }

    [Fact]
    public void Dispersed_placement_puts_the_two_cores_on_two_dies_and_avoids_the_stretch()
    {
        var machine = s_zero with
        {
            DiesPerPackage = 2,
            ModulesPerDie = 2,
            DieBandwidthGBps = 10,
            Programs = new Dictionary<string, ProgramDemand> { ["p"] = new(6, 1, 0) },
        };

        // Contiguous: both on die 0, 12 / 10: the second leaf takes 12 ms. Dispersed: one per die, 10 ms each.
        Assert.Equal(TimeSpan.FromMilliseconds(12), Alone(machine, Pair(), 2));
        Assert.Equal(TimeSpan.FromMilliseconds(10), Alone(machine with { Placement = CorePlacement.Dispersed }, Pair(), 2));
    }

    [Fact]
    public void Package_supply_binds_when_it_is_below_the_dies()
    {
        // Two dies of 10 GB/s in a package of 8 GB/s, dispersed: the second leaf sees 12 / 8 on its package: 15 ms.
        var machine = s_zero with
        {
            DiesPerPackage = 2,
            ModulesPerDie = 2,
            DieBandwidthGBps = 10,
            PackageBandwidthGBps = 8,
            Placement = CorePlacement.Dispersed,
            Programs = new Dictionary<string, ProgramDemand> { ["p"] = new(6, 1, 0) },
        };

        Assert.Equal(TimeSpan.FromMilliseconds(15), Alone(machine, Pair(), 2));
    }

    [Fact]
    public void Bandwidth_per_run_is_spread_over_the_graph_s_total_work()
    {
        // 1.2e8 bytes over 20 ms of total work: 6 GB/s per running task, fully memory-bound: the second leaf takes 12 ms.
        var machine = s_zero with
        {
            ModulesPerDie = 2,
            DieBandwidthGBps = 10,
            BytesPerRun = new Dictionary<string, double>(StringComparer.OrdinalIgnoreCase) { ["p"] = 1.2e8 },
        };

        Assert.Equal(6.0, machine.DemandOf("p", 20 * Ms).BandwidthGBps, 12);
        Assert.Equal(6.0, machine.DemandOf("P#2", 20 * Ms).BandwidthGBps, 12); // a symmetric copy is the same program
        Assert.Equal(TimeSpan.FromMilliseconds(12), Alone(machine, Pair(), 2));
    }

    [Fact]
    public void A_task_whose_module_sibling_is_busy_stretches_its_fpu_and_other_parts()
    {
        // One module of two cores; FPU stretch 0.2, other 0.1; the program is half floating point: the second leaf
        // starts beside a busy sibling: 10 x (1 + 0.5 x 0.2 + 0.5 x 0.1) = 11.5 ms.
        var machine = s_zero with
        {
            ModulesPerDie = 1,
            CoresPerModule = 2,
            FpuStretch = 0.2,
            SharedStretch = 0.1,
            Programs = new Dictionary<string, ProgramDemand> { ["p"] = new(0, 0, 0.5) },
        };

        Assert.Equal(TimeSpan.FromMilliseconds(11.5), Alone(machine, Pair(), 2));
        // Two modules, dispersed: each core has a module of its own.
        Assert.Equal(TimeSpan.FromMilliseconds(10), Alone(machine with { ModulesPerDie = 2, Placement = CorePlacement.Dispersed }, Pair(), 2));
    }

    [Theory]
    [InlineData(0, 0, 0.5, 30)]       // rate 1/2 / (1 + 0.5 x 1) = 1/3: each 10 ms leaf ends at 30 ms
    [InlineData(0, 1_000_000, 0, 25)] // efficiency 4 / (4 + 1) = 0.8: rate 0.4, 25 ms
    [InlineData(1_000_000, 1_000_000, 0, 30)] // 4 / (4 + 2): rate 1/3
    public void Oversubscribed_threads_pay_switches_refills_and_the_preemption_penalty(long switchNs, long refillNs, double penalty, double expectedMs)
    {
        // Two programs, each one 10 ms leaf, pinned oversubscription on one core: both runnable from t = 0.
        var machine = s_zero with { ContextSwitchNs = switchNs, CacheRefillNs = refillNs, PreemptionPenalty = penalty };
        var options = HandComputedScheduleTests.Free(1) with { Machine = machine };
        var leaf = TaskGraph.FromChildCounts([0], [10 * Ms], [0]);
        var test = new WorkloadSimulator(options).RunCyclic([new("a", leaf), new("b", leaf)], SimulatedScheme.OversubscribedPinned, TimeSpan.FromTicks(1));

        Assert.Equal(TimeSpan.FromMilliseconds(expectedMs), HandComputedScheduleTests.End(test, "a"));
        Assert.Equal(TimeSpan.FromMilliseconds(expectedMs), HandComputedScheduleTests.End(test, "b"));
    }

    [Fact]
    public void A_standby_handover_s_first_task_pays_the_refill()
    {
        // StandbyHandoverTests' first schedule with a 1 ms handover refill: b's task is 10 ms + 5 us wake + 1 ms from
        // 2 ms; both at half speed until a ends at 18.01 ms (unchanged); b then has 3 ms left alone: 21.01 ms.
        var options = HandComputedScheduleTests.Free(1) with { WakeOverheadNs = 5 * Us, Machine = s_zero with { HandoverRefillNs = 1 * Ms } };
        var leaf = TaskGraph.FromChildCounts([0], [10 * Ms], [0]);
        var test = new WorkloadSimulator(options).RunScripted(
            [new("a", leaf), new("b", leaf)], SimulatedScheme.Dynamic, [(TimeSpan.Zero, 0, 0), (TimeSpan.FromMilliseconds(2), 0, 1)], TimeSpan.FromMilliseconds(1));

        Assert.Equal(TimeSpan.FromTicks(18_010 * Us / 100), HandComputedScheduleTests.End(test, "a"));
        Assert.Equal(TimeSpan.FromTicks(21_010 * Us / 100), HandComputedScheduleTests.End(test, "b"));
    }

    [Fact]
    public void Rules_on_plain_numbers()
    {
        var machine = s_zero with { DieBandwidthGBps = 10, PackageBandwidthGBps = 15, FpuStretch = 0.3, SharedStretch = 0.1, PreemptionPenalty = 0.44 };

        Assert.Equal(1.0, machine.BandwidthStretch(1, 9, 9));
        Assert.Equal(1.25, machine.BandwidthStretch(0.5, 15, 15), 12);   // die 1.5
        Assert.Equal(1.5, machine.BandwidthStretch(0.5, 10, 30), 12);    // package 2
        Assert.Equal(1.0, machine.ModuleStretch(1, siblingBusy: false));
        Assert.Equal(1.3, machine.ModuleStretch(1, siblingBusy: true), 12);
        Assert.Equal(1.1, machine.ModuleStretch(0, siblingBusy: true), 12);
        Assert.Equal(1.0, machine.SharingRate(64, 64, 4 * Ms));
        // The thesis's 40% at 2.5 x oversubscription: 1 / (1 + 0.44 x 1.5) of the fair share.
        Assert.Equal(0.4 / 1.66, machine.SharingRate(64, 160, 4 * Ms), 12);
        // Without a machine's penalty the rule is the simulator's: c / r x quantum / (quantum + switch).
        Assert.Equal(2.0 / 3 * (4e6 / 4.005e6), MachineModel.Neutral.SharingRate(2, 3, 4e6), 15);
    }

    [Fact]
    public void Dispersed_placement_spreads_over_dies_then_modules()
    {
        // The thesis machine's shape: 8 dies of 4 modules of 2 cores.
        var thesis = s_zero with { Packages = 4, DiesPerPackage = 2, ModulesPerDie = 4, CoresPerModule = 2, Placement = CorePlacement.Dispersed };
        int[] cores = [.. Enumerable.Range(0, 16).Select(thesis.PhysicalCore)];

        Assert.Equal(16, cores.Distinct().Count());
        Assert.All(cores.GroupBy(c => c / 8), die => Assert.Equal(2, die.Count()));          // 2 per die
        Assert.Equal(16, cores.Select(c => c / 2).Distinct().Count());                       // a module each
        Assert.Equal(64, Enumerable.Range(0, 64).Select(thesis.PhysicalCore).Distinct().Count()); // a permutation
        Assert.Equal(Enumerable.Range(0, 16), Enumerable.Range(0, 16).Select((thesis with { Placement = CorePlacement.Contiguous }).PhysicalCore));
    }

    [Theory]
    [MemberData(nameof(SchemeAndDeterminismTests.Schemes), MemberType = typeof(SchemeAndDeterminismTests))]
    public void A_machine_with_every_cost_zero_gives_exactly_the_results_without_one(SimulatedScheme scheme, bool standby)
    {
        // Default overheads (5 us context switch: the neutral machine's), a mixed workload, 16 cores; the neutral
        // machine has bandwidth demands that never bind and module stretches of zero.
        SimulatedProgram[] workload =
        [
            new("wide", TaskGraph.FromTree(TaskTree.FromShape(branching: 8, depth: 2, execute: 300 * Us, split: 5 * Us, merge: 5 * Us))),
            new("deep", TaskGraph.FromTree(TaskTree.FromChildCounts([2, 2, 0, 2, 0, 0, 0], i => (i + 1) * 400 * Us, i => 50 * Us))),
            new("serial", TaskGraph.FromTree(TaskTree.FromShape(branching: 2, depth: 3, execute: 200 * Us, split: 800 * Us, merge: 600 * Us))),
        ];
        var plain = new SimulationOptions { Cores = 16, Seed = 3, StandbyHandover = standby };
        var neutral = MachineModel.Neutral with
        {
            Packages = 2,
            DiesPerPackage = 2,
            ModulesPerDie = 2,
            CoresPerModule = 2,
            DieBandwidthGBps = 1000,
            Programs = new Dictionary<string, ProgramDemand> { ["wide"] = new(10, 1, 1) },
        };

        var without = new WorkloadSimulator(plain).RunCyclic(workload, scheme, TimeSpan.FromMilliseconds(300));
        var with = new WorkloadSimulator(plain with { Machine = neutral }).RunCyclic(workload, scheme, TimeSpan.FromMilliseconds(300));

        Assert.NotEmpty(without.Runs);
        Assert.Equal(without.Runs, with.Runs);
        Assert.Equal(without.Counters, with.Counters);
        Assert.Equal(without.Moves, with.Moves);
    }

    [Fact]
    public void More_simulated_cores_than_the_machine_has_is_refused_naming_cores()
    {
        var e = Assert.Throws<ArgumentOutOfRangeException>(() => new WorkloadSimulator(new SimulationOptions { Cores = 64, Machine = s_zero with { ModulesPerDie = 16 } }));
        Assert.Equal("Cores", e.ParamName);
        Assert.Contains("16 cores", e.Message, StringComparison.Ordinal);
    }
}
