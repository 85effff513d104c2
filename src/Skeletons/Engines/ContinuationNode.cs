using System.Diagnostics;

namespace DivCon.Skeletons.Engines;

/// <summary>
/// One node of a continuation-engine run. It first runs as the node's task (should-split, then execute or split
/// and spawn); if it split, the same object then collects its children's results and runs as the merge task.
/// </summary>
/// <typeparam name="TProblem">The program's problem type.</typeparam>
/// <typeparam name="TResult">The program's result type.</typeparam>
/// <remarks>
/// Protocol: every node reports to its parent exactly once (with a result, or without one when the run stopped).
/// A parent's <see cref="_pending"/> starts at its child count and is decremented once per report; the report
/// that brings it to zero schedules the merge. Hence the root reports, and the run completes, only after every
/// task of the run finished its user work: the run quiesces before its task completes.
/// </remarks>
internal sealed class ContinuationNode<TProblem, TResult>
{
    private static readonly Action<object?> s_process = static state => ((ContinuationNode<TProblem, TResult>)state!).Process();
    private static readonly Action<object?> s_merge = static state => ((ContinuationNode<TProblem, TResult>)state!).Merge();
    // The state of these continuations is (node, timestamp when the phase began): allocated only on the
    // asynchronous path, so that synchronous nodes do not carry the timestamp field.
    private static readonly Action<Task<IReadOnlyList<TProblem>>, object?> s_splitCompleted =
        static (task, state) =>
        {
            var (node, start) = (Tuple<ContinuationNode<TProblem, TResult>, long>)state!;
            node.OnSplitCompleted(task, start);
        };

    private static readonly Action<Task<TResult>, object?> s_mergeCompleted =
        static (task, state) =>
        {
            var (node, start) = (Tuple<ContinuationNode<TProblem, TResult>, long>)state!;
            node.OnMergeCompleted(task, start);
        };

    private readonly RunContext<TProblem, TResult> _run;
    private readonly ContinuationNode<TProblem, TResult>? _parent;
    private readonly int _indexInParent;
    private readonly int _depth;

    // The node's number when the observer reports nodes (see RunContext.NewNodeId), otherwise -1.
    private readonly int _id;

    // Cleared once consumed so that a big subproblem does not stay reachable for the rest of the run.
    private TProblem _problem;

    // Internal nodes only: one slot per child, written by the child, read by the merge.
    private TResult[]? _results;

    // Internal nodes only: children that have not reported yet.
    private int _pending;

    private ContinuationNode(RunContext<TProblem, TResult> run, ContinuationNode<TProblem, TResult>? parent, int indexInParent, TProblem problem, int depth)
    {
        _run = run;
        _parent = parent;
        _indexInParent = indexInParent;
        _problem = problem;
        _depth = depth;
        _id = run.NewNodeId();
    }

    /// <summary>The parent's node number, or -1 for the root (or when nodes are not numbered).</summary>
    private int ParentId => _parent?._id ?? -1;

    /// <summary>Starts the root task of a run; the run's task completes when the tree has finished.</summary>
    public static void StartRoot(RunContext<TProblem, TResult> run, TProblem problem)
    {
        var root = new ContinuationNode<TProblem, TResult>(run, parent: null, indexInParent: 0, problem, depth: 0);
        try
        {
            root.Start(s_process);
        }
        catch (Exception e)
        {
            // The scheduler refused the root task: nothing of the run started, so the run is over.
            run.Fail(e);
            run.Complete(default!);
        }
    }

    /// <summary>Queues this node's next step as a new task on the run's scheduler; never runs it inline.</summary>
    private void Start(Action<object?> step) =>
        Task.Factory.StartNew(step, this, CancellationToken.None, TaskCreationOptions.DenyChildAttach, _run.Scheduler);

    /// <summary>The node's task: decide, then execute (leaf) or split and spawn (internal node).</summary>
    private void Process()
    {
        var run = _run;
        if (run.ShouldStop())
        {
            ReportNoResult();
            return;
        }

        var problem = _problem;
        _problem = default!;
        bool split;
        try
        {
            split = _depth < run.MaxDepth && run.Program.ShouldSplit(problem, _depth);
        }
        catch (Exception e)
        {
            run.Fail(e);
            ReportNoResult();
            return;
        }

        if (split)
        {
            BeginSplit(problem);
        }
        else
        {
            ExecuteLeaf(problem);
        }
    }

    private void ExecuteLeaf(TProblem problem)
    {
        var run = _run;
        long start = run.StartPhase();
        TResult result;
        try
        {
            result = run.Program.Execute(problem, _depth);
        }
        catch (Exception e)
        {
            run.Fail(e);
            ReportNoResult();
            return;
        }

        if (run.EndPhase(DivideAndConquerPhase.Execute, _depth, start, _id, ParentId, _indexInParent))
        {
            Report(result);
        }
        else
        {
            ReportNoResult();
        }
    }

    private void BeginSplit(TProblem problem)
    {
        var run = _run;
        long start = run.StartPhase();
        ValueTask<IReadOnlyList<TProblem>> splitting;
        try
        {
            splitting = run.Program.SplitAsync(problem, _depth, run.Token);
        }
        catch (Exception e)
        {
            run.Fail(e);
            ReportNoResult();
            return;
        }

        if (splitting.IsCompletedSuccessfully)
        {
            var subproblems = splitting.Result;
            if (run.EndPhase(DivideAndConquerPhase.Split, _depth, start, _id, ParentId, _indexInParent))
            {
                SpawnChildren(subproblems);
            }
            else
            {
                ReportNoResult();
            }

            return;
        }

        // Not finished (or failed): continue on the run's scheduler when it completes. Not ExecuteSynchronously,
        // which would run our continuation on whatever thread completes the program's task.
        splitting.AsTask().ContinueWith(s_splitCompleted, Tuple.Create(this, start), CancellationToken.None, TaskContinuationOptions.DenyChildAttach, run.Scheduler);
    }

