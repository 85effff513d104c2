using System.Diagnostics;

namespace DivCon.Skeletons.Engines;

/// <summary>
/// A continuation node's merge and completion: the merge task once every child reported, a result reported to the
/// parent (the last child to report schedules the parent's merge), and phases still pending when a run stops.
/// </summary>
internal sealed partial class ContinuationNode<TProblem, TResult>
{
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
