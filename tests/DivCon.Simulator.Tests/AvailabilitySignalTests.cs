using DivCon.Skeletons.Tracing;

namespace DivCon.Simulator.Tests;

/// <summary>
/// The what-if switches of the partitioning schemes: the dynamic policy's availability signal and the decision
/// interval.
/// </summary>
public sealed class AvailabilitySignalTests
{
    private const long Us = 1_000;

    private static SimulatedProgram[] Workload() =>
    [
        // A wide cheap tree, a deep unbalanced one and a sequential-heavy one (big split and merge).
        new("wide", TaskGraph.FromTree(TaskTree.FromShape(branching: 8, depth: 2, execute: 300 * Us, split: 5 * Us, merge: 5 * Us))),
        new("deep", TaskGraph.FromTree(TaskTree.FromChildCounts([2, 2, 0, 2, 0, 0, 0], i => (i + 1) * 400 * Us, i => 50 * Us))),
        new("serial", TaskGraph.FromTree(TaskTree.FromShape(branching: 2, depth: 3, execute: 200 * Us, split: 800 * Us, merge: 600 * Us))),
    ];

    private static SimulationOptions Options(AvailabilitySignal signal) =>
        new() { Cores = 8, Seed = 3, RebalanceInterval = TimeSpan.FromMilliseconds(2), Availability = signal };

    [Fact]
    public void The_default_signal_is_the_mechanisms_queued_count() =>
        Assert.Equal(AvailabilitySignal.Queued, new SimulationOptions().Availability);

    [Fact]
    public void An_undefined_signal_is_rejected_naming_the_option()
    {
        var error = Assert.Throws<ArgumentOutOfRangeException>(() => new WorkloadSimulator(new SimulationOptions { Availability = (AvailabilitySignal)7 }));
        Assert.Equal("Availability", error.ParamName);
    }

    [Theory]
    [InlineData(AvailabilitySignal.QueuedAndRunning)]
    [InlineData(AvailabilitySignal.Smoothed)]
    public void Another_signal_changes_dynamics_allocations_and_stays_deterministic(AvailabilitySignal signal)
    {
        var limit = TimeSpan.FromMilliseconds(300);
        var queued = new WorkloadSimulator(Options(AvailabilitySignal.Queued)).RunCyclic(Workload(), SimulatedScheme.TaskAvailability, limit);
        var other = new WorkloadSimulator(Options(signal)).RunCyclic(Workload(), SimulatedScheme.TaskAvailability, limit);
        var again = new WorkloadSimulator(Options(signal)).RunCyclic(Workload(), SimulatedScheme.TaskAvailability, limit);

        static string Allocations(SimulatedCyclicTest test) => string.Join(";", test.Allocations.Select(a => string.Join(",", a.Cores)));
        Assert.NotEqual(Allocations(queued), Allocations(other));
        Assert.Equal(Allocations(other), Allocations(again));
        Assert.All(other.Allocations.Skip(2), a => Assert.Equal(8, a.Cores.Sum()));
        foreach (var program in Workload())
        {
            Assert.Contains(other.Runs, r => r.Program == program.Name && r.Counted);
        }
    }

    [Theory]
    [InlineData(SimulatedScheme.Static)]
    [InlineData(SimulatedScheme.HillClimbing)]
    [InlineData(SimulatedScheme.Shared)]
    public void The_signal_changes_nothing_for_the_other_schemes(SimulatedScheme scheme)
    {
        var limit = TimeSpan.FromMilliseconds(200);
        var queued = new WorkloadSimulator(Options(AvailabilitySignal.Queued)).RunCyclic(Workload(), scheme, limit);
        var running = new WorkloadSimulator(Options(AvailabilitySignal.QueuedAndRunning)).RunCyclic(Workload(), scheme, limit);
        Assert.Equal(queued.Runs.Select(r => (r.Program, r.Start, r.End)), running.Runs.Select(r => (r.Program, r.Start, r.End)));
    }

    [Fact]
    public void Decisions_follow_the_interval()
    {
        var limit = TimeSpan.FromMilliseconds(400);
        long Decisions(double ms) => new WorkloadSimulator(new SimulationOptions { Cores = 8, Seed = 3, RebalanceInterval = TimeSpan.FromMilliseconds(ms) })
            .RunCyclic(Workload(), SimulatedScheme.TaskAvailability, limit).Counters.Decisions;

        long every10 = Decisions(10);
        long every100 = Decisions(100);
        // One per interval over the test, plus one per program arrival.
        Assert.InRange(every10, 40, 40 + 4);
        Assert.InRange(every100, 4, 4 + 4);
    }
}
