using DivCon.Skeletons.Engines;

namespace DivCon.Skeletons;

/// <summary>
/// A divide-and-conquer program: four functions (should-split, split, execute, merge) that the skeleton runs as
/// a task graph on any <see cref="TaskScheduler"/>.
/// </summary>
/// <typeparam name="TProblem">A problem or subproblem (an array, an index range, a pair of matrices...).</typeparam>
/// <typeparam name="TResult">The result of a problem, and of each subproblem.</typeparam>
/// <remarks>
/// <para><b>The idea.</b> A program says only how to decide, divide, solve and combine; the skeleton decides how
/// that becomes parallel work. There are two ways to write one, both producing this type:</para>
/// <list type="bullet">
/// <item><description>subclass it and override <see cref="ShouldSplit"/>, <see cref="Split"/>, <see cref="Execute"/>
/// and <see cref="Merge(TProblem, IReadOnlyList{TResult}, int)"/>: stateful programs (an array sorted in place, matrices held by the instance);</description></item>
/// <item><description>pass four lambdas to <c>DivideAndConquer.Create</c>: declarative programs.</description></item>
/// </list>
/// <para><b>The algorithm</b> (the default <see cref="ExecutionEngine.Continuation"/> engine). Each node is a task on
/// the chosen scheduler, unless its granularity runs it inline (see below). A node asks should-split (with its depth; the root is depth 0); if no, it executes and hands
/// its result to its parent; if yes, it splits, starts one task per subproblem and returns at once. The child that
/// completes last (an atomic countdown) starts the merge as a new task, whose result goes up the same way. The root's
/// merge completes the task returned by <see cref="RunAsync(TProblem, CancellationToken)"/>. No thread ever waits,
/// so the run progresses even on a scheduler with one worker.</para>
/// <para><b>Example</b> (a quicksort in a few lines, the lambda model):</para>
/// <code>
/// var quicksort = DivideAndConquer.Create&lt;int[], int[]&gt;(
///     shouldSplit: (items, depth) =&gt; items.Length &gt; 4096 &amp;&amp; depth &lt; 40,
///     split: (items, depth) =&gt;
///     {
///         int pivot = items[items.Length / 2];
///         return [items.Where(x =&gt; x &lt; pivot).ToArray(),
///                 items.Where(x =&gt; x == pivot).ToArray(),
///                 items.Where(x =&gt; x &gt; pivot).ToArray()];
///     },
///     execute: (items, depth) =&gt; { var copy = (int[])items.Clone(); Array.Sort(copy); return copy; },
///     merge: (parts, depth) =&gt; [.. parts[0], .. parts[1], .. parts[2]]);
///
/// int[] sorted = await quicksort.RunAsync(source);
/// </code>
/// <para><b>Nested parallelism.</b> Override <see cref="SplitAsync"/> or <see cref="MergeAsync"/> to return a task
/// that completes later, for example a merge that runs another skeleton or a <c>DivideAndConquer.ForAsync</c> loop.
/// A run whose options name no scheduler (the default) runs on <see cref="TaskScheduler.Current"/> of the code that
/// starts it, which inside a split or merge is the run's scheduler, so nested runs stay on the same workers (a
/// <c>WorkStealingTaskScheduler</c>, a multiprogram program's partition) without naming it. The node waits for the
/// task without holding a thread: the engine continues on the run's scheduler when the task completes.</para>
/// <para><b>Errors and cancellation.</b> The first exception thrown by any of the four functions (or an observer)
/// stops the run: nodes not yet started do nothing, and the returned task faults with that very exception once
/// every task of the run has finished (no user code of the run is still running when it completes). The
/// cancellation token is checked before every split, spawn and execute; a cancelled run ends
/// <see cref="TaskStatus.Canceled"/> with the run's token.</para>
/// <para><b>A scheduler that refuses work.</b> When the scheduler refuses a task of the run (it was disposed while
/// the run went on: a child, a merge, or the resumption after an asynchronous split or merge), the run stops as if
/// that task had thrown: the returned task faults with the scheduler's exception (a
/// <see cref="TaskSchedulerException"/>), unless a failure or cancellation came first. The run never waits for a
/// task that was refused. If the run is cancelled while it waits for an unfinished asynchronous split or merge and
/// its scheduler refuses work, the run ends cancelled at once and that split or merge is abandoned (it may be unable
/// ever to finish, its own continuations being refused by the same scheduler); on a scheduler that still accepts
/// work the run waits for it as usual.</para>
/// <para><b>Granularity.</b> <see cref="Granularity"/> (default <see cref="Granularity.Automatic()"/>) decides
/// which nodes become tasks: under the default, a node whose subtree the run predicts (from its own measurements) to
/// cost less than <see cref="Granularity.MinimumTaskCost"/> runs that subtree depth-first on its own thread with the
/// same four functions and no tasks, so a fine-grained should-split costs little more than a plain recursion.
/// Programs whose split or merge is asynchronous (<see cref="SplitAsync"/> or <see cref="MergeAsync"/> overridden)
/// follow the same rule under the continuation engine: the subtree's children and merges are called on the node's
/// thread instead of queued, so a split or merge that completes at once costs no task, and one that completes later
/// suspends its node until it resumes on the run's scheduler (the fork-join engine runs no asynchronous subtree
/// inline). <see cref="DivideAndConquerOptions.Granularity"/> overrides the program's granularity for one run.</para>
/// <para><b>Limits.</b> A node deeper than <see cref="DivideAndConquerOptions.RecursionLimit"/> that should split
/// ends the run with an <see cref="InvalidOperationException"/>; so does a granular program whose split returns a
/// child as large as its parent. An inline subtree too deep for its thread's stack ends the run with an
/// <see cref="InsufficientExecutionStackException"/> instead of crashing the process.</para>
/// <para><b>Warnings.</b> The functions are called concurrently from many threads for different nodes, so shared
/// state needs care. The <see cref="ExecutionEngine.ForkJoin"/> engine blocks a thread in every internal node
/// until its children finish. On a scheduler with a fixed number of workers it starves when every worker is blocked
/// in such a wait while the children they wait for sit in the queue: the run then never finishes and can only be
/// cancelled. That happens whenever the waits are not inlined, namely (1) the scheduler refuses to run a waited-for
/// task inline (a one-worker scheduler that does not inline starves at the root), (2) the run has a cancellable
/// token (TPL never inlines a cancellable wait, so each blocked node holds a worker and a tree with more internal
/// nodes than workers can starve), or (3) an asynchronous split or merge continues on the same scheduler while its
/// node blocks on it. The .NET thread pool hides this by injecting threads, slowly (seconds per level). Use the
/// continuation engine unless you are measuring the difference.</para>
/// </remarks>
public abstract class DivideAndConquer<TProblem, TResult>
{
    // Per program type: whether split and merge are synchronous (inline subtrees allowed) and whether a merge exists.
    private static readonly System.Collections.Concurrent.ConcurrentDictionary<Type, (bool Synchronous, bool HasMerge)> s_capabilities = new();

