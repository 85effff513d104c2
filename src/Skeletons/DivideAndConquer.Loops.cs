using DivCon.Skeletons.Engines;

namespace DivCon.Skeletons;

/// <summary>The nested loops: a parallel for and a map-reduce over any problem, for use inside a node.</summary>
public static partial class DivideAndConquer
{
    // The index loops' problem is [0, count); these are shared by every call (no closure).
    private static readonly Func<IndexRange, long> s_rangeLength = static range => range.Length;
    private static readonly Func<IndexRange, (IndexRange Left, IndexRange Right)> s_halve = static range =>
    {
        int middle = range.Start + (range.Length / 2);
        return (new IndexRange(range.Start, middle), new IndexRange(middle, range.End));
    };

    private static readonly Func<byte, byte, byte> s_none = static (left, _) => left;

    /// <summary>
    /// Runs <paramref name="body"/> for every index in [<paramref name="fromInclusive"/>, <paramref name="toExclusive"/>)
    /// in parallel, cheaply enough to call from inside a node of another run (a split or merge of
    /// <see cref="CreateAsync{TProblem, TResult}(Func{TProblem, int, bool}, Func{TProblem, int, IReadOnlyList{TProblem}}, Func{TProblem, int, TResult}, Func{TProblem, IReadOnlyList{TResult}, int, CancellationToken, ValueTask{TResult}}, DivideAndConquerOptions?, Granularity?)"/>).
    /// </summary>
    /// <param name="fromInclusive">The first index.</param>
    /// <param name="toExclusive">One past the last index; at most <see cref="int.MaxValue"/> indexes. No index when it is not above <paramref name="fromInclusive"/>.</param>
    /// <param name="body">index =&gt; its work; called once per index, concurrently for different indexes.</param>
    /// <param name="options">
    /// The run's options; <see langword="null"/>: <see cref="DivideAndConquerOptions.Default"/>, which runs on the
    /// caller's scheduler (<see cref="TaskScheduler.Current"/>: inside a node, the node's) with
    /// <see cref="Granularity.Automatic()"/>.
    /// </param>
    /// <param name="costKey">
    /// What identifies this loop's cost per index across calls; <see langword="null"/>: the body's code (every closure
    /// of one lambda shares it). Give a key (held weakly, so a long-lived object such as a static one) when one lambda
    /// does very different work per call.
    /// </param>
    /// <param name="cancellationToken">Stops the loop's run.</param>
    /// <returns>
    /// A task that completes when every index is done. When the loop's remembered cost per index (the last
    /// measurement of this code) predicts less than twice the granularity's <see cref="Granularity.MinimumTaskCost"/>
    /// for the whole range (too little for two tasks), the loop runs sequentially on the calling thread and the task is already complete (no task, no
    /// run); otherwise it is a run of a divide-and-conquer program that halves the range while the automatic
    /// granularity says so (leaves at most <see cref="Granularity.MaximumTaskDuration"/> long, subtrees predicted
    /// cheap inline). When an index is remembered to cost at least a quarter of the minimum task cost (few, expensive
    /// iterations), the run deals the indexes out instead: one task per worker, each taking the next chunk of 1 to 4
    /// indexes (a chunk worth about a minimum task cost) in index order until none is left, so a worker that finishes
    /// early takes more instead of waiting for another's contiguous half. A loop run inline calls no observer.
    /// </returns>
    /// <exception cref="ArgumentNullException"><paramref name="body"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException">The range holds more than <see cref="int.MaxValue"/> indexes.</exception>
    public static ValueTask ForAsync(
        int fromInclusive,
        int toExclusive,
        Action<int> body,
        DivideAndConquerOptions? options = null,
        object? costKey = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(body);
        long count = (long)toExclusive - fromInclusive;
        if (count > int.MaxValue)
        {
            throw new ArgumentOutOfRangeException(nameof(toExclusive), toExclusive, $"A loop covers at most int.MaxValue indexes; [{fromInclusive}, {toExclusive}) has {count}.");
        }

        if (count <= 0)
        {
            return default;
        }

        var memory = LoopCosts.For(body, costKey);
        Func<IndexRange, byte> map = range =>
        {
            for (int i = range.Start; i < range.End; i++)
            {
                body(fromInclusive + i);
            }

            return 0;
        };
        return AsValueTask(NestedLoop.Run(new IndexRange(0, (int)count), s_rangeLength, s_halve, map, s_none, memory, options, cancellationToken, dealIndexes: true));
    }

