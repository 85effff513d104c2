using System.Diagnostics;

namespace DivCon.Skeletons.Engines;

/// <summary>
/// An index loop of expensive iterations run by dealing: one dealer task per worker (two on the .NET pool,
/// <see cref="NestedLoop.PoolDealersPerWorker"/>), and every dealer takes the next unclaimed chunk of indexes (a shared
/// counter, in index order) until none is left. Chosen by <see cref="NestedLoop"/> for
/// <see cref="DivideAndConquer.ForAsync"/> and <see cref="DivideAndConquer.ForRangesAsync"/> when the loop code's
/// remembered cost per index says that a handful of indexes is already worth a task (<see cref="NestedLoop.DealtChunk"/>).
/// </summary>
/// <remarks>
/// <para><b>Why dealing, not halving.</b> Halving hands each worker a contiguous part of the range, balanced in index
/// count; when there are few iterations per worker and they differ in cost, or when a worker is slowed by something
/// else, the parts end unevenly and the last leaf of the slowest worker sets the loop's end. Dealing balances to one
/// chunk: a worker that finishes early takes the next chunk.</para>
/// <para><b>Claims.</b> Every index is claimed exactly once: <see cref="_next"/> only grows, each claim moving it from
/// the offset its dealer read to that offset plus the claim's length by compare-and-swap (a dealer whose swap fails
/// claimed nothing and reads again), and a dealer that reads an offset at or past the end stops. Claims shrink towards
/// the end (<see cref="NestedLoop.NextChunk"/>): with a fixed chunk, the last claim could hold one dealer for several
/// indexes while the others had none left. A fault or cancellation moves the counter past the end, so the other
/// dealers stop at their next claim.</para>
/// <para><b>Slices.</b> A dealer gives its worker back after a slice (<see cref="NestedLoop.DealerSlice"/> minimum task
/// costs) whenever indexes are left: it queues its own next step on the scheduler and returns, so its worker goes back
/// to the scheduler's loop between slices. Two reasons. The .NET thread pool's hill climbing reads throughput from the
/// work items it sees complete; a dealer holding a pool thread for the whole loop (tens of milliseconds) completes
/// almost none, the pool then adds threads it does not need, and on few cores they take time from the dealers (on
/// two cores, phases shaped as sparse LU's dealt without slices grew the pool to six threads and took 3-6% longer than
/// the same phases dealt in slices, which kept it at three or four). And a multiprogram scheduler moves a core between
/// programs when its worker finishes a task: a slice bounds how long a loop keeps a core that has been moved away.</para>
/// <para><b>The run.</b> The loop is a run of its own (a <see cref="RunContext{TProblem, TResult}"/>: its observer, its
/// cancellation, its family in the enclosing runs' count) of a root and one node per dealer. The root runs on the
/// calling thread (it only queues the dealers: an inline node, so no pool item is spent waking a worker for it), each
/// dealer is a task node however many slices it takes (its execute phase spans them), and the last dealer to end runs
/// the root's merge, which remembers the dealers' cheapest measured chunk per index (after every dealer has ended,
/// so the run's measurements are complete), replacing the memory as a halving run's would. <see cref="_left"/> counts
/// the dealers not yet ended; its interlocked decrement is a full fence, so the last dealer reads every dealer's
/// measurement.</para>
/// </remarks>
internal sealed class DealtLoop
{
    private static readonly Action<object?> s_step = static state => ((Dealer)state!).Step();

    private readonly IndexRange _range;
    private readonly int _chunk;
    private readonly int _dealers;
    private readonly long _slice;
    private readonly Func<IndexRange, byte> _map;
    private readonly LeafCostMemory _memory;
    private readonly RunContext<int, byte> _run;
    private readonly NodePosition _root;

    // Each dealer's cheapest chunk, in Stopwatch ticks per index (+infinity: none); written by its dealer only.
    private readonly double[] _cheapest;

    // The offset from _range.Start of the first index not yet claimed.
    private long _next;

    // Dealers not yet ended.
    private int _left;

    private DealtLoop(IndexRange range, int chunk, int dealers, long slice, Func<IndexRange, byte> map, LeafCostMemory memory, RunContext<int, byte> run)
    {
        _range = range;
        _chunk = chunk;
        _dealers = dealers;
        _slice = slice;
        _map = map;
        _memory = memory;
        _run = run;
        _root = new NodePosition(run.NewNodeId(), -1, 0, 0);
        _cheapest = new double[dealers];
        Array.Fill(_cheapest, double.PositiveInfinity);
        _left = dealers;
    }

    /// <summary>
    /// Runs <paramref name="map"/> over <paramref name="range"/> in chunks of <paramref name="chunk"/> indexes (the last
    /// ones shorter), dealt to <paramref name="dealers"/> tasks on <paramref name="options"/>' scheduler, each giving its
    /// worker back after about <paramref name="sliceTicks"/> (the observer, if any, sees the root and one node per dealer).
    /// </summary>
    public static Task<byte> RunAsync(
        IndexRange range, int chunk, int dealers, long sliceTicks, Func<IndexRange, byte> map, LeafCostMemory memory, DivideAndConquerOptions options, CancellationToken cancellationToken)
    {
        var run = new RunContext<int, byte>(DealerProgram.Instance, options, RunGranularity.ForPlainProgram(Granularity.EveryNodeATask), cancellationToken);
        new DealtLoop(range, chunk, dealers, sliceTicks, map, memory, run).Start();
        return run.Task;
    }

