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

    // Learning runs only: the subtree's summed work in Stopwatch ticks, written by the node's task before it finishes
    // and read by its parent after the wait for it returned (task completion orders the two).
    private long _ticks;

    private ForkJoinNode(RunContext<TProblem, TResult> run, TProblem problem, int depth, int parentId = -1, int indexInParent = 0)
    {
        _run = run;
        _problem = problem;
        _depth = depth;
        _parentId = parentId;
        _indexInParent = indexInParent;
        _id = run.NewNodeId();
    }

    private NodePosition Position => new(_id, _parentId, _indexInParent, _depth);

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
        run.CountTaskNode();
        // The run's granularity is current on this thread while the node calls the program; restored after (a wait
        // may inline another run's task on this thread).
        var previous = RunGranularity.Enter(run.Granularity);
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
            RunGranularity.Restore(previous);
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
        bool split = _depth < run.MaxDepth && program.InvokeShouldSplit(problem, _depth);
        long size = -1;
        bool inline = false;
        if (split)
        {
            run.CheckRecursionLimit(_depth);
            size = run.ReportsSizes ? program.SizeOf(problem) : -1;
            inline = run.Granularity.ShouldInline(_depth, size);
            // A program whose execute solves any problem executes a subtree predicted cheap, as a leaf.
            split = !(inline && run.ExecutesInlineSubtrees);
        }

        if (!split)
        {
            long leafSize = run.Learns && run.ReportsSizes ? (size >= 0 ? size : program.SizeOf(problem)) : -1;
            long leafLearning = run.StartLearning();
            var executePhase = run.StartPhase(DivideAndConquerPhase.Execute, Position);
            var leafResult = program.InvokeExecute(problem, _depth);
            run.EndPhase(executePhase);
            if (run.Learns)
            {
                _ticks = run.Elapsed(leafLearning);
                run.Granularity.Costs!.AddLeaf(leafSize, _ticks);
                run.Granularity.Costs.AddSubtree(_depth, Math.Max(leafSize, 1), _ticks);
            }

            return leafResult;
        }

        // An asynchronous program's subtrees are never inline here: this engine waits for its phases anyway.
        if (!run.Granularity.AsynchronousPhases && inline)
        {
            return SolveInline(run, problem, size);
        }

        long learning = run.StartLearning();
        var splitPhase = run.StartPhase(DivideAndConquerPhase.Split, Position);
        ValueTask<IReadOnlyList<TProblem>> splitting = run.InvokeSplitAsync(_id, problem, _depth);

        // This engine blocks by design: an unfinished asynchronous split is waited for on this thread.
        var subproblems = splitting.IsCompletedSuccessfully ? splitting.Result : WaitFor(splitting, run.Token);
        if (!run.EndPhase(splitPhase))
        {
            return default!;
        }

        long ownTicks = run.Elapsed(learning);
        int count = run.CheckChildren(subproblems, _depth, size);
        var children = new Task<TResult>[count];
        var nodes = run.Learns ? new ForkJoinNode<TProblem, TResult>[count] : null;
        for (int i = 0; i < count; i++)
        {
            if (run.ShouldStop())
            {
                // Children already started finish on their own and are counted by the run; nothing waits for them.
                return default!;
            }

            var child = new ForkJoinNode<TProblem, TResult>(run, subproblems![i], _depth + 1, _id, i);
            if (nodes is not null)
            {
                nodes[i] = child;
            }

            children[i] = child.StartChild();
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

        long mergeLearning = run.StartLearning();
        var mergePhase = run.StartPhase(DivideAndConquerPhase.Merge, Position);
        ValueTask<TResult> merging = run.InvokeMergeAsync(_id, problem, subresults, _depth);

        var result = merging.IsCompletedSuccessfully ? merging.Result : WaitFor(merging, run.Token);
        run.EndPhase(mergePhase);
        if (nodes is not null)
        {
            long ticks = ownTicks + run.Elapsed(mergeLearning);
            foreach (var node in nodes)
            {
                ticks += node._ticks;
            }

            _ticks = ticks;
            run.Granularity.Costs!.AddSubtree(_depth, Math.Max(size, 1), ticks);
        }

        return result;
    }

    /// <summary>Runs this node's whole subtree on this thread (serial elision); default when the run stopped.</summary>
    private TResult SolveInline(RunContext<TProblem, TResult> run, TProblem problem, long size)
    {
        long nodes = 0;
        long learning = run.StartLearning();
        bool completed;
        TResult result;
        // The subtree's splits and merges are calls of an inline node: loops they start run on this thread (RunFamily).
        RunFamily.BeginInlineCall();
        try
        {
            completed = InlineSubtree<TProblem, TResult>.TrySolveSplitting(run, problem, Position, size, ref nodes, out result);
        }
        finally
        {
            RunFamily.EndInlineCall();
            run.CountInlineNodes(nodes);
        }

        if (completed && run.Learns)
        {
            _ticks = run.Elapsed(learning);
            run.Granularity.Costs!.AddSubtree(_depth, Math.Max(size, 1), _ticks);
            // An inline subtree is also a leaf sample (an upper bound on its leaves' cost per unit; ignored without sizes),
            // so a run whose leaves all run inline still learns their cost and can pass it to its next run.
            run.Granularity.Costs.AddLeaf(size, _ticks);
        }

        return completed ? result : default!;
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
