namespace DivCon.Skeletons;

/// <summary>
/// Builds divide-and-conquer programs from lambdas (the declarative model). The result is an ordinary
/// <see cref="DivideAndConquer{TProblem, TResult}"/>: run it with <c>RunAsync</c>, on any scheduler, with either engine.
/// </summary>
/// <example>
/// A quicksort in a few lines:
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
/// </example>
public static partial class DivideAndConquer
{
    /// <summary>Creates a program from four synchronous functions.</summary>
    /// <typeparam name="TProblem">A problem or subproblem.</typeparam>
    /// <typeparam name="TResult">The result of a (sub)problem.</typeparam>
    /// <param name="shouldSplit">(problem, depth) =&gt; whether to divide it; the root is at depth 0.</param>
    /// <param name="split">(problem, depth) =&gt; at least one subproblem.</param>
    /// <param name="execute">(problem, depth) =&gt; its result, computed directly (the base case).</param>
    /// <param name="merge">(subresults in subproblem order, depth) =&gt; the result of the split node.</param>
    /// <param name="options">Default options of the program; <see langword="null"/>: <see cref="DivideAndConquerOptions.Default"/>.</param>
    /// <param name="granularity">Which nodes become tasks; <see langword="null"/>: <see cref="Granularity.Automatic()"/>.</param>
    /// <returns>The program.</returns>
    /// <exception cref="ArgumentNullException">A function is <see langword="null"/>.</exception>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("ApiDesign", "RS0026:Do not add multiple public overloads with optional parameters",
        Justification = "The two overloads differ in a required parameter (the merge delegate's arity), so a call never binds to the other one through its optional parameters; both are new since the 0.1.0 baseline, which was never published.")]
    public static DivideAndConquer<TProblem, TResult> Create<TProblem, TResult>(
        Func<TProblem, int, bool> shouldSplit,
        Func<TProblem, int, IReadOnlyList<TProblem>> split,
        Func<TProblem, int, TResult> execute,
        Func<IReadOnlyList<TResult>, int, TResult> merge,
        DivideAndConquerOptions? options = null,
        Granularity? granularity = null)
    {
        ArgumentNullException.ThrowIfNull(merge);
        return Create(shouldSplit, split, execute, merge, mergeWithProblem: null, options, granularity);
    }

    /// <summary>
    /// Creates a program from four synchronous functions whose merge also receives the problem that was split (its
    /// split points, its output buffer), so results need not carry them.
    /// </summary>
    /// <typeparam name="TProblem">A problem or subproblem.</typeparam>
    /// <typeparam name="TResult">The result of a (sub)problem.</typeparam>
    /// <param name="shouldSplit">(problem, depth) =&gt; whether to divide it; the root is at depth 0.</param>
    /// <param name="split">(problem, depth) =&gt; at least one subproblem.</param>
    /// <param name="execute">(problem, depth) =&gt; its result, computed directly (the base case).</param>
    /// <param name="merge">(the problem that was split, subresults in subproblem order, depth) =&gt; the result of the split node.</param>
    /// <param name="options">Default options of the program; <see langword="null"/>: <see cref="DivideAndConquerOptions.Default"/>.</param>
    /// <param name="granularity">Which nodes become tasks; <see langword="null"/>: <see cref="Granularity.Automatic()"/>.</param>
    /// <returns>The program.</returns>
    /// <exception cref="ArgumentNullException">A function is <see langword="null"/>.</exception>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("ApiDesign", "RS0026:Do not add multiple public overloads with optional parameters",
        Justification = "The two overloads differ in a required parameter (the merge delegate's arity), so a call never binds to the other one through its optional parameters; both are new since the 0.1.0 baseline, which was never published.")]
    public static DivideAndConquer<TProblem, TResult> Create<TProblem, TResult>(
        Func<TProblem, int, bool> shouldSplit,
        Func<TProblem, int, IReadOnlyList<TProblem>> split,
        Func<TProblem, int, TResult> execute,
        Func<TProblem, IReadOnlyList<TResult>, int, TResult> merge,
        DivideAndConquerOptions? options = null,
        Granularity? granularity = null)
    {
        ArgumentNullException.ThrowIfNull(merge);
        return Create(shouldSplit, split, execute, merge: null, merge, options, granularity);
    }

    /// <summary>
    /// Creates a program whose every split makes exactly two subproblems, from four synchronous functions that pass
    /// subproblems and results as values: the form of most divide and conquer (halving a range, fib, Karatsuba's
    /// two-way variants), and the one whose inline subtrees allocate nothing of their own. A node that runs as a task
    /// keeps its two children and results in its task's state; nodes below the granularity's cutoff run in a plain
    /// recursion with no list, array or task, so a fine-grained program costs about what the same four functions
    /// cost when called by hand.
    /// </summary>
    /// <typeparam name="TProblem">A problem or subproblem.</typeparam>
    /// <typeparam name="TResult">The result of a (sub)problem.</typeparam>
    /// <param name="shouldSplit">(problem, depth) =&gt; whether to divide it; the root is at depth 0.</param>
    /// <param name="split">(problem, depth) =&gt; its two subproblems.</param>
    /// <param name="execute">(problem, depth) =&gt; its result, computed directly (the base case).</param>
    /// <param name="merge">(the problem that was split, the left result, the right result, depth) =&gt; the result of the split node.</param>
    /// <param name="options">Default options of the program; <see langword="null"/>: <see cref="DivideAndConquerOptions.Default"/>.</param>
    /// <param name="granularity">Which nodes become tasks; <see langword="null"/>: <see cref="Granularity.Automatic()"/>.</param>
    /// <returns>The program (an ordinary <see cref="DivideAndConquer{TProblem, TResult}"/>: every engine, scheduler, observer and granularity applies).</returns>
    /// <exception cref="ArgumentNullException">A function is <see langword="null"/>.</exception>
    /// <example>
    /// <code>
    /// var fib = DivideAndConquer.CreateBinary&lt;int, long&gt;(
    ///     shouldSplit: (n, depth) =&gt; n &gt; 1,
    ///     split: (n, depth) =&gt; (n - 1, n - 2),
    ///     execute: (n, depth) =&gt; n,
    ///     merge: (n, left, right, depth) =&gt; left + right);
    /// long f32 = await fib.RunAsync(32);
    /// </code>
    /// </example>
    public static DivideAndConquer<TProblem, TResult> CreateBinary<TProblem, TResult>(
        Func<TProblem, int, bool> shouldSplit,
        Func<TProblem, int, (TProblem Left, TProblem Right)> split,
        Func<TProblem, int, TResult> execute,
        Func<TProblem, TResult, TResult, int, TResult> merge,
        DivideAndConquerOptions? options = null,
        Granularity? granularity = null)
    {
        ArgumentNullException.ThrowIfNull(shouldSplit);
        ArgumentNullException.ThrowIfNull(split);
        ArgumentNullException.ThrowIfNull(execute);
        ArgumentNullException.ThrowIfNull(merge);
        return new BinaryDelegateDivideAndConquer<TProblem, TResult>(shouldSplit, split, execute, merge, options)
        {
            Granularity = granularity ?? Granularity.Automatic(),
        };
    }

    private static DivideAndConquer<TProblem, TResult> Create<TProblem, TResult>(
        Func<TProblem, int, bool> shouldSplit,
        Func<TProblem, int, IReadOnlyList<TProblem>> split,
        Func<TProblem, int, TResult> execute,
        Func<IReadOnlyList<TResult>, int, TResult>? merge,
        Func<TProblem, IReadOnlyList<TResult>, int, TResult>? mergeWithProblem,
        DivideAndConquerOptions? options,
        Granularity? granularity)
    {
        ArgumentNullException.ThrowIfNull(shouldSplit);
        ArgumentNullException.ThrowIfNull(split);
        ArgumentNullException.ThrowIfNull(execute);
        return new DelegateDivideAndConquer<TProblem, TResult>(shouldSplit, split, execute, merge, mergeWithProblem, options)
        {
            Granularity = granularity ?? Granularity.Automatic(),
        };
    }

    /// <summary>
    /// Creates a program whose split and merge may complete later, without holding a thread: the way to nest
    /// parallelism (for example a merge that runs another skeleton, or <see cref="ForAsync"/>, which by default run on
    /// the node's scheduler, <see cref="TaskScheduler.Current"/>).
    /// </summary>
    /// <typeparam name="TProblem">A problem or subproblem.</typeparam>
    /// <typeparam name="TResult">The result of a (sub)problem.</typeparam>
    /// <param name="shouldSplit">(problem, depth) =&gt; whether to divide it; the root is at depth 0.</param>
    /// <param name="splitAsync">(problem, depth, token) =&gt; at least one subproblem, now or later.</param>
    /// <param name="execute">(problem, depth) =&gt; its result, computed directly (the base case).</param>
    /// <param name="mergeAsync">(subresults in subproblem order, depth, token) =&gt; the merged result, now or later.</param>
    /// <param name="options">Default options of the program; <see langword="null"/>: <see cref="DivideAndConquerOptions.Default"/>.</param>
    /// <param name="granularity">
    /// Which nodes become tasks; <see langword="null"/>: <see cref="Granularity.Automatic()"/>. As for a synchronous
    /// program, a node whose subtree is predicted cheap runs it on its own thread: its children and merge are called
    /// directly instead of queued, and a split or merge that completes at once costs no task; one that completes later
    /// resumes its node on the run's scheduler.
    /// </param>
    /// <returns>The program.</returns>
    /// <exception cref="ArgumentNullException">A function is <see langword="null"/>.</exception>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("ApiDesign", "RS0026:Do not add multiple public overloads with optional parameters",
        Justification = "The overloads differ in required parameters (the split's and the merge delegate's arity), so a call never binds to another one through its optional parameters.")]
    public static DivideAndConquer<TProblem, TResult> CreateAsync<TProblem, TResult>(
        Func<TProblem, int, bool> shouldSplit,
        Func<TProblem, int, CancellationToken, ValueTask<IReadOnlyList<TProblem>>> splitAsync,
        Func<TProblem, int, TResult> execute,
        Func<IReadOnlyList<TResult>, int, CancellationToken, ValueTask<TResult>> mergeAsync,
        DivideAndConquerOptions? options = null,
        Granularity? granularity = null)
    {
        ArgumentNullException.ThrowIfNull(splitAsync);
        ArgumentNullException.ThrowIfNull(mergeAsync);
        return CreateAsync(shouldSplit, splitAsync, split: null, execute, mergeAsync, mergeWithProblemAsync: null, options, granularity);
    }

    /// <summary>
    /// Creates a program whose split and merge may complete later (see the first overload), and whose merge also
    /// receives the problem that was split (its split points, its output buffer), so results need not carry them.
    /// </summary>
    /// <typeparam name="TProblem">A problem or subproblem.</typeparam>
    /// <typeparam name="TResult">The result of a (sub)problem.</typeparam>
    /// <param name="shouldSplit">(problem, depth) =&gt; whether to divide it; the root is at depth 0.</param>
    /// <param name="splitAsync">(problem, depth, token) =&gt; at least one subproblem, now or later.</param>
    /// <param name="execute">(problem, depth) =&gt; its result, computed directly (the base case).</param>
    /// <param name="mergeAsync">(the problem that was split, subresults in subproblem order, depth, token) =&gt; the merged result, now or later.</param>
    /// <param name="options">Default options of the program; <see langword="null"/>: <see cref="DivideAndConquerOptions.Default"/>.</param>
    /// <param name="granularity">Which nodes become tasks; <see langword="null"/>: <see cref="Granularity.Automatic()"/> (see the first overload).</param>
    /// <returns>The program.</returns>
    /// <exception cref="ArgumentNullException">A function is <see langword="null"/>.</exception>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("ApiDesign", "RS0026:Do not add multiple public overloads with optional parameters",
        Justification = "The overloads differ in required parameters (the split's and the merge delegate's arity), so a call never binds to another one through its optional parameters.")]
    public static DivideAndConquer<TProblem, TResult> CreateAsync<TProblem, TResult>(
        Func<TProblem, int, bool> shouldSplit,
        Func<TProblem, int, CancellationToken, ValueTask<IReadOnlyList<TProblem>>> splitAsync,
        Func<TProblem, int, TResult> execute,
        Func<TProblem, IReadOnlyList<TResult>, int, CancellationToken, ValueTask<TResult>> mergeAsync,
        DivideAndConquerOptions? options = null,
        Granularity? granularity = null)
    {
        ArgumentNullException.ThrowIfNull(splitAsync);
        ArgumentNullException.ThrowIfNull(mergeAsync);
        return CreateAsync(shouldSplit, splitAsync, split: null, execute, mergeAsync: null, mergeAsync, options, granularity);
    }

    /// <summary>
    /// Creates a program whose split is synchronous (it returns its subproblems, no <see cref="ValueTask{TResult}"/>
    /// to spell out) and whose merge may complete later: the usual shape of a nested program, whose parallel part is
    /// in the merge.
    /// </summary>
    /// <typeparam name="TProblem">A problem or subproblem.</typeparam>
    /// <typeparam name="TResult">The result of a (sub)problem.</typeparam>
    /// <param name="shouldSplit">(problem, depth) =&gt; whether to divide it; the root is at depth 0.</param>
    /// <param name="split">(problem, depth) =&gt; at least one subproblem.</param>
    /// <param name="execute">(problem, depth) =&gt; its result, computed directly (the base case).</param>
    /// <param name="mergeAsync">(subresults in subproblem order, depth, token) =&gt; the merged result, now or later.</param>
    /// <param name="options">Default options of the program; <see langword="null"/>: <see cref="DivideAndConquerOptions.Default"/>.</param>
    /// <param name="granularity">Which nodes become tasks; <see langword="null"/>: <see cref="Granularity.Automatic()"/> (see the first overload).</param>
    /// <returns>The program.</returns>
    /// <exception cref="ArgumentNullException">A function is <see langword="null"/>.</exception>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("ApiDesign", "RS0026:Do not add multiple public overloads with optional parameters",
        Justification = "The overloads differ in required parameters (the split's and the merge delegate's arity), so a call never binds to another one through its optional parameters.")]
    public static DivideAndConquer<TProblem, TResult> CreateAsync<TProblem, TResult>(
        Func<TProblem, int, bool> shouldSplit,
        Func<TProblem, int, IReadOnlyList<TProblem>> split,
        Func<TProblem, int, TResult> execute,
        Func<IReadOnlyList<TResult>, int, CancellationToken, ValueTask<TResult>> mergeAsync,
        DivideAndConquerOptions? options = null,
        Granularity? granularity = null)
    {
        ArgumentNullException.ThrowIfNull(split);
        ArgumentNullException.ThrowIfNull(mergeAsync);
        return CreateAsync(shouldSplit, splitAsync: null, split, execute, mergeAsync, mergeWithProblemAsync: null, options, granularity);
    }

    /// <summary>
    /// Creates a program whose split is synchronous and whose merge may complete later (see the previous overload),
    /// the merge also receiving the problem that was split.
    /// </summary>
    /// <typeparam name="TProblem">A problem or subproblem.</typeparam>
    /// <typeparam name="TResult">The result of a (sub)problem.</typeparam>
    /// <param name="shouldSplit">(problem, depth) =&gt; whether to divide it; the root is at depth 0.</param>
    /// <param name="split">(problem, depth) =&gt; at least one subproblem.</param>
    /// <param name="execute">(problem, depth) =&gt; its result, computed directly (the base case).</param>
    /// <param name="mergeAsync">(the problem that was split, subresults in subproblem order, depth, token) =&gt; the merged result, now or later.</param>
    /// <param name="options">Default options of the program; <see langword="null"/>: <see cref="DivideAndConquerOptions.Default"/>.</param>
    /// <param name="granularity">Which nodes become tasks; <see langword="null"/>: <see cref="Granularity.Automatic()"/> (see the first overload).</param>
    /// <returns>The program.</returns>
    /// <exception cref="ArgumentNullException">A function is <see langword="null"/>.</exception>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("ApiDesign", "RS0026:Do not add multiple public overloads with optional parameters",
        Justification = "The overloads differ in required parameters (the split's and the merge delegate's arity), so a call never binds to another one through its optional parameters.")]
    public static DivideAndConquer<TProblem, TResult> CreateAsync<TProblem, TResult>(
        Func<TProblem, int, bool> shouldSplit,
        Func<TProblem, int, IReadOnlyList<TProblem>> split,
        Func<TProblem, int, TResult> execute,
        Func<TProblem, IReadOnlyList<TResult>, int, CancellationToken, ValueTask<TResult>> mergeAsync,
        DivideAndConquerOptions? options = null,
        Granularity? granularity = null)
    {
        ArgumentNullException.ThrowIfNull(split);
        ArgumentNullException.ThrowIfNull(mergeAsync);
        return CreateAsync(shouldSplit, splitAsync: null, split, execute, mergeAsync: null, mergeAsync, options, granularity);
    }

    /// <summary>
    /// Creates a program whose every split makes exactly two subproblems, returned as a pair, and whose merge receives
    /// the two results as values and may complete later (for example after a nested <see cref="ForAsync"/> loop).
    /// </summary>
    /// <typeparam name="TProblem">A problem or subproblem.</typeparam>
    /// <typeparam name="TResult">The result of a (sub)problem.</typeparam>
    /// <param name="shouldSplit">(problem, depth) =&gt; whether to divide it; the root is at depth 0.</param>
    /// <param name="split">(problem, depth) =&gt; its two subproblems.</param>
    /// <param name="execute">(problem, depth) =&gt; its result, computed directly (the base case).</param>
    /// <param name="mergeAsync">(the problem that was split, the left result, the right result, depth, token) =&gt; the merged result, now or later.</param>
    /// <param name="options">Default options of the program; <see langword="null"/>: <see cref="DivideAndConquerOptions.Default"/>.</param>
    /// <param name="granularity">Which nodes become tasks; <see langword="null"/>: <see cref="Granularity.Automatic()"/> (see <c>CreateAsync</c>).</param>
    /// <returns>The program.</returns>
    /// <exception cref="ArgumentNullException">A function is <see langword="null"/>.</exception>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("ApiDesign", "RS0026:Do not add multiple public overloads with optional parameters",
        Justification = "The two overloads differ in a required parameter (the split delegate's arity), so a call never binds to the other one through its optional parameters.")]
    public static DivideAndConquer<TProblem, TResult> CreateBinaryAsync<TProblem, TResult>(
        Func<TProblem, int, bool> shouldSplit,
        Func<TProblem, int, (TProblem Left, TProblem Right)> split,
        Func<TProblem, int, TResult> execute,
        Func<TProblem, TResult, TResult, int, CancellationToken, ValueTask<TResult>> mergeAsync,
        DivideAndConquerOptions? options = null,
        Granularity? granularity = null)
    {
        ArgumentNullException.ThrowIfNull(split);
        return CreateBinaryAsync(shouldSplit, splitAsync: null, split, execute, mergeAsync, options, granularity);
    }

    /// <summary>
    /// Creates a program whose every split makes exactly two subproblems, now or later (for example after a nested
    /// loop that partitions the data), and whose merge receives the two results as values and may complete later.
    /// </summary>
    /// <typeparam name="TProblem">A problem or subproblem.</typeparam>
    /// <typeparam name="TResult">The result of a (sub)problem.</typeparam>
    /// <param name="shouldSplit">(problem, depth) =&gt; whether to divide it; the root is at depth 0.</param>
    /// <param name="splitAsync">(problem, depth, token) =&gt; its two subproblems, now or later.</param>
    /// <param name="execute">(problem, depth) =&gt; its result, computed directly (the base case).</param>
    /// <param name="mergeAsync">(the problem that was split, the left result, the right result, depth, token) =&gt; the merged result, now or later.</param>
    /// <param name="options">Default options of the program; <see langword="null"/>: <see cref="DivideAndConquerOptions.Default"/>.</param>
    /// <param name="granularity">Which nodes become tasks; <see langword="null"/>: <see cref="Granularity.Automatic()"/> (see <c>CreateAsync</c>).</param>
    /// <returns>The program.</returns>
    /// <exception cref="ArgumentNullException">A function is <see langword="null"/>.</exception>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("ApiDesign", "RS0026:Do not add multiple public overloads with optional parameters",
        Justification = "The two overloads differ in a required parameter (the split delegate's arity), so a call never binds to the other one through its optional parameters.")]
    public static DivideAndConquer<TProblem, TResult> CreateBinaryAsync<TProblem, TResult>(
        Func<TProblem, int, bool> shouldSplit,
        Func<TProblem, int, CancellationToken, ValueTask<(TProblem Left, TProblem Right)>> splitAsync,
        Func<TProblem, int, TResult> execute,
        Func<TProblem, TResult, TResult, int, CancellationToken, ValueTask<TResult>> mergeAsync,
        DivideAndConquerOptions? options = null,
        Granularity? granularity = null)
    {
        ArgumentNullException.ThrowIfNull(splitAsync);
        return CreateBinaryAsync(shouldSplit, splitAsync, split: null, execute, mergeAsync, options, granularity);
    }

    private static DivideAndConquer<TProblem, TResult> CreateBinaryAsync<TProblem, TResult>(
        Func<TProblem, int, bool> shouldSplit,
        Func<TProblem, int, CancellationToken, ValueTask<(TProblem Left, TProblem Right)>>? splitAsync,
        Func<TProblem, int, (TProblem Left, TProblem Right)>? split,
        Func<TProblem, int, TResult> execute,
        Func<TProblem, TResult, TResult, int, CancellationToken, ValueTask<TResult>> mergeAsync,
        DivideAndConquerOptions? options,
        Granularity? granularity)
    {
        ArgumentNullException.ThrowIfNull(shouldSplit);
        ArgumentNullException.ThrowIfNull(execute);
        ArgumentNullException.ThrowIfNull(mergeAsync);
        return new BinaryAsyncDelegateDivideAndConquer<TProblem, TResult>(shouldSplit, splitAsync, split, execute, mergeAsync, options)
        {
            Granularity = granularity ?? Granularity.Automatic(),
        };
    }

    private static DivideAndConquer<TProblem, TResult> CreateAsync<TProblem, TResult>(
        Func<TProblem, int, bool> shouldSplit,
        Func<TProblem, int, CancellationToken, ValueTask<IReadOnlyList<TProblem>>>? splitAsync,
        Func<TProblem, int, IReadOnlyList<TProblem>>? split,
        Func<TProblem, int, TResult> execute,
        Func<IReadOnlyList<TResult>, int, CancellationToken, ValueTask<TResult>>? mergeAsync,
        Func<TProblem, IReadOnlyList<TResult>, int, CancellationToken, ValueTask<TResult>>? mergeWithProblemAsync,
        DivideAndConquerOptions? options,
        Granularity? granularity)
    {
        ArgumentNullException.ThrowIfNull(shouldSplit);
        ArgumentNullException.ThrowIfNull(execute);
        return new AsyncDelegateDivideAndConquer<TProblem, TResult>(shouldSplit, splitAsync, split, execute, mergeAsync, mergeWithProblemAsync, options)
        {
            Granularity = granularity ?? Granularity.Automatic(),
        };
    }
}
