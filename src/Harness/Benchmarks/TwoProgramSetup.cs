using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Topology;

namespace DivCon.Harness.Benchmarks;

/// <summary>
/// The multiprogram scheduler the move benchmarks measure (<see cref="MultiprogramBenchmarks"/>,
/// <see cref="ObservabilityOverheadBenchmarks"/>): pinned workers on the first CPUs, two programs a and b, equal
/// shares, no periodic rebalancing and no lending, so that only the benchmark moves workers. b alternates between
/// 1 + low workers and low (a busy b keeps one; an idle b, with no queued task, may have none).
/// </summary>
internal sealed class TwoProgramSetup : IDisposable
{
    private static readonly TimeSpan SpinLimit = TimeSpan.FromSeconds(10);

    private readonly KeyValuePair<ProgramTaskScheduler, int>[] _split;
    private readonly KeyValuePair<ProgramTaskScheduler, int>[] _allToA;
    private readonly int _low;
    private bool _bHasMore;

    /// <summary>Starts the scheduler on <paramref name="workers"/> contiguous CPUs and gives b 1 + <paramref name="low"/> of them.</summary>
    /// <param name="topology">The machine.</param>
    /// <param name="workers">How many workers (CPUs).</param>
    /// <param name="low">b's workers at its low point: 0, or 1 when b has tasks (a program with queued tasks keeps one).</param>
    public TwoProgramSetup(CpuTopology topology, int workers, int low)
    {
        Scheduler = new MultiprogramScheduler(new MultiprogramSchedulerOptions
        {
            Topology = topology,
            CpuIds = CpuAllocation.Contiguous(topology, workers),
            Policy = new EqualSharePolicy(),
            RebalanceInterval = Timeout.InfiniteTimeSpan,
            EnableLending = false,
        });
        A = Scheduler.Register("a");
        B = Scheduler.Register("b");
        int n = Scheduler.WorkerCount;
        _low = low;
        _split = [new(A, n - 1 - low), new(B, 1 + low)];
        _allToA = [new(A, n - low), new(B, low)];
        Scheduler.SetAllocation(_split);
        _bHasMore = true;
    }

    /// <summary>The scheduler.</summary>
    public MultiprogramScheduler Scheduler { get; }

    /// <summary>Program a.</summary>
    public ProgramTaskScheduler A { get; }

    /// <summary>Program b, whose workers the moves change.</summary>
    public ProgramTaskScheduler B { get; }

    /// <summary>A decision for <paramref name="reason"/> (Manual: a full decision; Interval: the check that the last one stands).</summary>
    /// <param name="reason">Why.</param>
    /// <returns>The decision.</returns>
    public RebalanceEvent Decide(RebalanceReason reason) => Scheduler.Rebalance(reason);

    /// <summary>Moves one worker between a and b and spins until b is served by the expected number of workers.</summary>
    /// <returns>The workers serving b afterwards.</returns>
    /// <exception cref="TimeoutException">The worker did not move within 10 s.</exception>
    public int MoveOneWorker()
    {
        _bHasMore = !_bHasMore;
        Scheduler.SetAllocation(_bHasMore ? _split : _allToA);
        int expected = _bHasMore ? 1 + _low : _low;
        var spinner = default(SpinWait);
        long deadline = Environment.TickCount64 + (long)SpinLimit.TotalMilliseconds;
        int serving;
        while ((serving = B.ServingWorkers) != expected)
        {
            spinner.SpinOnce(sleep1Threshold: -1);
            if (Environment.TickCount64 > deadline)
            {
                throw new TimeoutException($"The worker did not move within {SpinLimit}.");
            }
        }

        return serving;
    }

    /// <summary>Stops the scheduler.</summary>
    public void Dispose() => Scheduler.Dispose();
}
