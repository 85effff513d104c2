using DivCon.Skeletons;

namespace DivCon.Bench.Bots;

/// <summary>
/// The two things the DivCon versions of the kernels need beyond one skeleton run, written with the public API as
/// the README teaches it, and kept here so that each can be replaced in one place: the options of a run nested inside
/// a node, and a parallel loop over a range of indices.
/// </summary>
internal static class Nesting
{
    /// <summary>
    /// The options of a run started inside a node of another run: the caller's scheduler, named explicitly
    /// (<see cref="DivideAndConquerOptions.Default"/> runs on <c>TaskScheduler.Default</c>, which would leave a
    /// work-stealing scheduler for the .NET pool), and the observer of the outer run, so that its node counts include
    /// the nested runs.
    /// </summary>
    public static DivideAndConquerOptions Nested(IDivideAndConquerObserver? observer) =>
        DivideAndConquerOptions.Default with { Scheduler = TaskScheduler.Current, Observer = observer };

    /// <summary>
    /// Runs <paramref name="body"/> over [<paramref name="from"/>, <paramref name="to"/>) in parallel, as pieces
    /// [start, end) chosen by the skeleton's default granularity: a <see cref="MapReduce"/> over
    /// <see cref="IndexRange"/> whose reduce does nothing. The body is a closure over the node's data, so each call
    /// creates its own instance (which starts without the leaf cost an earlier instance learned).
    /// </summary>
    /// <param name="from">The first index.</param>
    /// <param name="to">One past the last index; nothing runs when it is not above <paramref name="from"/>.</param>
    /// <param name="body">Runs the indices [start, end) of one piece.</param>
    /// <param name="options">The run's options (<see cref="Nested"/> inside a node).</param>
    public static Task ForAsync(int from, int to, Action<int, int> body, DivideAndConquerOptions options)
    {
        if (to <= from)
        {
            return Task.CompletedTask;
        }

        var loop = MapReduce.CreateRanged(
            range =>
            {
                body(range.Start, range.End);
                return 0;
            },
            static (_, _) => 0,
            identity: 0);
        return loop.RunAsync(new IndexRange(from, to), options);
    }
}
