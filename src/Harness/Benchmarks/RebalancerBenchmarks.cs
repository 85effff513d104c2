using BenchmarkDotNet.Attributes;
using DivCon.Schedulers.Multiprogram.Decisions;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Placement;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Topology;

namespace DivCon.Harness.Benchmarks;

/// <summary>
/// Cost of one rebalancer decision on a 64-CPU, 4-package machine: the O(m) skip check, the task-availability
/// policy (fast path and heap path), CPU placement, and the whole decision. Goal: at a 100 ms interval the
/// rebalancer uses under 1% of one core, i.e. a full decision well under 1 ms.
/// </summary>
[MemoryDiagnoser]
public class RebalancerBenchmarks
{
    private readonly TaskAvailabilityPolicy _policy = new();
    private readonly HillClimbingPolicy _hillClimbing = new();
    private CpuPlacement _placement = null!;
    private AllocationSnapshot _plentiful = null!;
    private AllocationSnapshot _plentifulLater = null!;
    private AllocationSnapshot _shortage = null!;
    private AllocationDecision _baseDecision = null!;
    private ProgramAllocation[] _shortageCounts = null!;
    private CpuAssignment _basePlacement = null!;
    private Dictionary<int, ProgramId> _running = null!;
    private RebalanceDecider _decider = null!;
    private long _tick;

    /// <summary>Number of programs sharing the machine.</summary>
    [Params(3, 8)]
    public int Programs { get; set; }

    /// <summary>Builds the workloads: plentiful tasks (fast path) and half the programs short of tasks (heap path).</summary>
    [GlobalSetup]
    public void Setup()
    {
        var topology = CpuTopology.Uniform(4, 16);
        _placement = new CpuPlacement(topology);
        double[] speedups = [.. Enumerable.Range(0, Programs).Select(i => 30.0 - (i * 3.1))];
        _plentiful = Snapshot(speedups, i => 100);
        _plentifulLater = Snapshot(speedups, i => 90 + i);
        _shortage = Snapshot(speedups, i => i % 2 == 0 ? 100 : 1 + i);
        _baseDecision = _policy.Allocate(_plentiful);
        _shortageCounts = [.. _policy.Allocate(_shortage).Allocations];
        _basePlacement = _placement.Place(CpuAssignment.Empty, [.. _baseDecision.Allocations]).Assignment;

        // Every other CPU inside a task of its owner, so that most moves the shortage asks for meet a busy CPU.
        _running = _basePlacement.Programs
            .SelectMany(p => _basePlacement.CpusOf(p).Where((_, k) => k % 2 == 1).Select(cpu => (cpu, p)))
            .ToDictionary(x => x.cpu, x => x.p);
        _decider = new RebalanceDecider(_policy, topology);
        _decider.Decide(_plentiful, RebalanceReason.Arrival, 0);
    }

    /// <summary>The O(m) check that lets an interval skip the policy.</summary>
    [Benchmark(Baseline = true)]
    public bool SkipCheck() => _policy.IsStillValid(_plentifulLater, _baseDecision);

    /// <summary>The policy when every program has enough tasks (returns the base).</summary>
    [Benchmark]
    public AllocationDecision PolicyFastPath() => _policy.Allocate(_plentiful);

    /// <summary>The policy when half the programs are short of tasks (cap, heap passes).</summary>
    [Benchmark]
    public AllocationDecision PolicyHeapPath() => _policy.Allocate(_shortage);

    /// <summary>Placing the shortage allocation, starting from the base placement.</summary>
    [Benchmark]
    public CpuAssignment Placement() => _placement.Place(_basePlacement, _shortageCounts).Assignment;

    /// <summary>The same, told that every other CPU is inside its owner's task: each layout also tried without handovers.</summary>
    [Benchmark]
    public CpuAssignment PlacementAvoidingHandovers() => _placement.Place(_basePlacement, _shortageCounts, _running).Assignment;

    /// <summary>A whole decision through the decider, alternating shortage and plenty so that none is skipped.</summary>
    [Benchmark]
    public RebalanceEvent FullDecision()
    {
        _tick++;
        return _decider.Decide((_tick & 1) == 0 ? _plentiful : _shortage, RebalanceReason.Interval, _tick);
    }

    /// <summary>Hill climbing from the proportional start on whole-machine speedup lines (for comparison).</summary>
    [Benchmark]
    public AllocationDecision HillClimbing() => _hillClimbing.Allocate(_shortage);

    private static AllocationSnapshot Snapshot(double[] speedups, Func<int, int> available) =>
        new(64, speedups.Select((s, i) => new ProgramState(new ProgramId(i), s, available(i), 0)));
}
