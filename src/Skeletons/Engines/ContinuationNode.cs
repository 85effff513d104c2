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
internal sealed partial class ContinuationNode<TProblem, TResult>
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
}
