using DivCon.Skeletons;

namespace DivCon.Programs.Sorting;

/// <summary>The quicksort benchmark: <see cref="Quicksort"/> of the source into the output (see <see cref="SortProgram{TProblem}"/>).</summary>
public sealed class QuicksortProgram : SortProgram<QuicksortProblem>
{
    private readonly Quicksort _skeleton;

    /// <summary>Builds <paramref name="size"/> random non-negative integers from <paramref name="seed"/>.</summary>
    /// <param name="size">The number of elements, 1 to <c>Array.MaxLength</c>.</param>
    /// <param name="seed">The seed.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="size"/> is out of range.</exception>
    public QuicksortProgram(long size, int seed)
        : base("quicksort", size, seed)
    {
        _skeleton = new Quicksort(SourceArray, OutputArray);
    }

    /// <summary>Sorts the given elements (any length, including 0).</summary>
    /// <param name="source">The elements (never written, not copied).</param>
    public QuicksortProgram(int[] source)
        : base("quicksort", source)
    {
        _skeleton = new Quicksort(SourceArray, OutputArray);
    }

    /// <inheritdoc/>
    public override GranularDivideAndConquer<QuicksortProblem, IndexRange> Skeleton => _skeleton;

    /// <inheritdoc/>
    public override QuicksortProblem RootProblem => _skeleton.WholeProblem;

    /// <inheritdoc/>
    private protected override IndexRange SolveSequentially() => _skeleton.SortSequentially();
}
