using System.Collections.Concurrent;
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace DivCon.Skeletons.Engines;

/// <summary>
/// The learned leaf cost of the nested loops (<see cref="DivideAndConquer.ForAsync"/>,
/// <see cref="DivideAndConquer.MapReduceAsync"/>), shared by every loop made from the same code: a node creates its
/// loop afresh each time (a closure over its own data), so a memory kept per instance would never predict anything.
/// </summary>
/// <remarks>
/// Keyed by the body's method (its <see cref="RuntimeMethodHandle"/>, the same for every closure of one lambda), or by
/// an explicit key object (held weakly). A value is one double written and read whole (see
/// <see cref="LeafCostMemory"/>): concurrent loops overwrite each other's measurement of the same code, and a foreign or
/// stale value only moves where a loop is cut or whether it runs inline, never what it computes.
/// <para>Finding the method of a delegate (<see cref="Delegate.Method"/>) is a reflection lookup that a node's new
/// closure repeats on every call, about as long as the rest of an inline loop's overhead. On .NET the memory is
/// therefore looked up first by the delegate's code pointers (read from the delegate, no reflection), which every
/// closure of one lambda shares; only a pointer pair not seen before goes through the method, so two pairs of one
/// method (different stubs) still share its memory. A pair could be reused only by code loaded after a collectible
/// assembly was unloaded, which would then start from the unloaded code's cost: a prediction, never a result.</para>
/// </remarks>
internal static class LoopCosts
{
    private static readonly ConcurrentDictionary<IntPtr, LeafCostMemory> s_byCode = new();
    private static readonly ConditionalWeakTable<object, LeafCostMemory> s_byKey = new();

    /// <summary>The memory of <paramref name="key"/>, or of <paramref name="code"/>'s method when the key is null.</summary>
    public static LeafCostMemory For(Delegate code, object? key) =>
        key is null ? ForCode(code) : s_byKey.GetValue(key, static _ => new LeafCostMemory());

    /// <summary>The memory of <paramref name="code"/>'s method, found by reflection (the slow path).</summary>
    internal static LeafCostMemory ForMethod(Delegate code) =>
        s_byCode.GetOrAdd(code.Method.MethodHandle.Value, static _ => new LeafCostMemory());

#if NET8_0_OR_GREATER
    // The delegate's entry point, and for a static method the real target behind the shuffle thunk in _methodPtr.
    private static readonly ConcurrentDictionary<(IntPtr Code, IntPtr Auxiliary), LeafCostMemory> s_byEntryPoint = new();

    // 0: not tried yet, 1: the runtime's delegates have the fields, -1: they do not (another runtime): reflection only.
    private static int s_entryPoints;

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_invocationList")]
    private static extern ref object? InvocationList(MulticastDelegate code);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_methodPtr")]
    private static extern ref IntPtr MethodPointer(Delegate code);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_methodPtrAux")]
    private static extern ref IntPtr AuxiliaryMethodPointer(Delegate code);

    private static LeafCostMemory ForCode(Delegate code)
    {
        if (Volatile.Read(ref s_entryPoints) >= 0 && EntryPointOf(code) is { } entryPoint)
        {
            return s_byEntryPoint.TryGetValue(entryPoint, out var memory)
                ? memory
                : s_byEntryPoint.GetOrAdd(entryPoint, ForMethod(code));
        }

        return ForMethod(code);
    }

    private static (IntPtr Code, IntPtr Auxiliary)? EntryPointOf(Delegate code)
    {
        try
        {
            // A combined delegate's pointers are its invocation stub's, the same for every combination: by reflection.
            bool single = code is not MulticastDelegate multicast || InvocationList(multicast) is null;
            var entryPoint = (MethodPointer(code), AuxiliaryMethodPointer(code));
            Volatile.Write(ref s_entryPoints, 1);
            return single && entryPoint.Item1 != IntPtr.Zero ? entryPoint : null;
        }
        catch (MissingFieldException)
        {
            // A runtime whose delegates are laid out differently (NativeAOT, Mono): reflection from now on.
            Volatile.Write(ref s_entryPoints, -1);
            return null;
        }
    }
#else
    private static LeafCostMemory ForCode(Delegate code) => ForMethod(code);
#endif
}

