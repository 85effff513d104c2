namespace DivCon.Skeletons;

/// <summary>A program made of four synchronous lambdas (see <see cref="DivideAndConquer.Create{TProblem, TResult}"/>).</summary>
/// <typeparam name="TProblem">A problem or subproblem.</typeparam>
/// <typeparam name="TResult">The result of a (sub)problem.</typeparam>
internal sealed class DelegateDivideAndConquer<TProblem, TResult>(
    Func<TProblem, int, bool> shouldSplit,
    Func<TProblem, int, IReadOnlyList<TProblem>> split,
    Func<TProblem, int, TResult> execute,
    Func<IReadOnlyList<TResult>, int, TResult> merge,
    DivideAndConquerOptions? options)
    : DivideAndConquer<TProblem, TResult>(options)
{
    protected internal override bool ShouldSplit(TProblem problem, int depth) => shouldSplit(problem, depth);

    protected internal override IReadOnlyList<TProblem> Split(TProblem problem, int depth) => split(problem, depth);

    protected internal override TResult Execute(TProblem problem, int depth) => execute(problem, depth);

    protected internal override TResult Merge(IReadOnlyList<TResult> subresults, int depth) => merge(subresults, depth);
}