    private DivideAndConquerOptions _options;
    private Granularity _granularity = Granularity.Automatic();

    /// <summary>Creates a program that runs with <paramref name="options"/> unless a run is given its own.</summary>
    /// <param name="options">Default options for <see cref="RunAsync(TProblem, CancellationToken)"/>; <see langword="null"/>: <see cref="DivideAndConquerOptions.Default"/>.</param>
    protected DivideAndConquer(DivideAndConquerOptions? options = null)
    {
        _options = options ?? DivideAndConquerOptions.Default;
    }

    /// <summary>The options used by <see cref="RunAsync(TProblem, CancellationToken)"/>. Never <see langword="null"/>.</summary>
    /// <exception cref="ArgumentNullException">Set to <see langword="null"/>.</exception>
    public DivideAndConquerOptions Options
    {
        get => _options;
        set => _options = value ?? throw new ArgumentNullException(nameof(value), "Options cannot be null; use DivideAndConquerOptions.Default.");
    }

    /// <summary>
    /// Whether <c>Execute</c> solves any problem, also one that <c>ShouldSplit</c> would split (it is the sequential
    /// algorithm, as a hand-written recursion's cutoff calls it). When true, a node whose subtree the granularity runs
    /// inline (predicted cheaper than <see cref="Granularity.MinimumTaskCost"/>) calls <c>Execute</c> on its problem
    /// instead of running the subtree through the program's split and merge, which saves their per-node cost (the
    /// lists of subproblems and results, a call per function per node); the node is counted and timed as a leaf.
    /// Default false: <c>Execute</c> receives only the problems <c>ShouldSplit</c> declined. Read when a run starts.
    /// </summary>
    public bool ExecuteSolvesAnyProblem { get; set; }