    private void OnSplitCompleted(Task<IReadOnlyList<TProblem>> splitting, long start)
    {
        var run = _run;
        if (!splitting.IsCompletedSuccessfully)
        {
            run.Fail(RunContext<TProblem, TResult>.ExceptionOf(splitting));
            ReportNoResult();
        }
        else if (run.EndPhase(DivideAndConquerPhase.Split, _depth, start, _id, ParentId, _indexInParent))
        {
            SpawnChildren(splitting.Result);
        }
        else
        {
            ReportNoResult();
        }
    }

    private void SpawnChildren(IReadOnlyList<TProblem>? subproblems)
    {
        var run = _run;
        int count;
        try
        {
            count = subproblems?.Count
                ?? throw new InvalidOperationException($"Split returned null at depth {_depth}; it must return at least one subproblem.");
            if (count == 0)
            {
                throw new InvalidOperationException($"Split returned no subproblems at depth {_depth}; it must return at least one (return false from ShouldSplit to execute a problem instead).");
            }
        }
        catch (Exception e)
        {
            run.Fail(e);
            ReportNoResult();
            return;
        }

        // Plain writes: each child task is queued after them, and queueing a task is a full fence (the scheduler
        // publishes the task through an interlocked queue), so every child sees the array and the count.
        _results = new TResult[count];
        _pending = count;

        int spawned = 0;
        try
        {
            for (; spawned < count; spawned++)
            {
                // Checked before every spawn: a failed or cancelled run starts nothing new.
                if (run.ShouldStop())
                {
                    break;
                }

                var child = new ContinuationNode<TProblem, TResult>(run, this, spawned, subproblems![spawned], _depth + 1);
                child.Start(s_process);
            }
        }
        catch (Exception e)
        {
            // The indexer of the program's list or the scheduler threw; that child never started.
            run.Fail(e);
        }

        if (spawned < count)
        {
            // The children never started will never report: account for them at once. Interlocked, because
            // children already started may be reporting concurrently; whoever reaches zero schedules the merge
            // (which, the run having stopped, only reports upwards).
            if (Interlocked.Add(ref _pending, spawned - count) == 0)
            {
                ScheduleMerge();
            }
        }
    }

    /// <summary>The merge task: combine the children's results (or just report upwards if the run stopped).</summary>
    private void Merge()
    {
        var run = _run;
        var results = _results!;
        _results = null;
        if (run.ShouldStop())
        {
            ReportNoResult();
            return;
        }

        long start = run.StartPhase();
        ValueTask<TResult> merging;
        try
        {
            merging = run.Program.MergeAsync(results, _depth, run.Token);
        }
        catch (Exception e)
        {
            run.Fail(e);
            ReportNoResult();
            return;
        }

        if (merging.IsCompletedSuccessfully)
        {
            var result = merging.Result;
            if (run.EndPhase(DivideAndConquerPhase.Merge, _depth, start, _id, ParentId, _indexInParent))
            {
                Report(result);
            }
            else
            {
                ReportNoResult();
            }

            return;
        }

        // As in BeginSplit: resume on the run's scheduler when the program's merge completes; no thread waits.
        merging.AsTask().ContinueWith(s_mergeCompleted, Tuple.Create(this, start), CancellationToken.None, TaskContinuationOptions.DenyChildAttach, run.Scheduler);
    }

    private void OnMergeCompleted(Task<TResult> merging, long start)
    {
        var run = _run;
        if (!merging.IsCompletedSuccessfully)
        {
            run.Fail(RunContext<TProblem, TResult>.ExceptionOf(merging));
            ReportNoResult();
        }
        else if (run.EndPhase(DivideAndConquerPhase.Merge, _depth, start, _id, ParentId, _indexInParent))
        {
            Report(merging.Result);
        }
        else
        {
            ReportNoResult();
        }
    }

    private void ScheduleMerge()
    {
        Debug.Assert(Volatile.Read(ref _pending) == 0, "A merge is scheduled only when every child has reported.");
        try
        {
            Start(s_merge);
        }
        catch (Exception e)
        {
            // The scheduler refused the merge task: report upwards from here so that the run still completes.
            _run.Fail(e);
            _results = null;
            ReportNoResult();
        }
    }

    /// <summary>Hands this node's result to its parent (or completes the run at the root).</summary>
    private void Report(TResult result)
    {
        var parent = _parent;
        if (parent is null)
        {
            _run.Complete(result);
            return;
        }

        parent._results![_indexInParent] = result;
        ReportToParent(parent);
    }

    /// <summary>Tells the parent this node is done without a result (the run failed or was cancelled).</summary>
    private void ReportNoResult()
    {
        Debug.Assert(_run.ShouldStop(), "Only a stopped run has nodes without results.");
        var parent = _parent;
        if (parent is null)
        {
            _run.Complete(default!);
            return;
        }

        ReportToParent(parent);
    }

    private static void ReportToParent(ContinuationNode<TProblem, TResult> parent)
    {
        // Interlocked.Decrement is a full fence: this child's write to its results slot (just before) cannot move
        // after it, and the child whose decrement reaches zero reads the slots only after its own decrement (in the
        // merge task it queues, another full fence), so the merge sees every sibling's result.
        if (Interlocked.Decrement(ref parent._pending) == 0)
        {
            parent.ScheduleMerge();
        }
    }
}
