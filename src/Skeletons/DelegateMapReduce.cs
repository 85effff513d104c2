namespace DivCon.Skeletons;

/// <summary>A map-reduce program made of lambdas (see <see cref="MapReduce.Create{TResult}"/>); exactly one of the maps is set.</summary>
/// <typeparam name="TResult">The mapped value and the reduced result.</typeparam>
internal sealed class DelegateMapReduce<TResult> : MapReduce<TResult>
{
    private readonly Func<int, TResult>? _map;
    private readonly Func<IndexRange, TResult>? _mapRange;
    private readonly Func<TResult, TResult, TResult> _reduce;

    public DelegateMapReduce(Func<int, TResult>? map, Func<IndexRange, TResult>? mapRange, Func<TResult, TResult, TResult> reduce, TResult identity, DivideAndConquerOptions? options)
        : base(options)
    {
        System.Diagnostics.Debug.Assert(map is not null ^ mapRange is not null, "Exactly one of map and mapRange.");
        _map = map;
        _mapRange = mapRange;
        _reduce = reduce;
        Identity = identity;
    }

    protected override TResult Identity { get; }

    protected override TResult Map(int index) => _map is not null ? _map(index) : _mapRange!(new IndexRange(index, index + 1));

    protected override TResult Reduce(TResult left, TResult right) => _reduce(left, right);

    protected override TResult MapRange(IndexRange range)
    {
        if (_mapRange is not null)
        {
            return _mapRange(range);
        }

        var map = _map!;
        var accumulator = Identity;
        for (int i = range.Start; i < range.End; i++)
        {
            accumulator = _reduce(accumulator, map(i));
        }

        return accumulator;
    }
}
