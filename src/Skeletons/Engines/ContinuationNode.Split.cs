using System.Diagnostics;

namespace DivCon.Skeletons.Engines;

/// <summary>
/// A continuation node's split: the split phase (inline or awaited), its children spawned as tasks or run as sibling
/// batches, and how many siblings a task takes (the protocol is described on the node's main file).
/// </summary>
internal sealed partial class ContinuationNode<TProblem, TResult>
{
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
}
