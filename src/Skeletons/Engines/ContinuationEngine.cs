namespace DivCon.Skeletons.Engines;

/// <summary>
/// The non-blocking engine: one task per node, the last child to finish schedules its parent's merge, only the
/// root has a <see cref="TaskCompletionSource{TResult}"/>. See <see cref="ContinuationNode{TProblem, TResult}"/>.
/// </summary>
/// <typeparam name="TProblem">The program's problem type.</typeparam>
/// <typeparam name="TResult">The program's result type.</typeparam>
internal static class ContinuationEngine<TProblem, TResult>
{
    public static Task<TResult> Run(DivideAndConquer<TProblem, TResult> program, TProblem problem, DivideAndConquerOptions options, RunGranularity granularity, CancellationToken cancellationToken)
    {
        var run = new RunContext<TProblem, TResult>(program, options, granularity, cancellationToken);
        ContinuationNode<TProblem, TResult>.StartRoot(run, problem);
        return run.Task;
    }
}
