using DivCon.Skeletons.Engines;

namespace DivCon.Skeletons;

/// <summary>A program made of four synchronous lambdas (see <see cref="DivideAndConquer"/>); exactly one merge is set.</summary>
/// <typeparam name="TProblem">A problem or subproblem.</typeparam>
/// <typeparam name="TResult">The result of a (sub)problem.</typeparam>
internal sealed class DelegateDivideAndConquer<TProblem, TResult>(
    Func<TProblem, int, bool> shouldSplit,
    Func<TProblem, int, IReadOnlyList<TProblem>> split,
    Func<TProblem, int, TResult> execute,
    Func<IReadOnlyList<TResult>, int, TResult>? merge,
    Func<TProblem, IReadOnlyList<TResult>, int, TResult>? mergeWithProblem,
    DivideAndConquerOptions? options)
    : DivideAndConquer<TProblem, TResult>(options)
{
    /// <summary>The lambdas, for the inline recursion to call directly.</summary>
    internal LambdaFunctions Functions { get; } = new(shouldSplit, split, execute, merge, mergeWithProblem);

    protected override bool ShouldSplit(TProblem problem, int depth) => shouldSplit(problem, depth);

    protected override IReadOnlyList<TProblem> Split(TProblem problem, int depth) => split(problem, depth);

    protected override TResult Execute(TProblem problem, int depth) => execute(problem, depth);

    protected override TResult Merge(TProblem problem, IReadOnlyList<TResult> subresults, int depth) =>
        mergeWithProblem is not null ? mergeWithProblem(problem, subresults, depth) : merge!(subresults, depth);

    /// <summary>The four lambdas as the inline recursion calls them.</summary>
    internal readonly struct LambdaFunctions(
        Func<TProblem, int, bool> shouldSplit,
        Func<TProblem, int, IReadOnlyList<TProblem>> split,
        Func<TProblem, int, TResult> execute,
        Func<IReadOnlyList<TResult>, int, TResult>? merge,
        Func<TProblem, IReadOnlyList<TResult>, int, TResult>? mergeWithProblem) : IUserFunctions<TProblem, TResult>
    {
        public bool ShouldSplit(TProblem problem, int depth) => shouldSplit(problem, depth);

        public IReadOnlyList<TProblem> Split(TProblem problem, int depth) => split(problem, depth);

        public TResult Execute(TProblem problem, int depth) => execute(problem, depth);

        public TResult Merge(TProblem problem, IReadOnlyList<TResult> subresults, int depth) =>
            mergeWithProblem is not null ? mergeWithProblem(problem, subresults, depth) : merge!(subresults, depth);
    }
}
