using BenchmarkDotNet.Attributes;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Topology;

namespace DivCon.Harness.Benchmarks;

/// <summary>
/// Costs of the multiprogram mechanism (one pinned worker on each CPU but the last, which is left to the measuring
/// thread; two programs; lending off):
/// one rebalancer decision (snapshot + policy + placement + apply), one skipped interval check, and moving one
/// worker to the other program (the request, then spinning until the worker serves the new program).
/// </summary>
/// <remarks>
/// <para>
/// Goals: a move well under 10 us beyond the current task, and a rebalancer under 1% of one core at a 100 ms interval
/// (a decision well under 1 ms). <see cref="Decision"/> is the baseline; a move is a decision plus the worker's
/// transition, so <c>MoveOneWorker - Decision</c> estimates the transition alone.
/// </para>
/// <para>
/// <b>Idle</b>: both programs have no work, so the moving worker is parked and the move includes waking it (a
/// futex wake-up). <b>Busy</b>: the programs run chains of tiny tasks, so the worker is at a task boundary within
/// about a microsecond. One CPU is kept free so that the spinning benchmark thread does not take a worker's CPU
/// (on a 2-CPU machine: one worker, alternating between the two programs). An explicit allocation may not leave a
/// program with queued tasks without a worker, so a busy program always keeps one. With at least three workers the
/// busy move alternates b between one and two workers, both programs busy. With fewer (a 2- or 3-CPU machine) the busy
/// setup uses every CPU as a worker (at least two; the spinning thread then shares a worker's CPU, which makes the
/// figure an upper bound) and only a is busy: b has no tasks, so it may drop to none, and the move alternates a busy
/// worker of a over to b and b's worker back to a. The move out of a is the busy move; the move back hands over a
/// worker with nothing to run, as in the idle case, so there the figure is the mean of a busy and an idle move.
/// </para>
/// </remarks>
[MemoryDiagnoser]
#pragma warning disable CA1001 // BenchmarkDotNet owns the lifetime: the scheduler is disposed in [GlobalCleanup].
public class MultiprogramBenchmarks
#pragma warning restore CA1001
{
    private const int ChainsPerProgram = 8;

    private TwoProgramSetup? _setup;
    private volatile bool _stopChains;
    private bool _bBusy;

    /// <summary>Whether the programs are idle (the mover is parked) or busy (the mover is between tiny tasks).</summary>
    [Params(Load.Idle, Load.Busy)]
    public Load Programs { get; set; }

    /// <summary>What the two programs are doing while we measure.</summary>
    public enum Load
    {
        /// <summary>No tasks: workers are parked.</summary>
        Idle,

        /// <summary>Chains of tiny tasks keep every worker busy.</summary>
        Busy,
    }

    /// <summary>Starts the scheduler, registers two programs and, when busy, starts their chains.</summary>
    [GlobalSetup]
    public void Setup()
    {
        var topology = CpuTopologyDetector.Detect();
        int workers = Math.Max(1, topology.Count - 1);
        // Both programs busy needs three workers (each keeps one, one moves); with fewer, only a is busy and needs
        // two workers (it keeps one, one moves), so the free CPU is given up.
        _bBusy = Programs == Load.Busy && workers >= 3;
        if (Programs == Load.Busy && !_bBusy)
        {
            if (topology.Count < 2)
            {
                throw new NotSupportedException($"The busy move needs at least 2 CPUs, so that the busy program keeps a worker; this machine has {topology.Count}.");
            }

            workers = topology.Count;
        }

        // A busy b keeps one worker at its low point; an idle b (no queued task) may have none.
        var setup = _setup = new TwoProgramSetup(topology, workers, low: _bBusy ? 1 : 0);
        if (Programs == Load.Busy)
        {
            for (int i = 0; i < ChainsPerProgram; i++)
            {
                StartLink(setup.A);
                if (_bBusy)
                {
                    StartLink(setup.B);
                }
            }
        }
    }

    /// <summary>Stops the chains and the scheduler.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _stopChains = true;
        _setup?.Dispose();
    }

    /// <summary>A full decision with nothing to move: snapshot, policy, placement, apply, history, event.</summary>
    /// <returns>The decision.</returns>
    [Benchmark(Baseline = true)]
    public RebalanceEvent Decision() => _setup!.Decide(RebalanceReason.Manual);

    /// <summary>A periodic check that the policy's previous decision stands (the O(m) skip).</summary>
    /// <returns>The (skipped) decision.</returns>
    [Benchmark]
    public RebalanceEvent IntervalCheck() => _setup!.Decide(RebalanceReason.Interval);

    /// <summary>Moves one worker between the programs and waits until it serves its new program.</summary>
    /// <returns>The workers serving b afterwards.</returns>
    [Benchmark]
    public int MoveOneWorker() => _setup!.MoveOneWorker();

    private void StartLink(ProgramTaskScheduler program) =>
        Task.Factory.StartNew(
            static state =>
            {
                var (self, target) = ((MultiprogramBenchmarks, ProgramTaskScheduler))state!;
                Thread.SpinWait(20);
                if (!self._stopChains)
                {
                    self.StartLink(target);
                }
            },
            (this, program),
            CancellationToken.None,
            TaskCreationOptions.None,
            program);
}
