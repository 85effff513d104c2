using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace DivCon.Skeletons.Engines;

/// <summary>
/// One node of a continuation-engine run. It first runs as the node's task (should-split, then execute, or split
/// and spawn, or run its whole subtree inline when the run's granularity says so); if it spawned, the same object
/// then collects its children's results and runs as the merge task.
/// </summary>
/// <typeparam name="TProblem">The program's problem type.</typeparam>
/// <typeparam name="TResult">The program's result type.</typeparam>
/// <remarks>
/// Protocol: every node reports to its parent exactly once (with a result, or without one when the run stopped).
/// That is structural: every way a node ends goes through <see cref="TryFinish"/>, whose exchange of
/// <see cref="_reported"/> lets only the first caller report; a second would be refused there instead of counting the
/// parent down twice (which would merge before a sibling reported and complete the run while a task still runs).
/// A parent's <see cref="_pending"/> starts at its child count and is decremented once per report; the report
/// that brings it to zero schedules the merge. Hence the root reports, and the run completes, only after every
/// task of the run finished its user work: the run quiesces before its task completes. When the run learns costs
/// (time-based granularity), every report also carries the reporting subtree's summed work in Stopwatch ticks,
/// added to the parent's <see cref="_ticks"/> before the countdown (the same fence publishes both).
/// Every place a task is queued on the run's scheduler (the root, each child, each merge, each resumption after an
/// unfinished asynchronous split or merge) catches a refusal, fails the run with it, and reports on the refusing
/// thread instead, so a refusal can never leave a parent waiting for a report.
/// <para><b>Inline subtrees of asynchronous programs.</b> A synchronous program's inline subtree is a plain recursion
/// (<see cref="InlineSubtree{TProblem, TResult}"/>). A program whose split or merge is asynchronous cannot be run that
/// way (a split may complete later), so a node whose subtree the granularity runs inline becomes an <i>inline root</i>:
/// its children are processed by direct calls on the same thread instead of tasks, and a merge whose last child
/// reported is called directly instead of queued. The protocol is unchanged (the same countdown, the same reports),
/// so a split or merge that does not complete at once suspends its node exactly as in a task node (see
/// <see cref="PendingPhase{T}"/>), and the rest of the subtree goes on from the resumption task on the run's
/// scheduler. A split or merge that completes at once costs no task. Nodes inside such a subtree do not time
/// themselves: the inline root measures its whole subtree (wall time, which counts any wait for an unfinished phase
/// as work: an overestimate, so a subtree that waited tends to become tasks next time). When the thread's stack runs
/// short, a child is queued as a task instead of called.</para>
/// <para><b>Counting for nested loops.</b> Every task this engine queues for the run (node, sibling batch, merge,
/// resumption) is counted in the run's <see cref="RunFamily"/> from before it is queued until its delegate returns,
/// and its delegate makes the family current on its thread; an inline node marks its calls of split and merge. Both
/// are hints for <see cref="NestedLoop.RunsSequentially"/> and change nothing of this protocol.</para>
/// </remarks>
internal sealed class ContinuationNode<TProblem, TResult>
{
    // Every task of the run is counted in its family while queued or running (see RunFamily).
    private static readonly Action<object?> s_process = static state =>
    {
        var node = (ContinuationNode<TProblem, TResult>)state!;
        using (RunFamily.EnterTask(node._run.Family))
        {
            node.Process();
        }
    };

    private static readonly Action<object?> s_merge = static state =>
    {
        var node = (ContinuationNode<TProblem, TResult>)state!;
        using (RunFamily.EnterTask(node._run.Family))
        {
            node.Merge();
        }
    };
    // Resumptions after an unfinished asynchronous split or merge (see PendingPhase).
    // The long: when the program's task completed (0 when the run is not observed, like the phase's start).
    private static readonly Action<ContinuationNode<TProblem, TResult>, Task<IReadOnlyList<TProblem>>, MeasuredPhase, long> s_splitCompleted =
        static (node, task, split, completed) => node.OnSplitCompleted(task, split, completed);