    /// <summary>
    /// How runs cut the work into tasks (and, for a granular program, where splitting stops). Default:
    /// <see cref="Granularity.Automatic()"/>. Takes effect at the next run; runs already going keep theirs.
    /// </summary>
    /// <exception cref="ArgumentNullException">Set to <see langword="null"/>.</exception>
    public Granularity Granularity
    {
        get => Volatile.Read(ref _granularity);
        set => Volatile.Write(ref _granularity, value ?? throw new ArgumentNullException(nameof(value), "Granularity cannot be null; use Granularity.Automatic()."));
    }

    /// <summary>Runs the program on <paramref name="problem"/> with <see cref="Options"/>.</summary>
    /// <param name="problem">The whole problem (the root). Passed to the functions as is.</param>
    /// <param name="cancellationToken">Stops splitting, spawning and executing when cancelled.</param>
    /// <returns>
    /// A task that completes with the root's result, faults with the first exception of the program, or is
    /// cancelled; in every case only after every task of the run has finished.
    /// </returns>
    public Task<TResult> RunAsync(TProblem problem, CancellationToken cancellationToken = default) =>
        RunAsync(problem, _options, cancellationToken);

    /// <summary>Runs the program on <paramref name="problem"/> with the given options (for example another scheduler).</summary>
    /// <param name="problem">The whole problem (the root). Passed to the functions as is.</param>
    /// <param name="options">The options for this run only; <see cref="Options"/> is not changed.</param>
    /// <param name="cancellationToken">Stops splitting, spawning and executing when cancelled.</param>
    /// <returns>
    /// A task that completes with the root's result, faults with the first exception of the program, or is
    /// cancelled; in every case only after every task of the run has finished. Already cancelled token: a
    /// cancelled task, and none of the program's functions is called. Runs of one instance may overlap: each run
    /// keeps its resolved granularity and what it learns to itself.
    /// </returns>
    /// <exception cref="ArgumentNullException"><paramref name="options"/> is <see langword="null"/>.</exception>
    /// <exception cref="InvalidOperationException">The program overrides neither merge nor <see cref="MergeAsync"/>, or its granularity cannot be resolved.</exception>
    public Task<TResult> RunAsync(TProblem problem, DivideAndConquerOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (cancellationToken.IsCancellationRequested)
        {
            return Task.FromCanceled<TResult>(cancellationToken);
        }

        var capabilities = Capabilities();
        if (!capabilities.HasMerge)
        {
            throw new InvalidOperationException($"{GetType().Name} overrides neither Merge(problem, subresults, depth), Merge(subresults, depth) nor MergeAsync.");
        }

        OnRunStarting(problem, options);
        RunGranularity granularity;
        try
        {
            granularity = CreateRunGranularity(problem, options, options.Granularity ?? Granularity);
            granularity.AsynchronousPhases = !capabilities.Synchronous;
        }
        catch
        {
            OnRunCompleted();
            throw;
        }

        return options.Engine == ExecutionEngine.ForkJoin
            ? ForkJoinEngine<TProblem, TResult>.Run(this, problem, options, granularity, cancellationToken)
            : ContinuationEngine<TProblem, TResult>.Run(this, problem, options, granularity, cancellationToken);
    }

