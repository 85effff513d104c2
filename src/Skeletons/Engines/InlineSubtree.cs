using System.Runtime.CompilerServices;

namespace DivCon.Skeletons.Engines;

/// <summary>
/// Serial elision: runs a subtree depth-first on the current thread with the program's own should-split, split,
/// execute and merge, in the order a task run would call them, with no task and no allocation besides the program's
/// own and the list of subresults each merge receives (which a plain recursion allocates too; a binary program's
/// recursion passes its two results in locals and allocates nothing).
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
#if NETCOREAPP
    private const int StackCheckMask = 31;
#else
    private const int StackCheckMask = 31;

    // netstandard2.0 runtimes (Mono in particular) may not detect a thread's stack end, so
    // EnsureSufficientExecutionStack can return while the stack overflows: an inline recursion this deep fails the
    // run with InsufficientExecutionStackException instead (far deeper than any balanced divide and conquer).
    private const int LegacyInlineDepthLimit = 1000;
#endif

    /// <summary>
    /// Runs the subtree of a node that has decided to split. Returns false when the run stopped (nothing more to do:
    /// the caller reports without a result); <paramref name="nodes"/> grows by the subtree's nodes below its root when the run is observed (only the observer reads that count).
    /// The root's position (<paramref name="root"/>) is reported with its phases; its numbers are -1 unless the
    /// observer numbers nodes (see <see cref="RunContext{TProblem, TResult}.NewNodeId"/>).
    /// </summary>
    public static bool TrySolveSplitting(RunContext<TProblem, TResult> run, TProblem problem, NodePosition root, long size, ref long nodes, out TResult result)
    {
        int depth = root.Depth;
        // A lambda program's functions are called directly, without the virtual call of the subclass model in front
        // of each: the generic recursion is compiled once per struct, so neither form pays for the other.
        // Unobserved runs of programs that report no size (the common case, and the one whose nodes are cheapest)
        // take the bare recursion: none of the per-node tests for an observer or for sizes.
        bool bare = run.Observer is null && size < 0;
        if (bare && run.Program is BinaryDelegateDivideAndConquer<TProblem, TResult> binary)
        {
            var pair = binary.Functions;
            return TrySolveBareBinary(run, in pair, problem, depth, out result);
        }

        if (run.Program is DelegateDivideAndConquer<TProblem, TResult> lambdas)
        {
            var functions = lambdas.Functions;
            return bare
                ? TrySolveBareSplitting(run, in functions, problem, depth, ref nodes, out result)
                : TrySolveSplitting(run, in functions, problem, root, size, ref nodes, out result);
        }

        var overrides = new ProgramFunctions<TProblem, TResult>(run.Program);
        return bare
            ? TrySolveBareSplitting(run, in overrides, problem, depth, ref nodes, out result)
            : TrySolveSplitting(run, in overrides, problem, root, size, ref nodes, out result);
    }

    /// <summary>
    /// The checks every inline node that splits makes before its split: the stack (every
    /// <see cref="StackCheckMask"/> + 1 levels; throws <see cref="InsufficientExecutionStackException"/>, which fails
    /// the run, instead of overflowing), the netstandard2.0 depth limit, and the run's recursion limit.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void CheckDepth(RunContext<TProblem, TResult> run, int depth)
    {
        if ((depth & StackCheckMask) == 0)
        {
            RuntimeHelpers.EnsureSufficientExecutionStack();
        }

#if !NETCOREAPP
        if (depth >= LegacyInlineDepthLimit)
        {
            throw new InsufficientExecutionStackException(
                $"An inline recursion reached depth {depth}; on this target (netstandard2.0) inline subtrees stop at depth {LegacyInlineDepthLimit} instead of risking a stack overflow.");
        }
#endif

        if (depth >= run.RecursionLimit)
        {
            run.CheckRecursionLimit(depth);
        }
    }

    /// <summary>
    /// <see cref="TrySolveSplitting{TFunctions}"/> for an unobserved run of a program without sizes (leaves
    /// <paramref name="nodes"/> as it is: the count is reported only to an observer): the same calls
    /// in the same order and the same checks (stack, recursion limit, children, the stop flag at every node and
    /// before every merge), with nothing else per node. The stop flag is one load: the run turns a cancellation
    /// request into its stop reason as it happens (see <see cref="RunContext{TProblem, TResult}.IsStopped"/>).
    /// </summary>
    private static bool TrySolveBareSplitting<TFunctions>(
        RunContext<TProblem, TResult> run, in TFunctions functions, TProblem problem, int depth, ref long nodes, out TResult result)
        where TFunctions : struct, IUserFunctions<TProblem, TResult>
    {
        result = default!;
        CheckDepth(run, depth);
        var subproblems = functions.Split(problem, depth);
        int count = subproblems?.Count ?? 0;
        if (count == 0)
        {
            // Throws: no children (or none at all).
            run.CheckChildren(subproblems, depth, -1);
        }

        var subresults = new TResult[count];
        int maxDepth = run.MaxDepth;
        for (int i = 0; i < count; i++)
        {
            // The child node, unrolled here (the same steps as TrySolve): its stop check, its decision, then its
            // execute or its own subtree. Not counted in nodes: only an observer reads the count, and there is none.
            if (run.IsStopped())
            {
                return false;
            }

            var child = subproblems![i];
            if (depth + 1 < maxDepth && functions.ShouldSplit(child, depth + 1))
            {
                if (!TrySolveBareSplitting(run, in functions, child, depth + 1, ref nodes, out subresults[i]))
                {
                    return false;
                }
            }
            else
            {
                subresults[i] = functions.Execute(child, depth + 1);
            }
        }

        if (run.IsStopped())
        {
            return false;
        }

        result = functions.Merge(problem, subresults, depth);
        return true;
    }

    /// <summary>
    /// The bare recursion of a binary program (<see cref="DivideAndConquer.CreateBinary{TProblem, TResult}"/>): the
    /// same calls in the same order as <see cref="TrySolveBareSplitting{TFunctions}"/>, the same stack and recursion
    /// checks, and every node checks the stop flag before its split or its execute, with the two children and their
    /// results in locals, so a node allocates nothing that the program's own functions do not. Two differences keep
    /// it as cheap as the same functions called by hand (one flag load per node instead of about 1.5, values
    /// returned instead of flags): a stop found at a node unwinds the recursion with <see cref="InlineStopped"/>,
    /// caught here once per subtree (a stop is rare and ends the run's work anyway), and a node whose children have
    /// both completed merges without a further check (its merge is the end of work already done; the caller checks
    /// again before using the result).
    /// </summary>
    private static bool TrySolveBareBinary(
        RunContext<TProblem, TResult> run, in BinaryDelegateDivideAndConquer<TProblem, TResult>.BinaryFunctions functions, TProblem problem, int depth, out TResult result)
    {
        try
        {
            result = SolveBareBinary(run, in functions, problem, depth);
            return true;
        }
        catch (InlineStopped)
        {
            result = default!;
            return false;
        }
    }

    /// <summary>One node of <see cref="TrySolveBareBinary"/> that has decided to split, and its subtree.</summary>
    /// <exception cref="InlineStopped">The run stopped (failed elsewhere or cancelled).</exception>
    private static TResult SolveBareBinary(
        RunContext<TProblem, TResult> run, in BinaryDelegateDivideAndConquer<TProblem, TResult>.BinaryFunctions functions, TProblem problem, int depth)
    {
        StopCheck(run);
        CheckDepth(run, depth);
        var (leftProblem, rightProblem) = functions.Split(problem, depth);
        int childDepth = depth + 1;
        bool splitChildren = childDepth < run.MaxDepth;
        TResult left = splitChildren && functions.ShouldSplit(leftProblem, childDepth)
            ? SolveBareBinary(run, in functions, leftProblem, childDepth)
            : ExecuteBinaryLeaf(run, in functions, leftProblem, childDepth);
        TResult right = splitChildren && functions.ShouldSplit(rightProblem, childDepth)
            ? SolveBareBinary(run, in functions, rightProblem, childDepth)
            : ExecuteBinaryLeaf(run, in functions, rightProblem, childDepth);
        return functions.Merge(problem, left, right, depth);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static TResult ExecuteBinaryLeaf(
        RunContext<TProblem, TResult> run, in BinaryDelegateDivideAndConquer<TProblem, TResult>.BinaryFunctions functions, TProblem problem, int depth)
    {
        StopCheck(run);
        return functions.Execute(problem, depth);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void StopCheck(RunContext<TProblem, TResult> run)
    {
        if (run.IsStopped())
        {
            ThrowStopped();
        }
    }

    // Out of line so that the check stays a load and a branch in the recursion.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowStopped() => throw new InlineStopped();

    private static bool TrySolveSplitting<TFunctions>(
        RunContext<TProblem, TResult> run, in TFunctions functions, TProblem problem, NodePosition node, long size, ref long nodes, out TResult result)
        where TFunctions : struct, IUserFunctions<TProblem, TResult>
    {
        int depth = node.Depth;
        result = default!;
        CheckDepth(run, depth);

        // Without an observer the phases are called bare: this is the path serial elision is for.
        bool observed = run.Observer is not null;
        IReadOnlyList<TProblem> subproblems;
        if (observed)
        {
            var split = run.StartPhase(DivideAndConquerPhase.Split, node);
            subproblems = functions.Split(problem, depth);
            if (!run.EndPhase(split))
            {
                return false;
            }
        }
        else
        {
            subproblems = functions.Split(problem, depth);
        }

        int count = subproblems?.Count ?? 0;
        if (count == 0 || size >= 0)
        {
            // The checks that can fail: no children, or (sizes known) a child that did not shrink.
            count = run.CheckChildren(subproblems, depth, size);
        }

        var subresults = new TResult[count];
        for (int i = 0; i < count; i++)
        {
            // Inline nodes are numbered only when observed (the trace recorder sees every node, task or inline).
            int childId = observed ? run.NewNodeId() : -1;
            if (!TrySolve(run, in functions, subproblems![i], node.Child(childId, i), ref nodes, out subresults[i]))
            {
                return false;
            }
        }

        if (run.ShouldStop())
        {
            return false;
        }

        if (!observed)
        {
            result = functions.Merge(problem, subresults, depth);
            return true;
        }

        var merge = run.StartPhase(DivideAndConquerPhase.Merge, node);
        result = functions.Merge(problem, subresults, depth);
        return run.EndPhase(merge);
    }

    /// <summary>Runs one node of an inline subtree (and its own subtree).</summary>
    private static bool TrySolve<TFunctions>(
        RunContext<TProblem, TResult> run, in TFunctions functions, TProblem problem, NodePosition node, ref long nodes, out TResult result)
        where TFunctions : struct, IUserFunctions<TProblem, TResult>
    {
        int depth = node.Depth;
        nodes++;
        if (run.ShouldStop())
        {
            result = default!;
            return false;
        }

        if (depth < run.MaxDepth && functions.ShouldSplit(problem, depth))
        {
            return TrySolveSplitting(run, in functions, problem, node, run.ReportsSizes ? run.Program.SizeOf(problem) : -1, ref nodes, out result);
        }

        if (run.Observer is null)
        {
            result = functions.Execute(problem, depth);
            return true;
        }

        var execute = run.StartPhase(DivideAndConquerPhase.Execute, node);
        result = functions.Execute(problem, depth);
        return run.EndPhase(execute);
    }
}

/// <summary>
/// Unwinds a binary inline recursion whose run has stopped; thrown and caught only inside
/// <see cref="InlineSubtree{TProblem, TResult}"/> (never reaches the program or the run's task).
/// </summary>
internal sealed class InlineStopped : Exception
{
    public InlineStopped()
        : base("The run stopped while an inline subtree was running.")
    {
    }
}
