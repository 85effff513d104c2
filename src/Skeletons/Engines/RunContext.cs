using System.Diagnostics;

namespace DivCon.Skeletons.Engines;

/// <summary>
/// The state one run shares among all its tasks: what to call, where to schedule, and how the run ends (the
/// first failure or cancellation wins and doubles as the stop flag every task checks).
/// </summary>
/// <typeparam name="TProblem">The program's problem type.</typeparam>
/// <typeparam name="TResult">The program's result type.</typeparam>
internal sealed class RunContext<TProblem, TResult>
{
    /// <summary>The stop reason of a cancelled run (the other non-null stop reason is the run's exception).</summary>
    private static readonly object s_canceled = new();

    private readonly TaskCompletionSource<TResult> _completion =
        new(TaskCreationOptions.RunContinuationsAsynchronously);

    // null while the run goes on; then the first Exception or s_canceled. Written once by CompareExchange.
    private object? _stopReason;

    // Observed runs only: nodes that ran as their own task, and nodes that ran inline in another node's task.
    private long _taskNodes;
    private long _inlineNodes;

    // Fork-join only: tasks of the run not yet finished, and the root's result.
    private int _outstandingTasks;
    private TResult _rootResult = default!;

    // Observers that report nodes only: the next node number (the root gets 0).
    private int _nextNodeId;

    // Recorders only: where runs started inside this run's splits and merges are recorded (null otherwise).
    private readonly INestedRunHost? _nestedRunHost;

    // The token's callback that records a cancellation request as the outcome (default when the token cannot be cancelled).
    private readonly CancellationTokenRegistration _cancellation;

    public RunContext(DivideAndConquer<TProblem, TResult> program, DivideAndConquerOptions options, RunGranularity granularity, CancellationToken cancellationToken)
    {
        Program = program;
        Scheduler = options.Scheduler;
        // A run without an observer started inside a recorded node's split or merge is recorded as nested in it.
        Observer = options.Observer ?? NestedRuns.ObserverForNewRun();
        ReportsNodes = Observer is { } observer && OptionalObserverMembers.ReportsNodes(observer);
        _nestedRunHost = ReportsNodes ? Observer as INestedRunHost : null;
        MaxDepth = options.MaxDepth ?? int.MaxValue;
        RecursionLimit = options.RecursionLimit;
        Granularity = granularity;
        ExecutesInlineSubtrees = program.ExecuteSolvesAnyProblem;
        // A run started from a task of another run's family (a node's split or merge) joins it: see RunFamily. A
        // synchronous program starts no family of its own: its splits and merges cannot await a loop, so nothing would
        // read the count, and counting costs each of its tasks two atomic adds and the thread-static switches.
        Family = RunFamily.Current ?? (granularity.AsynchronousPhases ? new RunFamily() : null);
        ReportsSizes = program is GranularDivideAndConquer<TProblem, TResult>;
        Token = cancellationToken;
        if (Instrumentation.MetricsEnabled)
        {
            SkeletonMetrics.RunStarted(); // Guarded outside: off, the meter's class is never initialized.
        }

        if (cancellationToken.CanBeCanceled)
        {
            // Turns a request into the run's outcome as it happens (see IsStopped); runs Cancel at once if the token
            // is already cancelled. Removed when the run completes.
#if NETCOREAPP
            _cancellation = cancellationToken.UnsafeRegister(static state => ((RunContext<TProblem, TResult>)state!).Cancel(), this);
#else
            _cancellation = cancellationToken.Register(static state => ((RunContext<TProblem, TResult>)state!).Cancel(), this);
#endif
        }
    }

    public DivideAndConquer<TProblem, TResult> Program { get; }

    public TaskScheduler Scheduler { get; }

    public IDivideAndConquerObserver? Observer { get; }

    /// <summary>Whether nodes are numbered and reported with their identity (read once from the observer).</summary>
    public bool ReportsNodes { get; }

    /// <summary>Nodes at this depth or deeper are never split (int.MaxValue when the options set no limit).</summary>
    public int MaxDepth { get; }

    /// <summary>A node deeper than this that should split fails the run.</summary>
    public int RecursionLimit { get; }

    /// <summary>The run's resolved granularity: which nodes run inline, and what the run learns.</summary>
    public RunGranularity Granularity { get; }

