namespace DivCon.Skeletons.Engines;

/// <summary>
/// The blocking engine (start children, wait for them, merge), kept to measure against the continuation engine.
/// See <see cref="ForkJoinNode{TProblem, TResult}"/> and the warning on <see cref="DivideAndConquer{TProblem, TResult}"/>.
/// </summary>
/// <typeparam name="TProblem">The program's problem type.</typeparam>
/// <typeparam name="TResult">The program's result type.</typeparam>
internal static class ForkJoinEngine<TProblem, TResult>
{
    public static Task<TResult> Run(DivideAndConquer<TProblem, TResult> program, TProblem problem, DivideAndConquerOptions options, RunGranularity granularity, CancellationToken cancellationToken)
    {
        var run = new RunContext<TProblem, TResult>(program, options, granularity, cancellationToken);
        ForkJoinNode<TProblem, TResult>.StartRoot(run, problem);
        return run.Task;
    }
}
