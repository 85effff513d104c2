using DivCon.Skeletons;

namespace DivCon.Programs;

/// <summary>
/// A <see cref="BenchmarkProgram"/> whose algorithm is the skeleton <see cref="Skeleton"/>; it records the skeleton's
/// result of each run as <see cref="LastResult"/>.
/// </summary>
/// <typeparam name="TProblem">The skeleton's problem type.</typeparam>
/// <typeparam name="TResult">The skeleton's result type.</typeparam>
public abstract class BenchmarkProgram<TProblem, TResult> : BenchmarkProgram
{
    private TResult _lastResult = default!;
    private bool _hasResult;

    /// <summary>Sets the identity of the program.</summary>
    /// <param name="name">The catalog name.</param>
    /// <param name="problemSize">The size the input was built from.</param>
    /// <param name="seed">The seed the input was built from.</param>
    private protected BenchmarkProgram(string name, long problemSize, int seed)
        : base(name, problemSize, seed)
    {
    }

    /// <summary>The divide-and-conquer algorithm this program runs (its options are not used: each run passes its own).</summary>
    public abstract GranularDivideAndConquer<TProblem, TResult> Skeleton { get; }

    /// <summary>The root problem every run starts from.</summary>
    public abstract TProblem RootProblem { get; }

    /// <inheritdoc/>
    public override Granularity Granularity
    {
        get => Skeleton.Granularity;
        set => Skeleton.Granularity = value;
    }

    /// <inheritdoc/>
    public override long EffectiveGranularity => Skeleton.EffectiveGranularity;

    /// <inheritdoc/>
    public override bool HasResult => Volatile.Read(ref _hasResult);

    /// <summary>The result of the last completed run.</summary>
    /// <exception cref="InvalidOperationException">No run has completed.</exception>
    public TResult LastResult
    {
        get
        {
            ThrowIfNoResult();
            return _lastResult;
        }
    }

    /// <summary>Solves the whole problem with one call of the execute muscle on the calling thread.</summary>
    /// <returns>The result.</returns>
    private protected abstract TResult SolveSequentially();

    /// <summary>Checks a result against the trusted computation.</summary>
    /// <param name="result">The last result.</param>
    /// <returns>The outcome.</returns>
    private protected abstract ProgramVerification Check(TResult result);

    /// <inheritdoc/>
    private protected sealed override async Task RunParallelCoreAsync(DivideAndConquerOptions options, CancellationToken cancellationToken)
    {
        Record(default!, false);
        // Resumes on the run's scheduler: with ConfigureAwait(false) the rest would run on the .NET thread pool (the
        // run's task completes its awaiters asynchronously), outside the program's workers.
        var result = await Skeleton.RunAsync(RootProblem, options, cancellationToken).ResumeOn(options.Scheduler);
        Record(result, true);
    }

    /// <inheritdoc/>
    private protected sealed override void RunSequentialCore()
    {
        Record(default!, false);
        Record(SolveSequentially(), true);
    }

    /// <inheritdoc/>
    private protected sealed override ProgramVerification VerifyCore() => Check(_lastResult);

    private void Record(TResult result, bool hasResult)
    {
        _lastResult = result;
        // Volatile: a reader that sees the flag set also sees the result written before it.
        Volatile.Write(ref _hasResult, hasResult);
    }
}
