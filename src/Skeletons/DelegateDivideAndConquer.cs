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

/// <summary>
/// A program of four synchronous lambdas whose splits make exactly two subproblems (see
/// <see cref="DivideAndConquer.CreateBinary{TProblem, TResult}"/>). Task nodes and observed runs see it through the
/// list-shaped members every program has (a two-element array each way, allocated per task node only); unobserved
/// inline subtrees call <see cref="Functions"/> through the allocation-free binary recursion of
/// <see cref="InlineSubtree{TProblem, TResult}"/>.
/// </summary>
/// <typeparam name="TProblem">A problem or subproblem.</typeparam>
/// <typeparam name="TResult">The result of a (sub)problem.</typeparam>
internal sealed class BinaryDelegateDivideAndConquer<TProblem, TResult>(
    Func<TProblem, int, bool> shouldSplit,
    Func<TProblem, int, (TProblem Left, TProblem Right)> split,
    Func<TProblem, int, TResult> execute,
    Func<TProblem, TResult, TResult, int, TResult> merge,
    DivideAndConquerOptions? options)
    : DivideAndConquer<TProblem, TResult>(options)
{
    /// <summary>The lambdas, for the binary inline recursion to call directly.</summary>
    internal BinaryFunctions Functions { get; } = new(shouldSplit, split, execute, merge);

    protected override bool ShouldSplit(TProblem problem, int depth) => shouldSplit(problem, depth);

    protected override IReadOnlyList<TProblem> Split(TProblem problem, int depth)
    {
        var (left, right) = split(problem, depth);
        return new[] { left, right };
    }

    protected override TResult Execute(TProblem problem, int depth) => execute(problem, depth);

    protected override TResult Merge(TProblem problem, IReadOnlyList<TResult> subresults, int depth)
    {
        // Invariant: the engines pass one result per subproblem of this node's split, which made two.
        System.Diagnostics.Debug.Assert(subresults.Count == 2, "A binary split has two results.");
        return merge(problem, subresults[0], subresults[1], depth);
    }

    /// <summary>The four lambdas as the binary inline recursion calls them.</summary>
    internal readonly struct BinaryFunctions(
        Func<TProblem, int, bool> shouldSplit,
        Func<TProblem, int, (TProblem Left, TProblem Right)> split,
        Func<TProblem, int, TResult> execute,
        Func<TProblem, TResult, TResult, int, TResult> merge)
    {
        public bool ShouldSplit(TProblem problem, int depth) => shouldSplit(problem, depth);

        public (TProblem Left, TProblem Right) Split(TProblem problem, int depth) => split(problem, depth);

        public TResult Execute(TProblem problem, int depth) => execute(problem, depth);

        public TResult Merge(TProblem problem, TResult left, TResult right, int depth) => merge(problem, left, right, depth);
    }
}