/// <summary>
/// How a nested loop runs: inline (one sequential pass on the calling thread, a completed <see cref="ValueTask{TResult}"/>)
/// when its caller runs inline, when the enclosing runs already keep every worker busy, or when its remembered cost per
/// unit predicts less than twice the minimum task cost (<see cref="RunsSequentially"/>); otherwise as a run on the
/// options' scheduler (the caller's by default): of <see cref="DealtLoop"/> for an index loop whose indexes are
/// predicted expensive (<see cref="DealtChunk"/>), else of <see cref="LoopProgram{TProblem, TResult}"/>, which halves.
/// </summary>
internal static class NestedLoop
{
    public static ValueTask<TResult> Run<TProblem, TResult>(
        TProblem problem,
        Func<TProblem, long> getSize,
        Func<TProblem, (TProblem Left, TProblem Right)> split,
        Func<TProblem, TResult> map,
        Func<TResult, TResult, TResult> reduce,
        LeafCostMemory memory,
        DivideAndConquerOptions? options,
        CancellationToken cancellationToken,
        bool dealIndexes = false)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return new ValueTask<TResult>(Task.FromCanceled<TResult>(cancellationToken));
        }

        options ??= DivideAndConquerOptions.Default;
        var granularity = options.Granularity ?? Granularity.Automatic();
        long size;
        try
        {
            size = getSize(problem);
        }
        catch (Exception e)
        {
            return new ValueTask<TResult>(Task.FromException<TResult>(e));
        }

        if (size < 0)
        {
            return new ValueTask<TResult>(Task.FromException<TResult>(
                new InvalidOperationException($"getSize returned {size} for the loop's problem; sizes must be >= 0.")));
        }

        bool timed = granularity.Kind == GranularityKind.Automatic && granularity.MinimumTaskCost > TimeSpan.Zero;
        int workers = GranularityPolicy.WorkerCount(options.Scheduler.MaximumConcurrencyLevel, Environment.ProcessorCount);
        long minimumTicks = ToTicks(granularity.MinimumTaskCost);
        double costPerUnit = memory.CostPerUnit;
        if (size <= 1 || granularity.Kind == GranularityKind.Sequential || (timed && RunsSequentially(
                RunFamily.CallerRunsInline,
                RunFamily.Current?.ActiveTasks ?? 0,
                workers,
                costPerUnit,
                size,
                minimumTicks)))
        {
            return RunInline(problem, size, map, timed ? memory : null, cancellationToken);
        }

        if (dealIndexes && timed && DealtChunk(costPerUnit, Math.Max(minimumTicks, 1)) is > 0 and int chunk
            && Dealers(size, chunk, DealerSlots(workers, options.Scheduler == TaskScheduler.Default)) is >= 2 and int dealers)
        {
            // Only the index loops pass dealIndexes, and their problem is an IndexRange and their map returns a byte.
            var range = (IndexRange)(object)problem!;
            var indexMap = (Func<IndexRange, byte>)(object)map;
            var dealt = DealtLoop.RunAsync(range, chunk, dealers, SliceTicks(minimumTicks), indexMap, memory, options, cancellationToken);
            return new ValueTask<TResult>((Task<TResult>)(object)dealt);
        }

        var program = new LoopProgram<TProblem, TResult>(getSize, split, map, reduce, memory);
        return new ValueTask<TResult>(program.RunAsync(problem, options, cancellationToken));
    }

    /// <summary>
    /// Whether a loop with the automatic granularity runs as one sequential pass on the calling thread instead of as a
    /// run (a pure function of what the caller knows when the loop starts). Sequential when any of these holds:
    /// <list type="bullet">
    /// <item>the caller is a node of an inline subtree (<paramref name="callerRunsInline"/>): that subtree was predicted
    /// cheaper than one task, and the loop is part of its cost;</item>
    /// <item>the enclosing runs already have at least one task queued or running per worker
    /// (<paramref name="activeTasks"/> &gt;= <paramref name="workers"/>): every worker has the enclosing program's work to
    /// do or to steal, so the loop's tasks could only take a worker from that work (the loop's pass is the caller's share
    /// of it);</item>
    /// <item>the loop is predicted cheaper than two tasks' minimum cost (<paramref name="costPerUnit"/> times
    /// <paramref name="size"/> below twice <paramref name="minimumTicks"/>): a run could not cut it into two pieces
    /// each worth a task (its halves would run as one batch, see <c>ContinuationNode.SiblingsPerTask</c>), so it would
    /// only add a task, its root, to the same sequential pass.</item>
    /// </list>
    /// A loop outside any run (<paramref name="activeTasks"/> 0, not inline) is decided by its cost alone.
    /// </summary>
    /// <param name="callerRunsInline">Whether the loop was started by a node of an inline subtree.</param>
    /// <param name="activeTasks">Tasks of the enclosing runs queued or running (0 outside a run).</param>
    /// <param name="workers">The workers of the loop's scheduler, at least 1.</param>
    /// <param name="costPerUnit">The loop code's remembered cost per unit in Stopwatch ticks; +infinity when unknown.</param>
    /// <param name="size">The loop's size in units.</param>
    /// <param name="minimumTicks">The minimum task cost in Stopwatch ticks.</param>
    /// <returns>True to run the loop sequentially on the calling thread.</returns>
    internal static bool RunsSequentially(bool callerRunsInline, int activeTasks, int workers, double costPerUnit, long size, long minimumTicks) =>
        callerRunsInline
        || activeTasks >= workers
        || (!double.IsPositiveInfinity(costPerUnit) && costPerUnit * size < 2.0 * minimumTicks);

    /// <summary>
    /// The most indexes in a dealt chunk: an index loop is dealt out (<see cref="DealtLoop"/>) only when an index is
    /// predicted to cost at least 1/<see cref="MaximumDealtChunk"/> of the minimum task cost. Cheaper indexes keep the
    /// halving, whose contiguous leaves keep consecutive indexes on one core.
    /// </summary>
    internal const int MaximumDealtChunk = 4;

    /// <summary>
    /// How long a dealer of a <see cref="DealtLoop"/> keeps its worker before giving it back to the scheduler (when
    /// indexes are left), in minimum task costs: a few, so that the extra task per slice costs well under 1% and the
    /// worker still returns to its scheduler about every 0.4 ms at the default cost (see the loop's remarks).
    /// </summary>
    internal const int DealerSlice = 4;

    /// <summary>A dealer's slice in Stopwatch ticks: <see cref="DealerSlice"/> minimum task costs, at least 1 tick, saturated.</summary>
    /// <param name="minimumTicks">The minimum task cost in Stopwatch ticks.</param>
    /// <returns>The slice.</returns>
    internal static long SliceTicks(long minimumTicks) =>
        minimumTicks >= long.MaxValue / DealerSlice ? long.MaxValue : DealerSlice * Math.Max(minimumTicks, 1);

    /// <summary>
    /// How many indexes of a parallel index loop a dealer takes at a time, or 0 to halve the range instead (a pure
    /// function of the loop code's remembered cost). Dealt when a chunk of at most <see cref="MaximumDealtChunk"/>
    /// indexes is predicted to cost at least the minimum task cost: the loop's iterations are few and expensive, so
    /// halving would make leaves of a few indexes each, and contiguous halves of such a range can end unevenly.
    /// </summary>
    /// <param name="costPerUnit">The remembered cost per index in Stopwatch ticks, above 0; +infinity when unknown (halve and measure).</param>
    /// <param name="minimumTicks">The minimum task cost in Stopwatch ticks, at least 1.</param>
    /// <returns>The chunk, ceil(<paramref name="minimumTicks"/> / <paramref name="costPerUnit"/>) between 1 and <see cref="MaximumDealtChunk"/>; or 0.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="costPerUnit"/> is not above 0 (or NaN), or <paramref name="minimumTicks"/> is less than 1.</exception>
    internal static int DealtChunk(double costPerUnit, long minimumTicks)
    {
        if (double.IsNaN(costPerUnit) || costPerUnit <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(costPerUnit), costPerUnit, "The cost per index must be above 0 (+infinity when unknown).");
        }

        ArgumentOutOfRangeException.ThrowIfLessThan(minimumTicks, 1);
        if (double.IsPositiveInfinity(costPerUnit))
        {
            return 0;
        }

        double chunk = Math.Ceiling(minimumTicks / costPerUnit);
        return chunk <= MaximumDealtChunk ? (int)chunk : 0;
    }

    /// <summary>
    /// How many indexes a dealer claims when <paramref name="remaining"/> are left (guided self-scheduling): the chunk,
    /// but at most the remaining indexes over twice the dealers, and at least one. Early claims are whole chunks; the
    /// last ones single indexes, so no dealer is left holding several while the others have run out.
    /// </summary>
    /// <param name="remaining">Indexes not yet claimed, at least 1.</param>
    /// <param name="chunk">The loop's chunk (<see cref="DealtChunk"/>), at least 1.</param>
    /// <param name="dealers">The loop's dealers, at least 1.</param>
    /// <returns>min(<paramref name="chunk"/>, max(1, <paramref name="remaining"/> / (2 <paramref name="dealers"/>))).</returns>
    /// <exception cref="ArgumentOutOfRangeException">An argument is less than 1.</exception>
    internal static int NextChunk(long remaining, int chunk, int dealers)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(remaining, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(chunk, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(dealers, 1);
        return (int)Math.Min(chunk, Math.Max(1, remaining / (2L * dealers)));
    }

    /// <summary>
    /// Dealers per worker on the .NET thread pool (<see cref="TaskScheduler.Default"/>). The pool's threads are not its
    /// CPUs: it adds threads of its own accord (hill climbing, threads that wait elsewhere in the process), and the
    /// operating system time-slices them, so a dealer's thread is now and then descheduled while another pool thread
    /// runs. With one dealer per CPU that CPU's share of the loop stops meanwhile; with two, another dealer's thread
    /// takes the CPU and the loop goes on, as <c>Task.Run</c>'s many items do. Measured on 2 CPUs with phases shaped
    /// as sparse LU's (<c>scripts/dealt-phases.cs</c>): with the pool held at 11 threads or more, one dealer per worker
    /// took 1.017-1.026 of the ideal time where <c>Task.Run</c> and <c>Parallel.Invoke</c> took 0.998-1.005, two took
    /// 1.002-1.005; with the pool left alone two were as fast as one. A scheduler with a thread per worker (DivCon's
    /// own, a multiprogram program) keeps one dealer per worker: its workers are its threads.
    /// </summary>
    internal const int PoolDealersPerWorker = 2;

    /// <summary>How many dealers a loop may start per scheduler (a pure function of the scheduler's kind).</summary>
    /// <param name="workers">The scheduler's workers, at least 1.</param>
    /// <param name="onThreadPool">Whether the scheduler is the .NET thread pool.</param>
    /// <returns><paramref name="workers"/>, times <see cref="PoolDealersPerWorker"/> on the pool (saturated).</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="workers"/> is less than 1.</exception>
    internal static int DealerSlots(int workers, bool onThreadPool)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(workers, 1);
        return onThreadPool ? (int)Math.Min(int.MaxValue, (long)workers * PoolDealersPerWorker) : workers;
    }

    /// <summary>How many dealers a dealt loop starts: one per slot (<see cref="DealerSlots"/>), but no more than it has chunks.</summary>
    /// <param name="size">The loop's indexes, at least 1.</param>
    /// <param name="chunk">Indexes per chunk, at least 1.</param>
    /// <param name="workers">The dealer slots (<see cref="DealerSlots"/>), at least 1.</param>
    /// <returns>min(<paramref name="workers"/>, ceil(<paramref name="size"/> / <paramref name="chunk"/>)).</returns>
    /// <exception cref="ArgumentOutOfRangeException">An argument is less than 1.</exception>
    internal static int Dealers(long size, int chunk, int workers)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(size, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(chunk, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(workers, 1);
        long chunks = (size / chunk) + (size % chunk == 0 ? 0 : 1);
        return (int)Math.Min(workers, chunks);
    }

    private static long ToTicks(TimeSpan time) =>
        (long)Math.Min(time.TotalSeconds * Stopwatch.Frequency, long.MaxValue / 2);

    private static ValueTask<TResult> RunInline<TProblem, TResult>(
        TProblem problem, long size, Func<TProblem, TResult> map, LeafCostMemory? memory, CancellationToken cancellationToken)
    {
        try
        {
            long start = memory is null ? 0 : Stopwatch.GetTimestamp();
            var result = map(problem);
            if (memory is not null && size > 0)
            {
                // This pass's cost per unit replaces the remembered one (as a run's own measurement does).
                memory.Remember((double)Math.Max(Stopwatch.GetTimestamp() - start, 1) / size);
            }

            return new ValueTask<TResult>(result);
        }
        catch (OperationCanceledException e) when (e.CancellationToken == cancellationToken && cancellationToken.IsCancellationRequested)
        {
            return new ValueTask<TResult>(Task.FromCanceled<TResult>(cancellationToken));
        }
        catch (Exception e)
        {
            return new ValueTask<TResult>(Task.FromException<TResult>(e));
        }
    }
}

