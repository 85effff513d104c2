namespace DivCon.Skeletons;

/// <summary>
/// A program whose split and merge are asynchronous lambdas (see
/// <c>DivideAndConquer.CreateAsync</c>); exactly one merge is set.
/// </summary>
/// <typeparam name="TProblem">A problem or subproblem.</typeparam>
/// <typeparam name="TResult">The result of a (sub)problem.</typeparam>
internal sealed class AsyncDelegateDivideAndConquer<TProblem, TResult>(
    Func<TProblem, int, bool> shouldSplit,
    Func<TProblem, int, CancellationToken, ValueTask<IReadOnlyList<TProblem>>> splitAsync,
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
        splitAsync(problem, depth, cancellationToken);

    protected override ValueTask<TResult> MergeAsync(TProblem problem, IReadOnlyList<TResult> subresults, int depth, CancellationToken cancellationToken) =>
        mergeWithProblemAsync is not null
            ? mergeWithProblemAsync(problem, subresults, depth, cancellationToken)
            : mergeAsync!(subresults, depth, cancellationToken);
}