    /// <summary>Decides whether <paramref name="problem"/> is divided (<see langword="true"/>) or executed directly.</summary>
    /// <param name="problem">The (sub)problem.</param>
    /// <param name="depth">Its depth; the root is at depth 0.</param>
    /// <returns><see langword="true"/> to split.</returns>
    protected abstract bool ShouldSplit(TProblem problem, int depth);

    /// <summary>Divides <paramref name="problem"/> into subproblems, each solved as a task or inline.</summary>
    /// <param name="problem">The problem to divide.</param>
    /// <param name="depth">Its depth; the subproblems will be at <paramref name="depth"/> + 1.</param>
    /// <returns>At least one subproblem; <see langword="null"/> or an empty list fails the run.</returns>
    protected abstract IReadOnlyList<TProblem> Split(TProblem problem, int depth);

    /// <summary>Solves <paramref name="problem"/> directly: the base case, usually a fast sequential algorithm.</summary>
    /// <param name="problem">The problem to solve.</param>
    /// <param name="depth">Its depth.</param>
    /// <returns>Its result.</returns>
    protected abstract TResult Execute(TProblem problem, int depth);

    /// <summary>
    /// Combines the results of the subproblems of one split, in the order <see cref="Split"/> returned them, knowing
    /// the problem that was split (its split points, its output buffer...). Default: calls
    /// <see cref="Merge(IReadOnlyList{TResult}, int)"/>. Override one of the two.
    /// </summary>
    /// <param name="problem">The problem that was split.</param>
    /// <param name="subresults">One result per subproblem, in subproblem order.</param>
    /// <param name="depth">The depth of the node that was split.</param>
    /// <returns>The result of the split node.</returns>
    protected virtual TResult Merge(TProblem problem, IReadOnlyList<TResult> subresults, int depth) => Merge(subresults, depth);

    /// <summary>
    /// Combines the results of the subproblems of one split, in the order <see cref="Split"/> returned them. The form
    /// without the parent problem; override this or <see cref="Merge(TProblem, IReadOnlyList{TResult}, int)"/>.
    /// </summary>
    /// <param name="subresults">One result per subproblem, in subproblem order.</param>
    /// <param name="depth">The depth of the node that was split.</param>
    /// <returns>The result of the split node.</returns>
    /// <exception cref="NotSupportedException">Not overridden (the program overrides the other form).</exception>
    protected virtual TResult Merge(IReadOnlyList<TResult> subresults, int depth) =>
        throw new NotSupportedException($"{GetType().Name} does not override Merge(subresults, depth); the skeleton calls Merge(problem, subresults, depth).");

    /// <summary>
    /// The asynchronous form of <see cref="Split"/>, which is what task nodes call; the default calls
    /// <see cref="Split"/> and completes at once. Override it to split in parallel (inline subtrees then call it on their
    /// thread and continue at once when it completes at once).
    /// </summary>
    /// <param name="problem">The problem to divide.</param>
    /// <param name="depth">Its depth.</param>
    /// <param name="cancellationToken">The run's token.</param>
    /// <returns>The subproblems, now or later.</returns>
    protected virtual ValueTask<IReadOnlyList<TProblem>> SplitAsync(TProblem problem, int depth, CancellationToken cancellationToken) =>
        new(Split(problem, depth));

    /// <summary>
    /// The asynchronous form of <see cref="Merge(TProblem, IReadOnlyList{TResult}, int)"/>, which is what task nodes
    /// call; the default calls it and completes at once. Override it to merge in parallel, for example by running
    /// another skeleton or a <c>DivideAndConquer.ForAsync</c> loop (both run on the run's scheduler by default) and
    /// returning its task.
    /// </summary>
    /// <param name="problem">The problem that was split.</param>
    /// <param name="subresults">One result per subproblem, in subproblem order.</param>
    /// <param name="depth">The depth of the node that was split.</param>
    /// <param name="cancellationToken">The run's token.</param>
    /// <returns>The merged result, now or later.</returns>
    protected virtual ValueTask<TResult> MergeAsync(TProblem problem, IReadOnlyList<TResult> subresults, int depth, CancellationToken cancellationToken) =>
        new(Merge(problem, subresults, depth));