    private static readonly Action<ContinuationNode<TProblem, TResult>, Task<TResult>, MeasuredPhase, long> s_mergeCompleted =
        static (node, task, merge, completed) => node.OnMergeCompleted(task, merge, completed);

    private readonly RunContext<TProblem, TResult> _run;
    private readonly ContinuationNode<TProblem, TResult>? _parent;
    private readonly int _indexInParent;
    private readonly int _depth;

    // The node's number when the observer reports nodes (see RunContext.NewNodeId), otherwise -1.
    private readonly int _id;

    // Cleared once consumed (after the merge for an internal node, which receives it) so that a big subproblem does
    // not stay reachable for the rest of the run.
    private TProblem _problem;

    // The problem's size when the program reports sizes (set when the node splits), else -1.
    private long _size = -1;

    // Learning runs only: the node's own split time plus its children's summed work, in Stopwatch ticks; for an
    // inline root (see the remarks), the timestamp at which its subtree started instead.
    private long _ticks;

    // Whether this node lies inside an inline subtree of an asynchronous program: it is called by its parent (or
    // queued only when the stack ran short) and neither times itself nor decides on inlining again.
    private readonly bool _inline;

    // Whether this node's children and merge are called directly on the reporting thread (an inline root, or a node
    // inside its subtree that splits). Written before the children start, read by them through the parent reference.
    private bool _subtreeInline;

    // Internal nodes only: one slot per child, written by the child, read by the merge.
    private TResult[]? _results;

    // Internal nodes only: children that have not reported yet.
    private int _pending;

    // 0 until this node has reported (to its parent, or as the root by completing the run); set once by TryFinish.
    private int _reported;

    private ContinuationNode(RunContext<TProblem, TResult> run, ContinuationNode<TProblem, TResult>? parent, int indexInParent, TProblem problem, int depth, bool inline = false)
    {
        _inline = inline;
        _run = run;
        _parent = parent;
        _indexInParent = indexInParent;
        _problem = problem;
        _depth = depth;
        _id = run.NewNodeId();
    }

    /// <summary>The parent's node number, or -1 for the root (or when nodes are not numbered).</summary>
    private int ParentId => _parent?._id ?? -1;

    private NodePosition Position => new(_id, ParentId, _indexInParent, _depth);

