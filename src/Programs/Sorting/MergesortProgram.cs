using DivCon.Skeletons;

namespace DivCon.Programs.Sorting;

/// <summary>
/// The mergesort benchmarks: <see cref="Mergesort"/> (sequential merges, catalog name <c>"mergesort"</c>) or
/// <see cref="ParallelMergesort"/> (parallel merges, <c>"pmergesort"</c>) of the source into the output (see
/// <see cref="SortProgram{TProblem}"/>).
/// </summary>
public sealed class MergesortProgram : SortProgram<IndexRange>
{
    /// <summary>The catalog name of the sequential-merge variant.</summary>
    public const string SequentialMergeName = "mergesort";

    /// <summary>The catalog name of the parallel-merge variant.</summary>
    public const string ParallelMergeName = "pmergesort";

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

    /// <inheritdoc/>
    public override GranularDivideAndConquer<IndexRange, IndexRange> Skeleton => _skeleton;

    /// <inheritdoc/>
    public override IndexRange RootProblem => _skeleton.WholeRange;

    /// <inheritdoc/>
    private protected override IndexRange SolveSequentially() => _skeleton.SortSequentially();
}
