namespace DivCon.Skeletons;

/// <summary>Builds <see cref="MapReduce{TResult}"/> programs from lambdas.</summary>
public static class MapReduce
{
    /// <summary>Creates a map-reduce program from a per-index map.</summary>
    /// <typeparam name="TResult">The mapped value and the reduced result.</typeparam>
    /// <param name="map">index =&gt; value.</param>
    /// <param name="reduce">(left, right) =&gt; combined; associative.</param>
    /// <param name="identity">The identity element of <paramref name="reduce"/>.</param>
    /// <param name="branchingFactor">Parts per split, at least 2.</param>
    /// <param name="granularity">Where splitting stops; <see langword="null"/>: <see cref="Granularity.Automatic()"/>.</param>
    /// <param name="options">Default options; <see langword="null"/>: <see cref="DivideAndConquerOptions.Default"/>.</param>
    /// <returns>The program; run it on <c>new IndexRange(0, n)</c>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="map"/> or <paramref name="reduce"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="branchingFactor"/> is less than 2.</exception>
    public static MapReduce<TResult> Create<TResult>(
        Func<int, TResult> map,
        Func<TResult, TResult, TResult> reduce,
        TResult identity,
        int branchingFactor = 2,
        Granularity? granularity = null,
        DivideAndConquerOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(map);
        ArgumentNullException.ThrowIfNull(reduce);
        ArgumentOutOfRangeException.ThrowIfLessThan(branchingFactor, 2);
        return new DelegateMapReduce<TResult>(map, mapRange: null, reduce, identity, options)
        {
            BranchingFactor = branchingFactor,
            Granularity = granularity ?? Granularity.Automatic(),
        };
    }

    /// <summary>Creates a map-reduce program from a whole-range map (a tight loop per leaf, the fast form).</summary>
    /// <typeparam name="TResult">The mapped value and the reduced result.</typeparam>
    /// <param name="mapRange">range =&gt; the reduced value of its indexes (<paramref name="identity"/> for an empty range).</param>
    /// <param name="reduce">(left, right) =&gt; combined; associative.</param>
    /// <param name="identity">The identity element of <paramref name="reduce"/>.</param>
    /// <param name="branchingFactor">Parts per split, at least 2.</param>
    /// <param name="granularity">Where splitting stops; <see langword="null"/>: <see cref="Granularity.Automatic()"/>.</param>
    /// <param name="options">Default options; <see langword="null"/>: <see cref="DivideAndConquerOptions.Default"/>.</param>
    /// <returns>The program; run it on <c>new IndexRange(0, n)</c>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="mapRange"/> or <paramref name="reduce"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="branchingFactor"/> is less than 2.</exception>
    public static MapReduce<TResult> CreateRanged<TResult>(
        Func<IndexRange, TResult> mapRange,
        Func<TResult, TResult, TResult> reduce,
        TResult identity,
        int branchingFactor = 2,
        Granularity? granularity = null,
        DivideAndConquerOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(mapRange);
        ArgumentNullException.ThrowIfNull(reduce);
        ArgumentOutOfRangeException.ThrowIfLessThan(branchingFactor, 2);
        return new DelegateMapReduce<TResult>(map: null, mapRange, reduce, identity, options)
        {
            BranchingFactor = branchingFactor,
            Granularity = granularity ?? Granularity.Automatic(),
        };
    }
}