    /// <summary>
    /// Runs <paramref name="body"/> over consecutive pieces that together cover [<paramref name="fromInclusive"/>,
    /// <paramref name="toExclusive"/>) exactly once, in parallel: the fast form of <see cref="ForAsync"/> (a tight loop
    /// per piece), with the same behaviour (inline when predicted cheap, else a run on the caller's scheduler; indexes
    /// of few, expensive iterations dealt out in pieces of 1 to 4 indexes).
    /// </summary>
    /// <param name="fromInclusive">The first index, at least 0.</param>
    /// <param name="toExclusive">One past the last index. No piece when it is not above <paramref name="fromInclusive"/>.</param>
    /// <param name="body">piece =&gt; the work of its indexes; called concurrently for different pieces.</param>
    /// <param name="options">The run's options; <see langword="null"/>: <see cref="DivideAndConquerOptions.Default"/> (see <see cref="ForAsync"/>).</param>
    /// <param name="costKey">What identifies this loop's cost per index; <see langword="null"/>: the body's code (see <see cref="ForAsync"/>).</param>
    /// <param name="cancellationToken">Stops the loop's run.</param>
    /// <returns>A task that completes when every piece is done (already complete when the loop ran inline).</returns>
    /// <exception cref="ArgumentNullException"><paramref name="body"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="fromInclusive"/> is negative.</exception>
    public static ValueTask ForRangesAsync(
        int fromInclusive,
        int toExclusive,
        Action<IndexRange> body,
        DivideAndConquerOptions? options = null,
        object? costKey = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(body);
        ArgumentOutOfRangeException.ThrowIfNegative(fromInclusive);
        if (toExclusive <= fromInclusive)
        {
            return default;
        }

        var memory = LoopCosts.For(body, costKey);
        Func<IndexRange, byte> map = range =>
        {
            body(range);
            return 0;
        };
        return AsValueTask(NestedLoop.Run(new IndexRange(fromInclusive, toExclusive), s_rangeLength, s_halve, map, s_none, memory, options, cancellationToken, dealIndexes: true));
    }

    /// <summary>
    /// Maps and reduces a problem of any type in parallel, cheaply enough to call from inside a node: the problem is
    /// halved (<paramref name="split"/>) while the automatic granularity says so, each piece is mapped, and the pieces'
    /// results are reduced in order. Like <see cref="ForAsync"/>, it runs inline (a single <paramref name="map"/> of the
    /// whole problem on the calling thread, an already completed task) when its remembered cost per unit of size
    /// predicts less than twice the minimum task cost, and otherwise as a run on the caller's scheduler.
    /// </summary>
    /// <typeparam name="TProblem">The problem: an index range, a slice of arrays, a block of a matrix...</typeparam>
    /// <typeparam name="TResult">The mapped and reduced result.</typeparam>
    /// <param name="problem">The whole problem.</param>
    /// <param name="getSize">problem =&gt; its size, at least 0 (elements, points...); each half must be smaller. A problem of size 1 or less is never split.</param>
    /// <param name="split">problem =&gt; its two halves, in order.</param>
    /// <param name="map">problem =&gt; its result, computed sequentially.</param>
    /// <param name="reduce">(left, right) =&gt; combined; associative (results are combined in order).</param>
    /// <param name="options">The run's options; <see langword="null"/>: <see cref="DivideAndConquerOptions.Default"/> (see <see cref="ForAsync"/>).</param>
    /// <param name="costKey">What identifies this loop's cost per unit; <see langword="null"/>: <paramref name="map"/>'s code (see <see cref="ForAsync"/>).</param>
    /// <param name="cancellationToken">Stops the run.</param>
    /// <returns>The reduced result, now (inline) or later.</returns>
    /// <exception cref="ArgumentNullException">A function is <see langword="null"/>.</exception>
    public static ValueTask<TResult> MapReduceAsync<TProblem, TResult>(
        TProblem problem,
        Func<TProblem, long> getSize,
        Func<TProblem, (TProblem Left, TProblem Right)> split,
        Func<TProblem, TResult> map,
        Func<TResult, TResult, TResult> reduce,
        DivideAndConquerOptions? options = null,
        object? costKey = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(getSize);
        ArgumentNullException.ThrowIfNull(split);
        ArgumentNullException.ThrowIfNull(map);
        ArgumentNullException.ThrowIfNull(reduce);
        return NestedLoop.Run(problem, getSize, split, map, reduce, LoopCosts.For(map, costKey), options, cancellationToken);
    }

    private static ValueTask AsValueTask(ValueTask<byte> loop) =>
        loop.IsCompletedSuccessfully ? default : new ValueTask(loop.AsTask());
}