    /// <summary>Starts the root task of a run; the run's task completes when the tree has finished.</summary>
    public static void StartRoot(RunContext<TProblem, TResult> run, TProblem problem)
    {
        var root = CreateRoot(run, problem);
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

    /// <summary>The root node of <paramref name="run"/>, not started (<see cref="StartRoot"/> starts it).</summary>
    internal static ContinuationNode<TProblem, TResult> CreateRoot(RunContext<TProblem, TResult> run, TProblem problem) =>
        new(run, parent: null, indexInParent: 0, problem, depth: 0);

    /// <summary>Queues this node's next step as a new task on the run's scheduler; never runs it inline.</summary>
    private void Start(Action<object?> step) => _run.StartCounted(step, this);

    /// <summary>The node's task: decide, then execute (leaf) or split and spawn (internal node).</summary>
    /// <param name="ownTask">
    /// Whether the node runs as a task of its own (counted as a task node); false for a sibling run by a
    /// <see cref="SiblingBatch"/> after the first, or by its parent's task (counted as an inline node).
    /// </param>
    private void Process(bool ownTask = true)
    {
        var run = _run;
        if (run.ShouldStop())
        {
            ReportNoResult();
            return;
        }

        if (ownTask)
        {
            run.CountTaskNode();
        }
        else
        {
            run.CountInlineNodes(1);
        }

        // The run's granularity is current on this thread while the node calls the program (a granular program's
        // should-split reads it); restored after, for whatever this thread runs next.
        var previous = RunGranularity.Enter(run.Granularity);
        try
        {
            Decide(run);
        }
        finally
        {
            RunGranularity.Restore(previous);
        }
    }

    /// <summary>
    /// A node of an asynchronous program's inline subtree, called by its parent on the parent's thread: the same steps
    /// as <see cref="Process"/>, counted as an inline node.
    /// </summary>
    private void ProcessInline()
    {
        var run = _run;
        if (run.ShouldStop())
        {
            ReportNoResult();
            return;
        }

        run.CountInlineNodes(1);
        // Entered again: the caller may be the resumption of an asynchronous phase, which runs no program code of its own.
        var previous = RunGranularity.Enter(run.Granularity);
        try
        {
            Decide(run);
        }
        finally
        {
            RunGranularity.Restore(previous);
        }
    }

    /// <summary>
    /// Whether this thread has stack left for one more level of an inline subtree of an asynchronous program (each
    /// level is a few frames of this class); if not, the next child or merge is queued as a task instead.
    /// </summary>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Performance", "CA1822:Mark members as static", Justification = "Reads the node's depth on netstandard2.0.")]
    private bool HasStackForInline()
    {
#if NETCOREAPP
        return RuntimeHelpers.TryEnsureSufficientExecutionStack();
#else
        // netstandard2.0 has no TryEnsure; those runtimes may also miss the stack's end (see InlineSubtree), hence
        // the depth bound as well.
        if (_depth >= 500)
        {
            return false;
        }

        try
        {
            RuntimeHelpers.EnsureSufficientExecutionStack();
            return true;
        }
        catch (InsufficientExecutionStackException)
        {
            return false;
        }
#endif
    }

    private void Decide(RunContext<TProblem, TResult> run)
    {
        var problem = _problem;
        bool split;
        bool inline = false;
        try
        {
            split = _depth < run.MaxDepth && run.Program.InvokeShouldSplit(problem, _depth);
            if (split)
            {
                run.CheckRecursionLimit(_depth);
                _size = run.ReportsSizes ? run.Program.SizeOf(problem) : -1;
                inline = _inline || run.Granularity.ShouldInline(_depth, _size);
            }
        }
        catch (Exception e)
        {
            _problem = default!;
            run.Fail(e);
            ReportNoResult();
            return;
        }

        if (!split || (inline && run.ExecutesInlineSubtrees))
        {
            // A leaf, or a subtree run inline by a program whose execute solves any problem: one execute.
            _problem = default!;
            ExecuteLeaf(problem);
        }
        else if (inline && !run.Granularity.AsynchronousPhases)
        {
            _problem = default!;
            RunInline(problem);
        }
        else
        {
            if (inline)
            {
                // An asynchronous program's inline subtree (see the remarks); its root notes when the subtree started.
                _subtreeInline = true;
                if (!_inline && run.Learns)
                {
                    _ticks = Stopwatch.GetTimestamp();
                }
            }

            // _problem stays: the merge receives it.
            BeginSplit(problem);
        }
    }

    private void ExecuteLeaf(TProblem problem)
    {
        var run = _run;
        bool learns = run.Learns && !_inline;
        long size = -1;
        if (learns && run.ReportsSizes && !TryGetSize(problem, out size))
        {
            return;
        }

        long learning = learns ? Stopwatch.GetTimestamp() : 0;
        var execute = run.StartPhase(DivideAndConquerPhase.Execute, Position);
        TResult result;
        try
        {
            result = run.Program.InvokeExecute(problem, _depth);
        }
        catch (Exception e)
        {
            run.Fail(e);
            ReportNoResult();
            return;
        }

        if (run.EndPhase(execute))
        {
            long ticks = learns ? Stopwatch.GetTimestamp() - learning : 0;
            if (learns)
            {
                run.Granularity.Costs!.AddLeaf(size, ticks);
                run.Granularity.Costs.AddSubtree(_depth, Math.Max(size, 1), ticks);
            }

            Report(result, ticks);
        }
        else
        {
            ReportNoResult();
        }
    }

    /// <summary>The size of a leaf's problem; false after failing the run and reporting, when the program's GetSize threw.</summary>
    private bool TryGetSize(TProblem problem, out long size)
    {
        try
        {
            size = _run.Program.SizeOf(problem);
            return true;
        }
        catch (Exception e)
        {
            _run.Fail(e);
            ReportNoResult();
            size = -1;
            return false;
        }
    }

    /// <summary>Runs this node's whole subtree on this thread (serial elision), then reports like any node.</summary>
    private void RunInline(TProblem problem)
    {
        var run = _run;
        long nodes = 0;
        long learning = run.StartLearning();
        bool completed;
        TResult result;
        // The subtree's splits and merges are calls of an inline node: loops they start run on this thread.
        RunFamily.BeginInlineCall();
        try
        {
            completed = InlineSubtree<TProblem, TResult>.TrySolveSplitting(run, problem, Position, _size, ref nodes, out result);
        }
        catch (Exception e)
        {
            run.Fail(e);
            completed = false;
            result = default!;
        }
        finally
        {
            RunFamily.EndInlineCall();
        }

        run.CountInlineNodes(nodes);
        if (!completed)
        {
            ReportNoResult();
            return;
        }

        long ticks = run.Elapsed(learning);
        if (run.Learns)
        {
            run.Granularity.Costs!.AddSubtree(_depth, Math.Max(_size, 1), ticks);
            // An inline subtree is also a leaf sample (an upper bound on its leaves' cost per unit; ignored without sizes),
            // so a run whose leaves all run inline still learns their cost and can pass it to its next run.
            run.Granularity.Costs.AddLeaf(_size, ticks);
        }

        Report(result, ticks);
    }

    private void BeginSplit(TProblem problem)
    {
        var run = _run;
        bool learns = run.Learns && !_subtreeInline;
        long learning = learns ? Stopwatch.GetTimestamp() : 0;
        var split = run.StartPhase(DivideAndConquerPhase.Split, Position);
        ValueTask<IReadOnlyList<TProblem>> splitting;
        // A node of an inline subtree marks its call, so that loops it starts run on its thread (see RunFamily).
        bool inlineCall = _subtreeInline;
        if (inlineCall)
        {
            RunFamily.BeginInlineCall();
        }

        try
        {
            splitting = run.InvokeSplitAsync(_id, problem, _depth);
        }
        catch (Exception e)
        {
            run.Fail(e);
            ReportNoResult();
            return;
        }
        finally
        {
            if (inlineCall)
            {
                RunFamily.EndInlineCall();
            }
        }

        if (splitting.IsCompletedSuccessfully)
        {
            var subproblems = splitting.Result;
            if (learns)
            {
                _ticks = Stopwatch.GetTimestamp() - learning;
            }

            if (run.EndPhase(split))
            {
                SpawnChildren(subproblems);
            }
            else
            {
                ReportNoResult();
            }

            return;
        }

        // Not finished (or failed): continue on the run's scheduler when it completes; no thread waits.
        new PendingPhase<IReadOnlyList<TProblem>>(this, splitting.AsTask(), split, s_splitCompleted).Begin();
    }

    private void OnSplitCompleted(Task<IReadOnlyList<TProblem>> splitting, MeasuredPhase split, long completed)
    {
        var run = _run;
        if (!splitting.IsCompletedSuccessfully)
        {
            run.Fail(RunContext<TProblem, TResult>.ExceptionOf(splitting));
            ReportNoResult();
        }
        else if (run.EndPhase(split, completed))
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
            count = run.CheckChildren(subproblems, _depth, _size);
        }
        catch (Exception e)
        {
            run.Fail(e);
            ReportNoResult();
            return;
        }

        // Plain writes: each child task is queued after them, and queueing a task is a full fence (the scheduler
        // publishes the task through an interlocked queue), so every child sees the array and the count. Children
        // run by this thread (an inline subtree, or the last batch below) see them in program order.
        _results = new TResult[count];
        _pending = count;

        int perTask = _subtreeInline ? 1 : SiblingsPerTask(run, count);
        int spawned = 0;
        try
        {
            if (perTask > 1)
            {
                // Children predicted cheaper than a task: a task per batch of them, and the last batch on this thread.
                while (spawned < count && !run.ShouldStop())
                {
                    int end = Math.Min(spawned + perTask, count);
                    if (end == count)
                    {
                        int first = spawned;
                        spawned = count;
                        RunSiblings(subproblems!, first, count, firstOwnTask: false);
                        break;
                    }

                    new SiblingBatch(this, subproblems!, spawned, end).Start();
                    spawned = end;
                }
            }

            for (; spawned < count; spawned++)
            {
                // Checked before every spawn: a failed or cancelled run starts nothing new.
                if (run.ShouldStop())
                {
                    break;
                }

                if (_subtreeInline)
                {
                    var inlineChild = new ContinuationNode<TProblem, TResult>(run, this, spawned, subproblems![spawned], _depth + 1, inline: true);
                    if (HasStackForInline())
                    {
                        inlineChild.ProcessInline();
                    }
                    else
                    {
                        inlineChild.Start(s_process);
                    }

                    continue;
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

    /// <summary>
    /// How many of this node's <paramref name="count"/> children one task runs: 1 (a task each) unless the run's
    /// time-based rule predicts a child's subtree cheaper than the minimum task cost, then enough siblings for one
    /// task to reach it. Siblings share one prediction: that of their depth, and for a program that reports sizes,
    /// of an equal share of this node's size (exact for the halving loops, an average otherwise).
    /// </summary>
    /// <remarks>
    /// Without it a node whose subtree is worth a task (predicted above the minimum cost) starts a task per child
    /// however cheap the child: a wide tree whose cost falls below the bound between two levels (a backtracking
    /// search) ran most of its tasks for children of a few microseconds, and a nested loop's last level of tasks held
    /// pieces below the bound. Grouping keeps each task at about the minimum cost, as the bound intends, and still
    /// leaves the other batches to other workers.
    /// </remarks>
    private int SiblingsPerTask(RunContext<TProblem, TResult> run, int count)
    {
        var granularity = run.Granularity;
        // The last batch runs on this thread, a few frames deeper: not when the stack runs short.
        if (count < 2 || granularity.Rule != InlineRule.ByTime || !HasStackForInline())
        {
            return 1;
        }

        long childSize = _size >= 0 ? Math.Max(_size / count, 1) : -1;
        long predicted = granularity.Costs!.PredictSubtree(_depth + 1, childSize);
        if (predicted >= granularity.MinimumTicks)
        {
            // Worth a task each (or unknown, which includes CostEstimator.Unknown).
            return 1;
        }

        return (int)Math.Min(count, (granularity.MinimumTicks / Math.Max(predicted, 1)) + 1);
    }

    /// <summary>
    /// Runs children [<paramref name="start"/>, <paramref name="end"/>) one after the other on this thread, each as
    /// its own node (its decision, its report); the first counts as a task node when <paramref name="firstOwnTask"/>.
    /// If the program's list throws, the run fails and the children not created are accounted for at once (they will
    /// never report), so the parent's countdown still reaches zero.
    /// </summary>
    private void RunSiblings(IReadOnlyList<TProblem> subproblems, int start, int end, bool firstOwnTask)
    {
        var run = _run;
        for (int i = start; i < end; i++)
        {
            ContinuationNode<TProblem, TResult> child;
            try
            {
                child = new ContinuationNode<TProblem, TResult>(run, this, i, subproblems[i], _depth + 1);
            }
            catch (Exception e)
            {
                run.Fail(e);
                if (Interlocked.Add(ref _pending, i - end) == 0)
                {
                    ScheduleMerge();
                }

                return;
            }

            child.Process(ownTask: firstOwnTask && i == start);
        }
    }

    /// <summary>A task that runs a batch of cheap siblings (see <see cref="SiblingsPerTask"/>).</summary>
    private sealed class SiblingBatch(ContinuationNode<TProblem, TResult> parent, IReadOnlyList<TProblem> subproblems, int start, int end)
    {
        private static readonly Action<object?> s_run = static state => ((SiblingBatch)state!).Run();

        /// <summary>Queues the batch on the run's scheduler; throws if the scheduler refuses it (nothing of it ran).</summary>
        public void Start() => parent._run.StartCounted(s_run, this);

        private void Run()
        {
            using (RunFamily.EnterTask(parent._run.Family))
            {
                parent.RunSiblings(subproblems, start, end, firstOwnTask: true);
            }
        }
    }

    /// <summary>The merge task: combine the children's results (or just report upwards if the run stopped).</summary>
    private void Merge()
    {
        var run = _run;
        var results = _results!;
        _results = null;
        var problem = _problem;
        _problem = default!;
        if (run.ShouldStop())
        {
            ReportNoResult();
            return;
        }

        bool learns = run.Learns && !_subtreeInline;
        long learning = learns ? Stopwatch.GetTimestamp() : 0;
        var merge = run.StartPhase(DivideAndConquerPhase.Merge, Position);
        ValueTask<TResult> merging;
        bool inlineCall = _subtreeInline;
        if (inlineCall)
        {
            RunFamily.BeginInlineCall();
        }

        try
        {
            merging = run.InvokeMergeAsync(_id, problem, results, _depth);
        }
        catch (Exception e)
        {
            run.Fail(e);
            ReportNoResult();
            return;
        }
        finally
        {
            if (inlineCall)
            {
                RunFamily.EndInlineCall();
            }
        }

        if (merging.IsCompletedSuccessfully)
        {
            var result = merging.Result;
            long ticks = learns ? Stopwatch.GetTimestamp() - learning : 0;
            if (run.EndPhase(merge))
            {
                ReportMerged(result, ticks);
            }
            else
            {
                ReportNoResult();
            }

            return;
        }

        // As in BeginSplit: resume on the run's scheduler when the program's merge completes; no thread waits.
        new PendingPhase<TResult>(this, merging.AsTask(), merge, s_mergeCompleted).Begin();
    }

    private void OnMergeCompleted(Task<TResult> merging, MeasuredPhase merge, long completed)
    {
        var run = _run;
        if (!merging.IsCompletedSuccessfully)
        {
            run.Fail(RunContext<TProblem, TResult>.ExceptionOf(merging));
            ReportNoResult();
        }
        else if (run.EndPhase(merge, completed))
        {
            ReportMerged(merging.Result, mergeTicks: 0);
        }
        else
        {
            ReportNoResult();
        }
    }

    private void ScheduleMerge()
    {
        Debug.Assert(Volatile.Read(ref _pending) == 0, "A merge is scheduled only when every child has reported.");
        if (_subtreeInline && HasStackForInline())
        {
            // Inline subtree of an asynchronous program: the last child to report merges on its own thread.
            Merge();
            return;
        }

        try
        {
            Start(s_merge);
        }
        catch (Exception e)
        {
            // The scheduler refused the merge task: report upwards from here so that the run still completes.
            _run.Fail(e);
            _results = null;
            _problem = default!;
            ReportNoResult();
        }
    }

    /// <summary>
    /// Ends a node whose asynchronous split or merge can no longer resume on the run's scheduler (the run has stopped):
    /// it reports without a result, on the calling thread.
    /// </summary>
    private void AbandonPendingPhase()
    {
        _results = null;
        ReportNoResult();
    }

    /// <summary>Records a merged node's summed work (learning runs), then reports its result.</summary>
    private void ReportMerged(TResult result, long mergeTicks)
    {
        var run = _run;
        long ticks = 0;
        if (run.Learns && !_inline)
        {
            if (_subtreeInline)
            {
                // An inline root: its whole subtree, timed from its start (see the remarks); also a leaf sample, as
                // for a synchronous program's inline subtree.
                ticks = Math.Max(Stopwatch.GetTimestamp() - _ticks, 1);
                run.Granularity.Costs!.AddSubtree(_depth, Math.Max(_size, 1), ticks);
                run.Granularity.Costs.AddLeaf(_size, ticks);
            }
            else
            {
                // Volatile: the children's adds happened before their decrements, which happened before this merge task.
                ticks = Volatile.Read(ref _ticks) + mergeTicks;
                run.Granularity.Costs!.AddSubtree(_depth, Math.Max(_size, 1), ticks);
            }
        }

        Report(result, ticks);
    }

    /// <summary>Hands this node's result (and, learning, its subtree's work) to its parent, or completes the run at the root.</summary>
    private void Report(TResult result, long ticks)
    {
        bool first = TryFinish(hasResult: true, result, ticks);
        Debug.Assert(first, "A node reports to its parent once.");
    }

    /// <summary>Tells the parent this node is done without a result (the run failed or was cancelled).</summary>
    private void ReportNoResult()
    {
        Debug.Assert(_run.ShouldStop(), "Only a stopped run has nodes without results.");
        bool first = TryFinish(hasResult: false, default!, ticks: 0);
        Debug.Assert(first, "A node reports to its parent once.");
    }

    /// <summary>
    /// The node's one completion: the first call reports (the result into the parent's slot, the work into its ticks,
    /// then the countdown; at the root, the run's completion); any later call does nothing and returns false.
    /// </summary>
    /// <param name="hasResult">Whether the node has a result (false: the run stopped).</param>
    /// <param name="result">The result (ignored without one).</param>
    /// <param name="ticks">The subtree's work in Stopwatch ticks when the run learns, else 0.</param>
    /// <returns>Whether this call reported.</returns>
    internal bool TryFinish(bool hasResult, TResult result, long ticks)
    {
        // Exchange: exactly one caller moves the node from unreported to reported, whatever the threads; the full
        // fence it implies also orders everything the node did before its report (its own writes) ahead of it.
        if (Interlocked.Exchange(ref _reported, 1) != 0)
        {
            return false;
        }

        var parent = _parent;
        if (parent is null)
        {
            _run.Complete(hasResult ? result : default!);
            return true;
        }

        if (hasResult)
        {
            parent._results![_indexInParent] = result;
            if (ticks != 0)
            {
                // Interlocked: siblings report concurrently; ordered before the decrement below (a full fence).
                Interlocked.Add(ref parent._ticks, ticks);
            }
        }

        ReportToParent(parent);
        return true;
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

    /// <summary>
    /// A node waiting for an unfinished asynchronous split or merge (allocated only on that path). Exactly one of two
    /// events claims the node: the program's task completing (then the resumption is queued on the run's scheduler),
    /// or, while the task is pending, the run's cancellation when the scheduler no longer accepts work (then nothing
    /// could ever resume the node there, so it reports without a result and the program's task is abandoned).
    /// </summary>
    /// <typeparam name="T">What the program's task produces: the subproblems or the merged result.</typeparam>
    /// <remarks>
    /// Why not <c>ContinueWith(..., run.Scheduler)</c>: when that scheduler refuses the continuation (it was disposed
    /// meanwhile), the TPL faults the continuation task and tells nobody, and the run would never complete. Here the
    /// resumption is queued by our own code, so a refusal is caught and fails the run like any other refused task.
    /// </remarks>
    private sealed class PendingPhase<T>
    {
        private static readonly Action<Task<T>, object?> s_completed =
            static (_, state) => ((PendingPhase<T>)state!).OnTaskCompleted();

        private static readonly Action<object?> s_resume = static state =>
        {
            var pending = (PendingPhase<T>)state!;
            using (RunFamily.EnterTask(pending._node._run.Family))
            {
                pending.Resume();
            }
        };

        private static readonly Action<object?> s_canceled =
            static state => ((PendingPhase<T>)state!).OnRunCanceled();

        private readonly ContinuationNode<TProblem, TResult> _node;
        private readonly Task<T> _task;
        private readonly MeasuredPhase _phase;
        private readonly Action<ContinuationNode<TProblem, TResult>, Task<T>, MeasuredPhase, long> _resume;
        private CancellationTokenRegistration _registration;

        // When the program's task completed (observed runs only; else 0). Written before the resumption is queued,
        // which publishes it to the resumption's thread.
        private long _completed;

        // 0 until the completion or the cancellation claims the node; written once by Exchange.
        private int _claimed;

        public PendingPhase(ContinuationNode<TProblem, TResult> node, Task<T> task, MeasuredPhase phase, Action<ContinuationNode<TProblem, TResult>, Task<T>, MeasuredPhase, long> resume)
        {
            _node = node;
            _task = task;
            _phase = phase;
            _resume = resume;
        }

        /// <summary>Starts waiting: for the run's cancellation (if it can be cancelled), then for the program's task.</summary>
        public void Begin()
        {
            var token = _node._run.Token;
            if (token.CanBeCanceled)
            {
                // Registered before the completion continuation, so that the completion path always sees the
                // registration it must remove. Unsafe: no execution context is needed for our own callback.
                _registration = token.UnsafeRegister(s_canceled, this);
            }

            // ExecuteSynchronously on the completing thread: all it does is queue the resumption on the run's
            // scheduler (or, if refused, report upwards), never program code.
            _task.ContinueWith(s_completed, this, CancellationToken.None, TaskContinuationOptions.DenyChildAttach | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        }

        /// <summary>Exchange: the completion and the cancellation may race; exactly one of them wins.</summary>
        private bool TryClaim() => Interlocked.Exchange(ref _claimed, 1) == 0;

        private void OnTaskCompleted()
        {
            if (!TryClaim())
            {
                // The run's cancellation abandoned the node: observe the task's fault so that it is not reported as
                // unobserved, and drop it (the run already ended).
                _ = _task.Exception;
                return;
            }

            // Unregister, not Dispose: Dispose would wait for a callback running on another thread, which is harmless
            // here (it loses the claim) and must not block the thread completing the program's task.
#if NETCOREAPP
            _registration.Unregister();
#else
            // netstandard2.0 has no Unregister. Dispose waits only for a cancellation callback already running on
            // another thread, and that callback does a bounded amount of work (a probe queued on the scheduler, then
            // it loses the claim to us), so the wait is short and cannot deadlock.
            _registration.Dispose();
#endif
            var run = _node._run;
            // The phase ends here, when the program's task completed; the wait for the resumption to be scheduled is
            // the engine's, not the phase's (an observer reads the clock; others get 0).
            _completed = run.ObservedTimestamp();
            try
            {
                run.StartCounted(s_resume, this);
            }
            catch (Exception e)
            {
                // Refused (the scheduler was disposed while the program's task ran). The program's own outcome comes
                // first (its failure, or a cancellation for the run's token, wins over the refusal), then the refusal.
                if (!_task.IsCompletedSuccessfully)
                {
                    run.Fail(RunContext<TProblem, TResult>.ExceptionOf(_task));
                }

                run.Fail(e);
                _node.AbandonPendingPhase();
            }
        }

        private void Resume() => _resume(_node, _task, _phase, _completed);

        private void OnRunCanceled()
        {
            var run = _node._run;
            if (Volatile.Read(ref _claimed) != 0)
            {
                return; // The program's task completed first; its path handles the node.
            }

            try
            {
                // A probe: a scheduler that still accepts work will run the resumption when the program's task
                // completes, so the node keeps waiting and the run quiesces as usual. A refusing one never will, and
                // the program's task may itself be stuck (its own continuations refused by the same scheduler).
                // Why queue an empty task rather than ask: TaskScheduler has no "still accepting" query, and the run's
                // scheduler may be any TaskScheduler (the pool, a user's), so queuing is the one question every
                // scheduler answers, and it answers the very thing the resumption will do. It costs one empty task,
                // and only when a run is cancelled while an asynchronous phase is pending.
                Task.Factory.StartNew(static () => { }, CancellationToken.None, TaskCreationOptions.DenyChildAttach, run.Scheduler);
                return;
            }
            catch (Exception)
            {
                // Refused: fall through and abandon the program's task.
            }

            if (TryClaim())
            {
                run.Cancel();
                _node.AbandonPendingPhase();
            }
        }
    }
}
