using DivCon.Skeletons;

namespace DivCon.Programs;

/// <summary>
/// A divide-and-conquer program as the harness drives it: deterministic input built from a size and a seed, a
/// parallel run on any scheduler, a sequential baseline, and verification of the last result.
/// </summary>
/// <remarks>
/// <para><b>The idea.</b> The algorithm itself is an ordinary <see cref="GranularDivideAndConquer{TProblem, TResult}"/>
/// (see <see cref="BenchmarkProgram{TProblem, TResult}.Skeleton"/>); this class owns its input, runs it and checks it, so
/// that experiments can treat every program alike. Create instances with <see cref="ProgramCatalog"/>.</para>
/// <para><b>Reruns.</b> No run changes the input (sorts write to a separate output array), so an instance can be run
/// any number of times on the same data, as the cyclic multiprogram tests do, without re-initialisation.</para>
/// <para><b>Warning.</b> An instance runs one run at a time: starting a run (or a verification) while one is in
/// progress throws <see cref="InvalidOperationException"/>. Create one instance per concurrent program. The guard is
/// needed, not a convenience: every run writes the instance's one result buffer (the sorted output, the product matrix,
/// the count) that <see cref="Verify"/> and the checksums read, so two overlapping runs would race on it and a
/// verification during a run would read a half-written result.</para>
/// </remarks>
/// <example>
/// <code>
/// var program = ProgramCatalog.Create("quicksort", SizePreset.Quick, seed: 1);
/// await program.RunParallelAsync(TaskScheduler.Default);
/// program.VerifyOrThrow();
/// </code>
/// </example>
public abstract class BenchmarkProgram
{
    // 1 while a run or a verification is in progress.
    private int _busy;

    /// <summary>Sets the identity of the program.</summary>
    /// <param name="name">The catalog name.</param>
    /// <param name="problemSize">The size the input was built from (its meaning depends on the program).</param>
    /// <param name="seed">The seed the input was built from.</param>
    private protected BenchmarkProgram(string name, long problemSize, int seed)
    {
        Name = name;
        ProblemSize = problemSize;
        Seed = seed;
    }

    /// <summary>The catalog name, e.g. <c>"quicksort"</c>.</summary>
    public string Name { get; }

    /// <summary>The size of the whole problem: elements, points, matrix order or n, as <see cref="ProgramCatalog"/> documents per program.</summary>
    public long ProblemSize { get; }

    /// <summary>The seed of the input data.</summary>
    public int Seed { get; }

    /// <summary>How many subproblems a split makes (at most, for programs whose splits vary).</summary>
    public abstract int BranchingFactor { get; }

    /// <summary>Where splitting stops; default <see cref="Granularity.Automatic()"/> (4 leaves per worker). Takes effect at the next run.</summary>
    public abstract Granularity Granularity { get; set; }

    /// <summary>The size threshold the last parallel run resolved its granularity to (0 before the first run or for a depth granularity).</summary>
    public abstract long EffectiveGranularity { get; }

    /// <summary>Whether a run has completed successfully, so that there is a result to verify.</summary>
    public abstract bool HasResult { get; }

    /// <summary>Whether a run or a verification is in progress.</summary>
    public bool IsBusy => Volatile.Read(ref _busy) != 0;

    /// <summary>
    /// Runs the program in parallel through the skeleton on <paramref name="scheduler"/>.
    /// </summary>
    /// <param name="scheduler">Where every task of the run goes.</param>
    /// <param name="engine">The execution engine (default: the non-blocking continuation engine).</param>
    /// <param name="observer">Receives every phase's duration (e.g. a <see cref="PhaseAggregator"/>); <see langword="null"/>: none.</param>
    /// <param name="cancellationToken">Stops the run.</param>
    /// <returns>A task that completes when the run and the recording of its result are done.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="scheduler"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="engine"/> is not defined.</exception>
    /// <exception cref="InvalidOperationException">The instance is already running.</exception>
    public Task RunParallelAsync(
        TaskScheduler scheduler,
        ExecutionEngine engine = ExecutionEngine.Continuation,
        IDivideAndConquerObserver? observer = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(scheduler);
        var options = DivideAndConquerOptions.Default with { Scheduler = scheduler, Engine = engine, Observer = observer };
        Claim();
        Task run;
        try
        {
            run = RunParallelCoreAsync(options, cancellationToken);
        }
        catch
        {
            Release();
            throw;
        }

        return ReleaseWhenDone(run);
    }

    /// <summary>
    /// Runs the program sequentially on the calling thread: the granularity is the whole problem, so this is exactly
    /// one call of the execute muscle (the baseline a speedup is measured against).
    /// </summary>
    /// <exception cref="InvalidOperationException">The instance is already running.</exception>
    public void RunSequential()
    {
        Claim();
        try
        {
            RunSequentialCore();
        }
        finally
        {
            Release();
        }
    }