    // The root's split, on the calling thread: queues the dealers.
    private void Start()
    {
        var run = _run;
        run.CountInlineNodes(1);
        var split = run.StartPhase(DivideAndConquerPhase.Split, _root);
        if (run.ShouldStop() || !run.EndPhase(split))
        {
            // Cancelled already, or the observer threw: no dealer starts, the run ends here.
            StopDealing();
            run.Complete(0);
            return;
        }

        for (int i = 0; i < _dealers; i++)
        {
            var dealer = new Dealer(this, i, new NodePosition(run.NewNodeId(), _root.Id, i, 1));
            if (!Queue(dealer))
            {
                // Refused: the run has failed, and the dealers queued stop at their next claim. This one and those not
                // yet queued never run, so they end here (the last to end completes the run); none is offered to the
                // scheduler that refused.
                for (int j = i; j < _dealers; j++)
                {
                    End();
                }

                return;
            }
        }
    }

    // Queues a dealer's next step, counted in the run's family; false (the run failed) when the scheduler refused it.
    private bool Queue(Dealer dealer)
    {
        try
        {
            _run.StartCounted(s_step, dealer);
            return true;
        }
        catch (Exception e)
        {
            _run.Fail(e);
            StopDealing();
            return false;
        }
    }

    // Claims and runs chunks until none is left (false), or until a slice has passed with indexes left (true).
    private bool DealSlice(ref double cheapest)
    {
        long length = _range.Length;
        long begun = Stopwatch.GetTimestamp();
        while (true)
        {
            if (_run.ShouldStop())
            {
                StopDealing(); // another dealer failed, or the run was cancelled
                return false;
            }

            // Claim [offset, offset + take): take shrinks towards the end (NestedLoop.NextChunk), so the last claims
            // are single indexes and the dealers finish within one index of each other.
            long offset = Volatile.Read(ref _next);
            if (offset >= length)
            {
                return false;
            }

            int take = NestedLoop.NextChunk(length - offset, _chunk, _dealers);
            if (Interlocked.CompareExchange(ref _next, offset + take, offset) != offset)
            {
                continue; // another dealer claimed from this offset first: read the counter again
            }

            int start = _range.Start + (int)offset;
            int end = _range.Start + (int)(offset + take);
            long started = Stopwatch.GetTimestamp();
            _map(new IndexRange(start, end));
            long now = Stopwatch.GetTimestamp();
            cheapest = Math.Min(cheapest, (double)Math.Max(now - started, 1) / (end - start));
            if (now - begun >= _slice)
            {
                return offset + take < length;
            }
        }
    }

    // Moves the counter past the end: every dealer stops at its next claim.
    private void StopDealing() => Interlocked.Exchange(ref _next, long.MaxValue / 2);

    // A dealer has ended; the last one runs the root's merge and completes the run.
    private void End()
    {
        // Interlocked: a full fence, so the last dealer reads every dealer's _cheapest.
        if (Interlocked.Decrement(ref _left) != 0)
        {
            return;
        }

        var run = _run;
        if (!run.ShouldStop())
        {
            var merge = run.StartPhase(DivideAndConquerPhase.Merge, _root);
            double cheapest = double.PositiveInfinity;
            foreach (double cost in _cheapest)
            {
                cheapest = Math.Min(cheapest, cost);
            }

            _memory.Remember(cheapest);
            run.EndPhase(merge);
        }

        run.Complete(0);
    }

    // One dealer: a task node whose execute phase spans its slices.
    private sealed class Dealer(DealtLoop loop, int index, NodePosition position)
    {
        private bool _started;
        private MeasuredPhase _execute;

        // Runs a slice as a task of the loop's run; a dealer's steps run one after another (each queued by the one before).
        public void Step()
        {
            var run = loop._run;
            using (RunFamily.EnterTask(run.Family))
            {
                if (!_started)
                {
                    _started = true;
                    run.CountTaskNode();
                    _execute = run.StartPhase(DivideAndConquerPhase.Execute, position);
                }

                bool more;
                try
                {
                    more = loop.DealSlice(ref loop._cheapest[index]);
                }
                catch (Exception e)
                {
                    // The run faults (or is cancelled) with this exception; the other dealers stop at their next claim.
                    run.Fail(e);
                    loop.StopDealing();
                    more = false;
                }

                if (more && loop.Queue(this))
                {
                    return;
                }

                if (!run.ShouldStop())
                {
                    run.EndPhase(_execute);
                }

                loop.End();
            }
        }
    }

    // The program a dealt loop's run reports as its own: never called (the loop runs its nodes itself).
    private sealed class DealerProgram : DivideAndConquer<int, byte>
    {
        public static readonly DealerProgram Instance = new();

        protected override bool ShouldSplit(int problem, int depth) => throw new InvalidOperationException("A dealt loop runs its nodes itself.");

        protected override IReadOnlyList<int> Split(int problem, int depth) => throw new InvalidOperationException("A dealt loop runs its nodes itself.");

        protected override byte Execute(int problem, int depth) => throw new InvalidOperationException("A dealt loop runs its nodes itself.");

        protected override byte Merge(IReadOnlyList<byte> subresults, int depth) => throw new InvalidOperationException("A dealt loop runs its nodes itself.");
    }
}
