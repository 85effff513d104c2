using System.Diagnostics;

namespace DivCon.Skeletons.Engines;

/// <summary>
/// An index loop of expensive iterations run by dealing: a run whose root starts one dealer task per worker, and every
/// dealer takes the next unclaimed chunk of indexes (a shared counter, in index order) until none is left. Chosen by
/// <see cref="NestedLoop"/> for <see cref="DivideAndConquer.ForAsync"/> and <see cref="DivideAndConquer.ForRangesAsync"/>
/// when the loop code's remembered cost per index says that a handful of indexes is already worth a task
/// (<see cref="NestedLoop.DealtChunk"/>).
/// </summary>
/// <remarks>
/// Why not halving: halving hands each worker a contiguous part of the range, balanced in index count; when there are
/// few iterations per worker and they differ in cost, or when a worker is slowed by something else, the parts end
/// unevenly and the last leaf of the slowest worker sets the loop's end. Dealing balances to one chunk: a worker that
/// finishes early takes the next chunk. Every index is claimed exactly once: <see cref="_next"/> only grows, each
/// claim moving it from the offset its dealer read to that offset plus the claim's length by compare-and-swap (a
/// dealer whose swap fails claimed nothing and reads again), and a dealer that reads an offset at or past the end
/// stops. Claims shrink towards the end (<see cref="NestedLoop.NextChunk"/>): with a fixed chunk, the last claim
/// could hold one dealer for several indexes while the others had none left. A fault or cancellation moves the
/// counter past the end, so the other dealers stop at their next claim. The dealers' cheapest measured chunk, per index, is remembered at the root's merge (after every
/// dealer has ended, so the run's measurements are complete), replacing the memory as a halving run's would.
/// </remarks>
internal sealed class DealtLoop
{
    private const int Root = -1;

    private readonly IndexRange _range;
    private readonly int _chunk;
    private readonly int _dealers;
    private readonly Func<IndexRange, byte> _map;
    private readonly LeafCostMemory _memory;
    private readonly CancellationToken _cancellationToken;

    // The offset from _range.Start of the first index not yet claimed.
    private long _next;

    private DealtLoop(IndexRange range, int chunk, int dealers, Func<IndexRange, byte> map, LeafCostMemory memory, CancellationToken cancellationToken)
    {
        _range = range;
        _chunk = chunk;
        _dealers = dealers;
        _map = map;
        _memory = memory;
        _cancellationToken = cancellationToken;
    }

    /// <summary>
    /// Runs <paramref name="map"/> over <paramref name="range"/> in chunks of <paramref name="chunk"/> indexes (the last
    /// one shorter), dealt to <paramref name="dealers"/> tasks of a run with <paramref name="options"/> (its scheduler,
    /// its observer: the observer sees the root and one node per dealer).
    /// </summary>
    public static Task<byte> RunAsync(
        IndexRange range, int chunk, int dealers, Func<IndexRange, byte> map, LeafCostMemory memory, DivideAndConquerOptions options, CancellationToken cancellationToken)
    {
        var loop = new DealtLoop(range, chunk, dealers, map, memory, cancellationToken);

        // Every dealer a task: the automatic rule could otherwise run a dealer inline or batch them, leaving a worker out.
        var program = DivideAndConquer.Create<int, double>(
            static (dealer, _) => dealer == Root,
            (_, _) => loop.DealerIds(),
            (_, _) => loop.Deal(),
            (costs, _) => loop.Finish(costs),
            options: null,
            granularity: Granularity.EveryNodeATask);
        return ContinueAsByte(program.RunAsync(Root, options with { Granularity = Granularity.EveryNodeATask }, cancellationToken));
    }

    private static async Task<byte> ContinueAsByte(Task<double> run)
    {
        await run.ConfigureAwait(false);
        return 0;
    }

    private int[] DealerIds()
    {
        var ids = new int[_dealers];
        for (int i = 0; i < ids.Length; i++)
        {
            ids[i] = i;
        }

        return ids;
    }

    // One dealer: claims chunks until the range is done; returns its cheapest chunk's ticks per index (+infinity: none).
    private double Deal()
    {
        double cheapest = double.PositiveInfinity;
        long length = _range.Length;
        try
        {
            while (true)
            {
                // Claim [offset, offset + take): take shrinks towards the end (NestedLoop.NextChunk), so the last
                // claims are single indexes and the dealers finish within one index of each other.
                long offset = Volatile.Read(ref _next);
                if (offset >= length)
                {
                    return cheapest;
                }

                int take = NestedLoop.NextChunk(length - offset, _chunk, _dealers);
                if (Interlocked.CompareExchange(ref _next, offset + take, offset) != offset)
                {
                    continue; // another dealer claimed from this offset first: read the counter again
                }

                _cancellationToken.ThrowIfCancellationRequested();
                int start = _range.Start + (int)offset;
                int end = _range.Start + (int)(offset + take);
                long started = Stopwatch.GetTimestamp();
                _map(new IndexRange(start, end));
                cheapest = Math.Min(cheapest, (double)Math.Max(Stopwatch.GetTimestamp() - started, 1) / (end - start));
            }
        }
        catch
        {
            // Stop the other dealers at their next claim; the run faults (or is cancelled) with this exception.
            Interlocked.Exchange(ref _next, long.MaxValue / 2);
            throw;
        }
    }

    private double Finish(IReadOnlyList<double> costs)
    {
        double cheapest = double.PositiveInfinity;
        foreach (double cost in costs)
        {
            cheapest = Math.Min(cheapest, cost);
        }

        _memory.Remember(cheapest);
        return cheapest;
    }
}