    /// <summary>Checks the last result against a trusted computation (see each program for what that is).</summary>
    /// <returns>The outcome; a failure (not an exception) when there is no result yet.</returns>
    /// <exception cref="InvalidOperationException">The instance is running.</exception>
    public ProgramVerification Verify()
    {
        Claim();
        try
        {
            return HasResult ? VerifyCore() : ProgramVerification.Failure($"{Name} has no result to verify: no run has completed.");
        }
        finally
        {
            Release();
        }
    }

    /// <summary>Verifies and throws when the result is wrong.</summary>
    /// <exception cref="InvalidOperationException">The result is wrong or missing (the message says how), or the instance is running.</exception>
    public void VerifyOrThrow()
    {
        var verification = Verify();
        if (!verification.Succeeded)
        {
            throw new InvalidOperationException($"{Name} (size {ProblemSize}, seed {Seed}) failed verification: {verification.Message}");
        }
    }

    /// <summary>A short description of the last result (e.g. <c>"pi ~ 3.14159 (843314856 of 1073741824 inside)"</c>).</summary>
    /// <returns>The description, or a note that there is none yet.</returns>
    public abstract string DescribeResult();

    /// <summary>
    /// An order-sensitive 64-bit fingerprint of the input data (or of the parameters, for programs without input
    /// data). Equal before and after any run: no run changes its input.
    /// </summary>
    /// <returns>The fingerprint.</returns>
    public abstract ulong ComputeInputChecksum();

    /// <summary>
    /// An order-sensitive 64-bit fingerprint of the last result (the sorted output, the product matrix, the count).
    /// Equal for every run that computed the same result, whatever the scheduler, engine or granularity.
    /// </summary>
    /// <returns>The fingerprint.</returns>
    /// <exception cref="InvalidOperationException">There is no result yet.</exception>
    public abstract ulong ComputeResultChecksum();

    /// <inheritdoc/>
    public override string ToString() => $"{Name}(size {ProblemSize}, seed {Seed}, {Granularity})";

    /// <summary>Starts the parallel run (the instance is already claimed).</summary>
    /// <param name="options">Scheduler, engine and observer of the run.</param>
    /// <param name="cancellationToken">Stops the run.</param>
    /// <returns>The run, including recording its result.</returns>
    private protected abstract Task RunParallelCoreAsync(DivideAndConquerOptions options, CancellationToken cancellationToken);

    /// <summary>Runs the whole problem as one execute on the calling thread and records the result.</summary>
    private protected abstract void RunSequentialCore();

    /// <summary>Verifies the recorded result (there is one).</summary>
    /// <returns>The outcome.</returns>
    private protected abstract ProgramVerification VerifyCore();

    /// <summary>Throws unless a result exists.</summary>
    /// <exception cref="InvalidOperationException">No run has completed.</exception>
    private protected void ThrowIfNoResult()
    {
        if (!HasResult)
        {
            throw new InvalidOperationException($"{Name} has no result yet: run it first.");
        }
    }

    private void Claim()
    {
        // CompareExchange: two callers racing to start runs on one instance must not both win.
        if (Interlocked.CompareExchange(ref _busy, 1, 0) != 0)
        {
            throw new InvalidOperationException($"{Name} is already running (or verifying): an instance runs one run at a time; create one instance per concurrent program.");
        }
    }

    // Volatile: everything the run wrote happens before the next claimer sees the instance free.
    private void Release() => Volatile.Write(ref _busy, 0);

    // The run's tail now runs on its scheduler, so the run completes on one of the scheduler's threads. The task
    // returned to the caller completes its awaiters asynchronously (like a skeleton run's): a caller's
    // ConfigureAwait(false) or ExecuteSynchronously continuation never runs inline on the program's worker.
    private Task<bool> ReleaseWhenDone(Task run)
    {
        var done = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        run.ContinueWith(
            static (finished, state) =>
            {
                var (program, done) = ((BenchmarkProgram, TaskCompletionSource<bool>))state!;
                program.Release(); // Before the caller sees the run end: it may start the next run at once.
                if (finished.IsFaulted)
                {
                    done.TrySetException(finished.Exception!.InnerExceptions);
                }
                else if (finished.IsCanceled)
                {
                    try
                    {
                        finished.GetAwaiter().GetResult();
                    }
                    catch (OperationCanceledException canceled)
                    {
                        done.TrySetCanceled(canceled.CancellationToken);
                    }
                }
                else
                {
                    done.TrySetResult(true);
                }
            },
            (this, done),
            CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously | TaskContinuationOptions.DenyChildAttach,
            TaskScheduler.Default);
        return done.Task;
    }
}