    /// <summary>Whether a node whose subtree runs inline executes its problem instead (the program's <c>ExecuteSolvesAnyProblem</c>, read once).</summary>
    public bool ExecutesInlineSubtrees { get; }

    /// <summary>
    /// This run and the runs it is nested in: how many of their tasks are queued or running (continuation engine);
    /// null for a synchronous program's run that is not nested in a family (nothing would read its count).
    /// </summary>
    public RunFamily? Family { get; }

    /// <summary>Whether the program reports sizes (a granular program).</summary>
    public bool ReportsSizes { get; }

    /// <summary>Whether task nodes time their work for the cost estimator (time-based granularity).</summary>
    public bool Learns => Granularity.Costs is not null;

    public CancellationToken Token { get; }

    public Task<TResult> Task => _completion.Task;

    /// <summary>
    /// True when the run must stop starting work: it failed, or it was cancelled (checking the token here is what
    /// turns a cancellation request into the run's outcome).
    /// </summary>
    public bool ShouldStop()
    {
        // IsStopped alone would do (the token's registration records a cancellation as it happens); the token is
        // read as well so that a node never depends on the registration callback having run yet.
        // Volatile: a task on another core must see a failure recorded by another task without a stale cached read.
        if (Volatile.Read(ref _stopReason) is not null)
        {
            return true;
        }

        if (Token.IsCancellationRequested)
        {
            Cancel();
            return true;
        }

        return false;
    }

    /// <summary>
    /// Whether the run has an outcome already (failed or cancelled): one load, for the inline recursion's per-node
    /// check. A cancellation request becomes the outcome in the token's callback (registered by the constructor), so
    /// a request made on this thread (by the program itself) is seen at the very next node, and one made on another
    /// thread as soon as its callback ran.
    /// </summary>
    public bool IsStopped() =>
        // Volatile: see ShouldStop.
        Volatile.Read(ref _stopReason) is not null;

    /// <summary>Records <paramref name="exception"/> as the run's outcome unless another outcome came first.</summary>
    public void Fail(Exception exception)
    {
        if (exception is OperationCanceledException canceled && canceled.CancellationToken == Token && Token.IsCancellationRequested)
        {
            // The program (or a wait of the engine) observed the run's own token: that is a cancellation, not a fault.
            Cancel();
            return;
        }

        // CompareExchange: the first failure wins; later ones (often consequences of the first) are dropped.
        Interlocked.CompareExchange(ref _stopReason, exception, null);
    }

    /// <summary>Records cancellation as the run's outcome unless another outcome came first.</summary>
    public void Cancel() =>
        // CompareExchange: same first-wins rule as Fail.
        Interlocked.CompareExchange(ref _stopReason, s_canceled, null);

    /// <summary>
    /// Calls the program's split of node <paramref name="nodeId"/>. In a run that records nested runs the call is made
    /// inside the node's nested-run scope (runs it starts are recorded under this node's split); otherwise it is the
    /// bare call, so an unrecorded run's hot path has no extra try/finally.
    /// </summary>
    public ValueTask<IReadOnlyList<TProblem>> InvokeSplitAsync(int nodeId, TProblem problem, int depth)
    {
        if (_nestedRunHost is null)
        {
            return Program.InvokeSplitAsync(problem, depth, Token);
        }

        using (NestedRuns.Enter(_nestedRunHost, nodeId, DivideAndConquerPhase.Split))
        {
            return Program.InvokeSplitAsync(problem, depth, Token);
        }
    }

    /// <summary>Calls the program's merge of node <paramref name="nodeId"/>, as <see cref="InvokeSplitAsync"/> calls its split.</summary>
    public ValueTask<TResult> InvokeMergeAsync(int nodeId, TProblem problem, IReadOnlyList<TResult> subresults, int depth)
    {
        if (_nestedRunHost is null)
        {
            return Program.InvokeMergeAsync(problem, subresults, depth, Token);
        }

        using (NestedRuns.Enter(_nestedRunHost, nodeId, DivideAndConquerPhase.Merge))
        {
            return Program.InvokeMergeAsync(problem, subresults, depth, Token);
        }
    }

    /// <summary>Starts timing <paramref name="phase"/> of the node at <paramref name="node"/>; the clock is read only when someone observes the run.</summary>
    public MeasuredPhase StartPhase(DivideAndConquerPhase phase, NodePosition node) => new(phase, node, ObservedTimestamp());

