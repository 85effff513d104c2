namespace DivCon.Skeletons;

/// <summary>
/// A program whose merge (and possibly split) is an asynchronous lambda (see <c>DivideAndConquer.CreateAsync</c>);
/// exactly one split and exactly one merge are set.
/// </summary>
/// <typeparam name="TProblem">A problem or subproblem.</typeparam>
/// <typeparam name="TResult">The result of a (sub)problem.</typeparam>
internal sealed class AsyncDelegateDivideAndConquer<TProblem, TResult>(
    Func<TProblem, int, bool> shouldSplit,
    Func<TProblem, int, CancellationToken, ValueTask<IReadOnlyList<TProblem>>>? splitAsync,
    Func<TProblem, int, IReadOnlyList<TProblem>>? split,
    Func<TProblem, int, TResult> execute,
    Func<IReadOnlyList<TResult>, int, CancellationToken, ValueTask<TResult>>? mergeAsync,
    Func<TProblem, IReadOnlyList<TResult>, int, CancellationToken, ValueTask<TResult>>? mergeWithProblemAsync,
    DivideAndConquerOptions? options)
    : DivideAndConquer<TProblem, TResult>(options)
{
    protected override bool ShouldSplit(TProblem problem, int depth) => shouldSplit(problem, depth);

    /// <summary>Not used: the engines call <see cref="SplitAsync"/>, and blocking on it here would hide a wait.</summary>
    protected override IReadOnlyList<TProblem> Split(TProblem problem, int depth) =>
        throw new NotSupportedException("This program was created with an asynchronous split; call SplitAsync.");

    protected override TResult Execute(TProblem problem, int depth) => execute(problem, depth);

    /// <summary>Not used: the engines call <see cref="MergeAsync"/>, and blocking on it here would hide a wait.</summary>
    protected override TResult Merge(IReadOnlyList<TResult> subresults, int depth) =>
        throw new NotSupportedException("This program was created with an asynchronous merge; call MergeAsync.");

    protected override ValueTask<IReadOnlyList<TProblem>> SplitAsync(TProblem problem, int depth, CancellationToken cancellationToken) =>
        splitAsync is not null
            ? splitAsync(problem, depth, cancellationToken)
            : new ValueTask<IReadOnlyList<TProblem>>(split!(problem, depth));

    protected override ValueTask<TResult> MergeAsync(TProblem problem, IReadOnlyList<TResult> subresults, int depth, CancellationToken cancellationToken) =>
        mergeWithProblemAsync is not null
            ? mergeWithProblemAsync(problem, subresults, depth, cancellationToken)
            : mergeAsync!(subresults, depth, cancellationToken);
}

/// <summary>
/// A program whose splits make exactly two subproblems and whose merge (and possibly split) is asynchronous (see
/// <c>DivideAndConquer.CreateBinaryAsync</c>); exactly one split is set. The engines see it through the list-shaped
/// members (a two-element array each way per node).
/// </summary>
/// <typeparam name="TProblem">A problem or subproblem.</typeparam>
/// <typeparam name="TResult">The result of a (sub)problem.</typeparam>
internal sealed class BinaryAsyncDelegateDivideAndConquer<TProblem, TResult>(
    Func<TProblem, int, bool> shouldSplit,
    Func<TProblem, int, CancellationToken, ValueTask<(TProblem Left, TProblem Right)>>? splitAsync,
    Func<TProblem, int, (TProblem Left, TProblem Right)>? split,
    Func<TProblem, int, TResult> execute,
    Func<TProblem, TResult, TResult, int, CancellationToken, ValueTask<TResult>> mergeAsync,
    DivideAndConquerOptions? options)
    : DivideAndConquer<TProblem, TResult>(options)
{
    protected override bool ShouldSplit(TProblem problem, int depth) => shouldSplit(problem, depth);

    /// <summary>Not used: the engines call <see cref="SplitAsync"/>.</summary>
    protected override IReadOnlyList<TProblem> Split(TProblem problem, int depth) =>
        throw new NotSupportedException("This program's split is called through SplitAsync.");

    protected override TResult Execute(TProblem problem, int depth) => execute(problem, depth);

    /// <summary>Not used: the engines call <see cref="MergeAsync"/>.</summary>
    protected override TResult Merge(IReadOnlyList<TResult> subresults, int depth) =>
        throw new NotSupportedException("This program was created with an asynchronous merge; call MergeAsync.");

    protected override ValueTask<IReadOnlyList<TProblem>> SplitAsync(TProblem problem, int depth, CancellationToken cancellationToken)
    {
        if (split is not null)
        {
            var (left, right) = split(problem, depth);
            return new ValueTask<IReadOnlyList<TProblem>>(new[] { left, right });
        }

        var splitting = splitAsync!(problem, depth, cancellationToken);
        if (splitting.IsCompletedSuccessfully)
        {
            var (left, right) = splitting.Result;
            return new ValueTask<IReadOnlyList<TProblem>>(new[] { left, right });
        }

        return new ValueTask<IReadOnlyList<TProblem>>(AsListAsync(splitting));
    }

    protected override ValueTask<TResult> MergeAsync(TProblem problem, IReadOnlyList<TResult> subresults, int depth, CancellationToken cancellationToken)
    {
        // Invariant: the engines pass one result per subproblem of this node's split, which made two.
        System.Diagnostics.Debug.Assert(subresults.Count == 2, "A binary split has two results.");
        return mergeAsync(problem, subresults[0], subresults[1], depth, cancellationToken);
    }

    private static async Task<IReadOnlyList<TProblem>> AsListAsync(ValueTask<(TProblem Left, TProblem Right)> splitting)
    {
        // ConfigureAwait(false): this continuation only repackages the pair; the engine itself resumes the node on the
        // run's scheduler (and handles a scheduler that refuses).
        var (left, right) = await splitting.ConfigureAwait(false);
        return new[] { left, right };
    }
}
