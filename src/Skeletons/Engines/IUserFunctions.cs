namespace DivCon.Skeletons.Engines;

/// <summary>
/// The four functions of a program as the inline recursion calls them. Implemented by structs so that the generic
/// recursion is specialised per form and the calls are direct: <see cref="ProgramFunctions{TProblem, TResult}"/>
/// (the subclass model's virtual members) and the delegates of a lambda program.
/// </summary>
/// <typeparam name="TProblem">The program's problem type.</typeparam>
/// <typeparam name="TResult">The program's result type.</typeparam>
internal interface IUserFunctions<TProblem, TResult>
{
    bool ShouldSplit(TProblem problem, int depth);

    IReadOnlyList<TProblem> Split(TProblem problem, int depth);

    TResult Execute(TProblem problem, int depth);

    TResult Merge(TProblem problem, IReadOnlyList<TResult> subresults, int depth);
}

/// <summary>A program's (overridden) members.</summary>
/// <typeparam name="TProblem">The program's problem type.</typeparam>
/// <typeparam name="TResult">The program's result type.</typeparam>
internal readonly struct ProgramFunctions<TProblem, TResult>(DivideAndConquer<TProblem, TResult> program) : IUserFunctions<TProblem, TResult>
{
    public bool ShouldSplit(TProblem problem, int depth) => program.InvokeShouldSplit(problem, depth);

    public IReadOnlyList<TProblem> Split(TProblem problem, int depth) => program.InvokeSplit(problem, depth);

    public TResult Execute(TProblem problem, int depth) => program.InvokeExecute(problem, depth);

    public TResult Merge(TProblem problem, IReadOnlyList<TResult> subresults, int depth) => program.InvokeMerge(problem, subresults, depth);
}
