namespace DivCon.Skeletons;

/// <summary>
/// Map-reduce over the indexes of a range, as a divide-and-conquer program: ranges are split into
/// <see cref="BranchingFactor"/> nearly equal parts until they reach the granularity; a leaf maps and reduces its
/// indexes sequentially (<see cref="MapRange"/>); merges reduce the children's results in index order.
/// </summary>
/// <typeparam name="TResult">The mapped value and the reduced result.</typeparam>
/// <remarks>
/// <para><see cref="Reduce"/> must be associative and <see cref="Identity"/> its identity element; it need not be
/// commutative (results are always combined in index order). The problem is an <see cref="IndexRange"/>, usually
/// <c>new IndexRange(0, data.Length)</c> over data the subclass holds.</para>
/// <para>Override <see cref="MapRange"/> with a tight loop for speed: the default calls two virtual methods per index.</para>
/// </remarks>
/// <example>
/// A sum of squares:
/// <code>
/// var sumOfSquares = MapReduce.Create&lt;long&gt;(map: i =&gt; (long)data[i] * data[i], reduce: (a, b) =&gt; a + b, identity: 0);
/// long total = await sumOfSquares.RunAsync(new IndexRange(0, data.Length));
/// </code>
/// </example>
public abstract class MapReduce<TResult> : GranularDivideAndConquer<IndexRange, TResult>
{
    private readonly int _branchingFactor = 2;

    /// <summary>Creates the program.</summary>
    /// <param name="options">Default options; <see langword="null"/>: <see cref="DivideAndConquerOptions.Default"/>.</param>
    protected MapReduce(DivideAndConquerOptions? options = null)
        : base(options)
    {
    }

    /// <summary>How many parts a range is split into; at least 2, default 2.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is less than 2.</exception>
    public int BranchingFactor
    {
        get => _branchingFactor;
        init
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 2);
            _branchingFactor = value;
        }
    }

    /// <summary>The identity element of <see cref="Reduce"/> (0 for a sum, 1 for a product).</summary>
    protected abstract TResult Identity { get; }

    /// <summary>Maps one index to a value.</summary>
    /// <param name="index">The index.</param>
    /// <returns>Its value.</returns>
    protected abstract TResult Map(int index);

    /// <summary>Combines two results; must be associative.</summary>
    /// <param name="left">The result of the lower indexes.</param>
    /// <param name="right">The result of the higher indexes.</param>
    /// <returns>The combined result.</returns>
    protected abstract TResult Reduce(TResult left, TResult right);

    /// <summary>Maps and reduces a whole range sequentially (the execute muscle). Default: a loop over <see cref="Map"/> and <see cref="Reduce"/>.</summary>
    /// <param name="range">The range.</param>
    /// <returns>Its reduced result; <see cref="Identity"/> for an empty range.</returns>
    protected virtual TResult MapRange(IndexRange range)
    {
        var accumulator = Identity;
        for (int i = range.Start; i < range.End; i++)
        {
            accumulator = Reduce(accumulator, Map(i));
        }

        return accumulator;
    }

    /// <summary>The number of indexes in the range.</summary>
    /// <param name="problem">The range.</param>
    /// <returns>Its length.</returns>
    protected override long GetSize(IndexRange problem) => problem.Length;

    /// <summary>Splits the range into <see cref="BranchingFactor"/> nearly equal parts (fewer if it is shorter).</summary>
    /// <param name="problem">The range.</param>
    /// <param name="depth">Its depth.</param>
    /// <returns>The parts, in index order.</returns>
    protected sealed override IReadOnlyList<IndexRange> Split(IndexRange problem, int depth) => problem.Split(_branchingFactor);

    /// <summary>Calls <see cref="MapRange"/>.</summary>
    /// <param name="problem">The range.</param>
    /// <param name="depth">Its depth.</param>
    /// <returns>Its reduced result.</returns>
    protected sealed override TResult Execute(IndexRange problem, int depth) => MapRange(problem);

    /// <summary>Reduces the children's results in index order.</summary>
    /// <param name="subresults">The children's results.</param>
    /// <param name="depth">The depth of the split range.</param>
    /// <returns>The reduced result.</returns>
    protected sealed override TResult Merge(IReadOnlyList<TResult> subresults, int depth)
    {
        ArgumentNullException.ThrowIfNull(subresults);
        var accumulator = subresults[0];
        for (int i = 1; i < subresults.Count; i++)
        {
            accumulator = Reduce(accumulator, subresults[i]);
        }

        return accumulator;
    }
}
