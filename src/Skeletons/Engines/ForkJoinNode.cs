namespace DivCon.Skeletons.Engines;

/// <summary>
/// One node of a fork-join run: the classic blocking recursion. An internal node starts one task per child,
/// waits for each of them, then merges, all on the same thread.
/// </summary>
/// <typeparam name="TProblem">The program's problem type.</typeparam>
/// <typeparam name="TResult">The program's result type.</typeparam>
/// <remarks>
/// The wait is <see cref="Task.WaitAll(Task[], CancellationToken)"/>. Without a cancellable token TPL first offers
/// each unstarted child to the scheduler for inlining on the waiting thread; with one it never does (TPL's rule),
/// and the thread simply blocks. Either way a scheduler that does not inline leaves the thread blocked. Every
/// node task catches everything (recording the first failure in the run) and reports to the run's task counter,
/// so the run's task completes only when all its tasks have finished, even when a cancelled wait let a parent
/// return before its children.
/// </remarks>
internal sealed class ForkJoinNode<TProblem, TResult>
{
    private static readonly Func<object?, TResult> s_process = static state => ((ForkJoinNode<TProblem, TResult>)state!).Process();

    private readonly RunContext<TProblem, TResult> _run;
    private readonly int _depth;

    // Node numbers when the observer reports nodes (see RunContext.NewNodeId), otherwise -1.
    private readonly int _id;
    private readonly int _parentId;
    private readonly int _indexInParent;
    private TProblem _problem;

    private ForkJoinNode(RunContext<TProblem, TResult> run, TProblem problem, int depth, int parentId = -1, int indexInParent = 0)
    {
        _run = run;
        _problem = problem;
        _depth = depth;
        _parentId = parentId;
        _indexInParent = indexInParent;
        _id = run.NewNodeId();
    }

    /// <summary>Starts the root task of a run.</summary>
    public static void StartRoot(RunContext<TProblem, TResult> run, TProblem problem)
    {
        var root = new ForkJoinNode<TProblem, TResult>(run, problem, depth: 0);
        run.ForkJoinTaskStarting();
        try
        {
            root.Queue();
        }
        catch (Exception e)
        {
            // The scheduler refused the root: record why before the count reaches zero and completes the run.
            run.Fail(e);
            run.ForkJoinTaskFinished();
        }
    }

    /// <summary>
    /// Counts and queues a child's task; if the scheduler refuses it, it counts as finished at once (the parent is
    /// still counted, so this cannot complete the run before the parent records the failure).
    /// </summary>
    private Task<TResult> StartChild()
    {
        _run.ForkJoinTaskStarting();
        try
        {
            return Queue();
        }
        catch
        {
            _run.ForkJoinTaskFinished();
            throw;
        }
    }

    private Task<TResult> Queue() =>
        Task.Factory.StartNew(s_process, this, CancellationToken.None, TaskCreationOptions.DenyChildAttach, _run.Scheduler);

    private TResult Process()
    {
        var run = _run;
        try
        {
            var result = Solve(run);
            if (_depth == 0)
            {
                run.ForkJoinSetRootResult(result);
            }

            return result;
        }
        catch (Exception e)
        {
            run.Fail(e);
            return default!;
        }
        finally
        {
            run.ForkJoinTaskFinished();
        }
    }

    private TResult Solve(RunContext<TProblem, TResult> run)
    {
        if (run.ShouldStop())
        {
            return default!;
        }

        var problem = _problem;
        _problem = default!;
        var program = run.Program;
        if (_depth >= run.MaxDepth || !program.ShouldSplit(problem, _depth))
        {
            long executeStart = run.StartPhase();
            var leafResult = program.Execute(problem, _depth);
            run.EndPhase(DivideAndConquerPhase.Execute, _depth, executeStart, _id, _parentId, _indexInParent);
            return leafResult;
        }

        long splitStart = run.StartPhase();
        var splitting = program.SplitAsync(problem, _depth, run.Token);
        // This engine blocks by design: an unfinished asynchronous split is waited for on this thread.
        var subproblems = splitting.IsCompletedSuccessfully ? splitting.Result : WaitFor(splitting, run.Token);
        if (!run.EndPhase(DivideAndConquerPhase.Split, _depth, splitStart, _id, _parentId, _indexInParent))
        {
            return default!;
        }

        int count = subproblems?.Count
            ?? throw new InvalidOperationException($"Split returned null at depth {_depth}; it must return at least one subproblem.");
        if (count == 0)
        {
            throw new InvalidOperationException($"Split returned no subproblems at depth {_depth}; it must return at least one (return false from ShouldSplit to execute a problem instead).");
        }

        var children = new Task<TResult>[count];
        for (int i = 0; i < count; i++)
        {
            if (run.ShouldStop())
            {
                // Children already started finish on their own and are counted by the run; nothing waits for them.
                return default!;
            }

            children[i] = new ForkJoinNode<TProblem, TResult>(run, subproblems![i], _depth + 1, _id, i).StartChild();
        }

        // Blocks this thread. Children never fault (their Process catches everything), so the waits only return or,
        // with a cancellable token, throw OperationCanceledException for the run's token, which Process records as
        // the run's cancellation. TPL offers inlining (running a not-yet-started child on this thread instead of
        // blocking) only to infinite waits without a cancellable token, hence the two forms.
        if (run.Token.CanBeCanceled)
        {
            Task.WaitAll(children, run.Token);
        }
        else
        {
            Task.WaitAll(children);
        }

        var subresults = new TResult[count];
        for (int i = 0; i < count; i++)
        {
            subresults[i] = children[i].Result;
        }

        if (run.ShouldStop())
        {
            return default!;
        }

        long mergeStart = run.StartPhase();
        var merging = program.MergeAsync(subresults, _depth, run.Token);
        var result = merging.IsCompletedSuccessfully ? merging.Result : WaitFor(merging, run.Token);
        run.EndPhase(DivideAndConquerPhase.Merge, _depth, mergeStart, _id, _parentId, _indexInParent);
        return result;
    }

    /// <summary>
    /// Blocks until an unfinished asynchronous split or merge completes, or until the run is cancelled (then throws
    /// OperationCanceledException for the run's token; the program's task is abandoned and may still finish later).
    /// Rethrows the program's own exception, not an AggregateException.
    /// </summary>
    private static T WaitFor<T>(ValueTask<T> pending, CancellationToken cancellationToken)
    {
        var task = pending.AsTask();
        if (cancellationToken.CanBeCanceled && !task.IsCompleted)
        {
            try
            {
                task.Wait(cancellationToken);
            }
            catch (AggregateException)
            {
                // The program's task failed: GetResult below rethrows its original exception.
            }
        }

        return task.GetAwaiter().GetResult();
    }
}