    /// <summary>Reads the clock only when someone observes the run (else 0).</summary>
    public long ObservedTimestamp() => Observer is null ? 0 : Stopwatch.GetTimestamp();

    /// <summary>Reads the clock only when the run learns costs (task nodes time their own work).</summary>
    public long StartLearning() => Learns ? Stopwatch.GetTimestamp() : 0;

    /// <summary>The ticks since <paramref name="start"/> (from <see cref="StartLearning"/>); 0 when the run does not learn.</summary>
    public long Elapsed(long start) => Learns ? Stopwatch.GetTimestamp() - start : 0;

    /// <summary>
    /// Numbers a new node: 0, 1, 2, ... in creation order when the observer reports nodes, otherwise -1 (no shared
    /// counter is touched then).
    /// </summary>
    public int NewNodeId() =>
        // Interlocked: parents on many threads create children concurrently; every node needs its own number.
        ReportsNodes ? Interlocked.Increment(ref _nextNodeId) - 1 : -1;

    /// <summary>
    /// Reports a finished phase to the observer, if any, with the node's identity when the observer asks for it
    /// (<see cref="ReportsNodes"/>). Returns false (after failing the run) when the observer threw. The phase ended now,
    /// or at <paramref name="endTimestamp"/> when that is not 0 (an asynchronous phase whose task completed earlier).
    /// </summary>
    public bool EndPhase(in MeasuredPhase measured, long endTimestamp = 0)
    {
        var observer = Observer;
        if (observer is null)
        {
            return true;
        }

        try
        {
            var node = measured.Node;
            long elapsed = (endTimestamp != 0 ? endTimestamp : Stopwatch.GetTimestamp()) - measured.StartTimestamp;
            observer.OnPhase(measured.Phase, node.Depth, elapsed);
            if (ReportsNodes)
            {
                OptionalObserverMembers.OnNodePhase(observer, new NodePhaseEvent(
                    node.Id, node.ParentId, node.IndexInParent, node.Depth, measured.Phase, measured.StartTimestamp, elapsed,
                    Environment.CurrentManagedThreadId, Thread.GetCurrentProcessorId()));
            }

            return true;
        }
        catch (Exception e)
        {
            Fail(e);
            return false;
        }
    }

    /// <summary>
    /// Queues a task of the run on its scheduler, counted in its family from now until its delegate returns (the
    /// delegate enters the family, see <see cref="RunFamily.EnterTask(RunFamily?)"/>); a refused task is counted down at
    /// once and the refusal rethrown. Every task an engine queues for the run goes through here.
    /// </summary>
    public void StartCounted(Action<object?> step, object state)
    {
        var family = Family;
        family?.TaskQueued();
        try
        {
            System.Threading.Tasks.Task.Factory.StartNew(step, state, CancellationToken.None, TaskCreationOptions.DenyChildAttach, Scheduler);
        }
        catch
        {
            family?.TaskEnded();
            throw;
        }
    }

    /// <summary>Counts a node that ran as its own task (only when observed: the count is reported to the observer).</summary>
    public void CountTaskNode()
    {
        if (Instrumentation.MetricsEnabled)
        {
            SkeletonMetrics.TaskNode();
        }

        if (Observer is not null)
        {
            // Interlocked: task nodes on many threads.
            Interlocked.Increment(ref _taskNodes);
        }
    }

    /// <summary>Counts the nodes of an inline subtree, once per subtree.</summary>
    public void CountInlineNodes(long nodes)
    {
        if (Instrumentation.MetricsEnabled)
        {
            SkeletonMetrics.InlineSubtree(nodes);
        }

        if (Observer is not null && nodes > 0)
        {
            Interlocked.Add(ref _inlineNodes, nodes);
        }
    }

    /// <summary>Fails unless a node at <paramref name="depth"/> may split (see <see cref="DivideAndConquerOptions.RecursionLimit"/>).</summary>
    public void CheckRecursionLimit(int depth)
    {
        if (depth >= RecursionLimit)
        {
            throw new InvalidOperationException(
                $"The recursion reached depth {depth} and should-split still says yes; the limit is {RecursionLimit} (DivideAndConquerOptions.RecursionLimit). A split that does not make its problems smaller recurses forever.");
        }
    }