/// <summary>
/// A nested loop as a granular program: halves its problem while the run's size rule and leaf-duration bound say so,
/// maps a leaf, reduces two results; its leaf cost is the loop code's shared memory, and its runs predict subtrees from
/// it until they have measured their own (so small parts of a large loop run inline from the first run).
/// </summary>
/// <typeparam name="TProblem">The loop's problem (an index range, a slice of arrays...).</typeparam>
/// <typeparam name="TResult">The reduced result.</typeparam>
internal sealed class LoopProgram<TProblem, TResult>(
    Func<TProblem, long> getSize,
    Func<TProblem, (TProblem Left, TProblem Right)> split,
    Func<TProblem, TResult> map,
    Func<TResult, TResult, TResult> reduce,
    LeafCostMemory memory)
    : GranularDivideAndConquer<TProblem, TResult>(options: null, memory)
{
    private protected override bool PredictsSubtreesFromLeafCost => true;

    protected override long GetSize(TProblem problem) => getSize(problem);

    protected override IReadOnlyList<TProblem> Split(TProblem problem, int depth)
    {
        var (left, right) = split(problem);
        return new[] { left, right };
    }

    protected override TResult Execute(TProblem problem, int depth) => map(problem);

    protected override TResult Merge(IReadOnlyList<TResult> subresults, int depth) => reduce(subresults[0], subresults[1]);
}
