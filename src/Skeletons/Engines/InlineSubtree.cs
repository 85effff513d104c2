using System.Runtime.CompilerServices;

namespace DivCon.Skeletons.Engines;

/// <summary>
/// Serial elision: runs a subtree depth-first on the current thread with the program's own should-split, split,
/// execute and merge, in the order a task run would call them, with no task and no allocation besides the program's
/// own and the list of subresults each merge receives (which a plain recursion allocates too).
/// </summary>
/// <typeparam name="TProblem">The program's problem type.</typeparam>
/// <typeparam name="TResult">The program's result type.</typeparam>
/// <remarks>
/// Each node checks the run's stop flag first, exactly as a task node does, so a failure elsewhere or a cancellation
/// stops an inline subtree at its next node. An exception of the program propagates out of the recursion to the
/// task that started it, which records it as the run's failure like any task node. The observer, when set, gets
/// every phase of every inline node; without one the subtree reads the clock only around itself (in the caller).
/// </remarks>
internal static class InlineSubtree<TProblem, TResult>
{
    /// <summary>How often (in levels) the recursion checks that its thread has stack left.</summary>
    private const int StackCheckMask = 31;

    /// <summary>
    /// Runs the subtree of a node that has decided to split. Returns false when the run stopped (nothing more to do:
    /// the caller reports without a result); <paramref name="nodes"/> grows by the subtree's nodes below its root.
    /// </summary>
    public static bool TrySolveSplitting(RunContext<TProblem, TResult> run, TProblem problem, int depth, long size, ref long nodes, out TResult result)
    {
        result = default!;
        if ((depth & StackCheckMask) == 0)
        {
            // Throws InsufficientExecutionStackException (which fails the run) instead of overflowing the stack.
            RuntimeHelpers.EnsureSufficientExecutionStack();
        }

        run.CheckRecursionLimit(depth);
        var program = run.Program;
        long start = run.StartPhase();
        var subproblems = program.InvokeSplit(problem, depth);
        if (!run.EndPhase(DivideAndConquerPhase.Split, depth, start))
        {
            return false;
        }

        int count = run.CheckChildren(subproblems, depth, size);
        var subresults = new TResult[count];
        for (int i = 0; i < count; i++)
        {
            if (!TrySolve(run, subproblems[i], depth + 1, ref nodes, out subresults[i]))
            {
                return false;
            }
        }

        if (run.ShouldStop())
        {
            return false;
        }

        start = run.StartPhase();
        result = program.InvokeMerge(problem, subresults, depth);
        return run.EndPhase(DivideAndConquerPhase.Merge, depth, start);
    }

    /// <summary>Runs one node of an inline subtree (and its own subtree).</summary>
    private static bool TrySolve(RunContext<TProblem, TResult> run, TProblem problem, int depth, ref long nodes, out TResult result)
    {
        nodes++;
        if (run.ShouldStop())
        {
            result = default!;
            return false;
        }

        var program = run.Program;
        if (depth < run.MaxDepth && program.InvokeShouldSplit(problem, depth))
        {
            return TrySolveSplitting(run, problem, depth, run.ReportsSizes ? program.SizeOf(problem) : -1, ref nodes, out result);
        }

        long start = run.StartPhase();
        result = program.InvokeExecute(problem, depth);
        return run.EndPhase(DivideAndConquerPhase.Execute, depth, start);
    }
}
