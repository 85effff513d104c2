using DivCon.Skeletons;

namespace DivCon.Programs.Sorting;

/// <summary>
/// The mergesort benchmarks: <see cref="Mergesort"/> (sequential merges, catalog name <c>"mergesort"</c>) or
/// <see cref="ParallelMergesort"/> (parallel merges, <c>"pmergesort"</c>) of the source into the output (see
/// <see cref="SortProgram{TProblem}"/>).
/// </summary>
/// <remarks>
/// The thesis form (<see cref="ThesisFormName"/>, <c>sequentialSweeps: true</c>) does every merge as one sequential
/// sweep, as the reference thesis's mergesort did (Fenech 2013, section 7.2): its last merge is one task over all the
/// elements. The default form cuts merges longer than <see cref="Mergesort.MaximumSweepLength"/> into parallel blocks.
/// </remarks>
public sealed class MergesortProgram : SortProgram<IndexRange>
{
    /// <summary>The catalog name of the sequential-merge variant.</summary>
    public const string SequentialMergeName = "mergesort";

    /// <summary>The catalog name of the parallel-merge variant.</summary>
    public const string ParallelMergeName = "pmergesort";

    /// <summary>The catalog name of the thesis form (sequential merges, each one sequential sweep).</summary>
    public const string ThesisFormName = "mergesort-thesis";

    private readonly Mergesort _skeleton;

    /// <summary>Builds <paramref name="size"/> random non-negative integers from <paramref name="seed"/>.</summary>
    /// <param name="size">The number of elements, 1 to <c>Array.MaxLength</c>.</param>
    /// <param name="seed">The seed.</param>
    /// <param name="parallelMerge">Whether merges are parallel (<see cref="ParallelMergesort"/>).</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="size"/> is out of range.</exception>
    public MergesortProgram(long size, int seed, bool parallelMerge)
        : base(parallelMerge ? ParallelMergeName : SequentialMergeName, size, seed)
    {
        _skeleton = parallelMerge ? new ParallelMergesort(SourceArray, OutputArray) : new Mergesort(SourceArray, OutputArray);
    }

    /// <summary>Builds <paramref name="size"/> random non-negative integers from <paramref name="seed"/>, sorted with sequential merges in either form.</summary>
    /// <param name="size">The number of elements, 1 to <c>Array.MaxLength</c>.</param>
    /// <param name="seed">The seed.</param>
    /// <param name="parallelMerge">Whether merges are parallel (<see cref="ParallelMergesort"/>); must be <see langword="false"/> when <paramref name="sequentialSweeps"/> is set.</param>
    /// <param name="sequentialSweeps">Whether every merge is one sequential sweep (the thesis form, named <see cref="ThesisFormName"/>).</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="size"/> is out of range.</exception>
    /// <exception cref="ArgumentException">Both <paramref name="parallelMerge"/> and <paramref name="sequentialSweeps"/> are set.</exception>
    public MergesortProgram(long size, int seed, bool parallelMerge, bool sequentialSweeps)
        : base(NameOf(parallelMerge, sequentialSweeps), size, seed)
    {
        _skeleton = parallelMerge
            ? new ParallelMergesort(SourceArray, OutputArray)
            : sequentialSweeps
                ? new Mergesort(SourceArray, OutputArray) { MaximumSweepLength = int.MaxValue }
                : new Mergesort(SourceArray, OutputArray);
    }

    /// <summary>Sorts the given elements (any length, including 0).</summary>
    /// <param name="source">The elements (never written, not copied).</param>
    /// <param name="parallelMerge">Whether merges are parallel (<see cref="ParallelMergesort"/>).</param>
    public MergesortProgram(int[] source, bool parallelMerge)
        : base(parallelMerge ? ParallelMergeName : SequentialMergeName, source)
    {
        _skeleton = parallelMerge ? new ParallelMergesort(SourceArray, OutputArray) : new Mergesort(SourceArray, OutputArray);
    }

    /// <summary>Whether merges are parallel.</summary>
    public bool HasParallelMerge => _skeleton is ParallelMergesort;

    /// <summary>Whether every merge is one sequential sweep (the thesis form).</summary>
    public bool HasSequentialSweeps => _skeleton.MaximumSweepLength == int.MaxValue;

    /// <inheritdoc/>
    public override GranularDivideAndConquer<IndexRange, IndexRange> Skeleton => _skeleton;

    /// <inheritdoc/>
    public override IndexRange RootProblem => _skeleton.WholeRange;

    /// <inheritdoc/>
    private protected override IndexRange SolveSequentially() => _skeleton.SortSequentially();

    // Checked before the base constructor builds the input, so a bad combination costs nothing.
    private static string NameOf(bool parallelMerge, bool sequentialSweeps) =>
        parallelMerge && sequentialSweeps
            ? throw new ArgumentException("The thesis form (sequentialSweeps) has sequential merges; parallelMerge must be false.", nameof(sequentialSweeps))
            : parallelMerge ? ParallelMergeName : sequentialSweeps ? ThesisFormName : SequentialMergeName;
}