    /// <summary>
    /// Called on the caller's thread by <c>RunAsync</c> before the first task of a run starts (not for an already
    /// cancelled token). An exception thrown here propagates to the caller of <c>RunAsync</c>. Every call is paired
    /// with one later call of <see cref="OnRunCompleted"/> unless this method throws. Runs may overlap, so per-run
    /// state does not belong in fields.
    /// </summary>
    /// <param name="problem">The root problem.</param>
    /// <param name="options">The run's options.</param>
    protected virtual void OnRunStarting(TProblem problem, DivideAndConquerOptions options)
    {
    }

    /// <summary>
    /// Called once when a run has finished (every task of it done), just before its task completes, whether it
    /// succeeded, failed or was cancelled. Must not throw; an exception here faults the run's task if it had
    /// succeeded.
    /// </summary>
    protected virtual void OnRunCompleted()
    {
    }

    /// <summary>
    /// The size of <paramref name="problem"/> when the program reports sizes (a granular program), else -1: lets the
    /// engines learn costs per unit of size and reject a split whose child is as large as its parent.
    /// </summary>
    internal virtual long SizeOf(TProblem problem) => -1;

    /// <summary>Resolves the run's granularity (a granular program adds its size rule).</summary>
    /// <param name="problem">The root problem.</param>
    /// <param name="options">The run's options.</param>
    /// <param name="granularity">The run's granularity: the options' if they set one, else the program's.</param>
    internal virtual RunGranularity CreateRunGranularity(TProblem problem, DivideAndConquerOptions options, Granularity granularity) =>
        RunGranularity.ForPlainProgram(granularity);

    internal bool InvokeShouldSplit(TProblem problem, int depth) => ShouldSplit(problem, depth);

    internal IReadOnlyList<TProblem> InvokeSplit(TProblem problem, int depth) => Split(problem, depth);

    internal TResult InvokeExecute(TProblem problem, int depth) => Execute(problem, depth);

    internal TResult InvokeMerge(TProblem problem, IReadOnlyList<TResult> subresults, int depth) => Merge(problem, subresults, depth);

    internal ValueTask<IReadOnlyList<TProblem>> InvokeSplitAsync(TProblem problem, int depth, CancellationToken cancellationToken) =>
        SplitAsync(problem, depth, cancellationToken);

    internal ValueTask<TResult> InvokeMergeAsync(TProblem problem, IReadOnlyList<TResult> subresults, int depth, CancellationToken cancellationToken) =>
        MergeAsync(problem, subresults, depth, cancellationToken);

    /// <summary>Lets the engines call <see cref="OnRunCompleted"/>.</summary>
    internal void NotifyRunCompleted() => OnRunCompleted();

    private (bool Synchronous, bool HasMerge) Capabilities() =>
        s_capabilities.GetOrAdd(GetType(), static type =>
        {
            const System.Reflection.BindingFlags Flags = System.Reflection.BindingFlags.Instance | System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.NonPublic;
            var self = typeof(DivideAndConquer<TProblem, TResult>);
            bool Overrides(string name, params Type[] parameters) => type.GetMethod(name, Flags, binder: null, parameters, modifiers: null)?.DeclaringType != self;

            bool asyncSplit = Overrides(nameof(SplitAsync), typeof(TProblem), typeof(int), typeof(CancellationToken));
            bool asyncMerge = Overrides(nameof(MergeAsync), typeof(TProblem), typeof(IReadOnlyList<TResult>), typeof(int), typeof(CancellationToken));
            bool merge = Overrides(nameof(Merge), typeof(TProblem), typeof(IReadOnlyList<TResult>), typeof(int))
                || Overrides(nameof(Merge), typeof(IReadOnlyList<TResult>), typeof(int));
            return (!asyncSplit && !asyncMerge, merge || asyncMerge);
        });
}