    /// <summary>
    /// Fails when a program that reports sizes split a problem of <paramref name="parentSize"/> into a child that is not
    /// smaller (a split that would recurse forever). Returns the number of children; fails on none.
    /// </summary>
    public int CheckChildren(IReadOnlyList<TProblem>? subproblems, int depth, long parentSize)
    {
        int count = subproblems?.Count
            ?? throw new InvalidOperationException($"Split returned null at depth {depth}; it must return at least one subproblem.");
        if (count == 0)
        {
            throw new InvalidOperationException($"Split returned no subproblems at depth {depth}; it must return at least one (return false from ShouldSplit to execute a problem instead).");
        }

        if (parentSize >= 0)
        {
            for (int i = 0; i < count; i++)
            {
                long childSize = Program.SizeOf(subproblems![i]);
                if (childSize >= parentSize)
                {
                    throw new InvalidOperationException(
                        $"Split at depth {depth} returned child {i} of size {childSize} from a problem of size {parentSize}; every child must be smaller than its parent, or the recursion never ends.");
                }
            }
        }

        return count;
    }

    /// <summary>
    /// Completes the run's task from its outcome. Called exactly once, after the last task of the run did its
    /// last piece of user work.
    /// </summary>
    public void Complete(TResult result)
    {
        try
        {
            // Volatile: counts added by other tasks before the tree quiesced (each add is interlocked).
            if (Observer is { } observer)
            {
                OptionalObserverMembers.OnNodesRun(observer, Volatile.Read(ref _taskNodes), Volatile.Read(ref _inlineNodes));
            }
        }
        catch (Exception e)
        {
            Fail(e);
        }

        try
        {
            Program.NotifyRunCompleted();
        }
        catch (Exception e)
        {
            Fail(e);
        }

#if NETCOREAPP
        // Unregister, not Dispose: it never waits for a callback running on another thread (which only records the
        // cancellation, too late to matter: the outcome is read below, after the tree quiesced).
        _cancellation.Unregister();
#else
        // netstandard2.0 has no Unregister; Dispose waits at most for the callback's one CompareExchange.
        _cancellation.Dispose();
#endif

        // Volatile: read the outcome another task may have recorded just before the tree quiesced.
        object? stopReason = Volatile.Read(ref _stopReason);
        if (Instrumentation.MetricsEnabled)
        {
            SkeletonMetrics.RunEnded(stopReason);
        }

        switch (stopReason)
        {
            case null:
                _completion.SetResult(result);
                break;
            case Exception exception:
                _completion.SetException(exception);
                break;
            default:
                Debug.Assert(Token.IsCancellationRequested, "Only the run's token cancels a run.");
                _completion.SetCanceled(Token);
                break;
        }
    }

    /// <summary>Fork-join: counts a task of the run about to be started.</summary>
    public void ForkJoinTaskStarting() =>
        // Interlocked: parents on many threads start children concurrently.
        Interlocked.Increment(ref _outstandingTasks);

    /// <summary>Fork-join: stores the root's result before the root task reports that it finished.</summary>
    public void ForkJoinSetRootResult(TResult result) => _rootResult = result;

    /// <summary>Fork-join: a task of the run finished; the last one completes the run.</summary>
    public void ForkJoinTaskFinished()
    {
        // Interlocked.Decrement is a full fence: the root's plain write of _rootResult happens before its own
        // decrement, so the thread whose decrement reaches zero reads the result after it.
        int left = Interlocked.Decrement(ref _outstandingTasks);
        Debug.Assert(left >= 0, "More tasks finished than started.");
        if (left == 0)
        {
            Complete(_rootResult);
        }
    }

    /// <summary>The exception a completed, unsuccessful task carries, unwrapped (the original, not an AggregateException).</summary>
    public static Exception ExceptionOf(Task task)
    {
        Debug.Assert(task.IsCompleted && !task.IsCompletedSuccessfully, "Only failed or cancelled tasks carry an exception.");
        if (task.IsFaulted && task.Exception!.InnerExceptions.Count > 0)
        {
            return task.Exception.InnerExceptions[0];
        }

        // Cancelled: a TaskCanceledException carrying the task's own token, as awaiting it would throw.
        return new TaskCanceledException(task);
    }
}
