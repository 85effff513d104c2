using DivCon.Skeletons;

namespace DivCon.Programs.Sorting;

/// <summary>The quicksort benchmark: <see cref="Quicksort"/> of the source into the output (see <see cref="SortProgram{TProblem}"/>).</summary>
/// <remarks>
/// The thesis form (<see cref="ThesisFormName"/>, <c>sequentialSweeps: true</c>) partitions every range in one
/// sequential pass, as the reference thesis's quicksort did (Fenech 2013, section 7.2): its top-level split is one
/// task over all the elements. The default form cuts partitions longer than
/// <see cref="Quicksort.MaximumSweepLength"/> into parallel blocks.
/// </remarks>
public sealed class QuicksortProgram : SortProgram<QuicksortProblem>
{
    /// <summary>The catalog name of the default form (parallel partition of long ranges).</summary>
    public const string DefaultName = "quicksort";

    /// <summary>The catalog name of the thesis form (every partition one sequential sweep).</summary>
    public const string ThesisFormName = "quicksort-thesis";

    private readonly Quicksort _skeleton;

    /// <summary>Builds <paramref name="size"/> random non-negative integers from <paramref name="seed"/>.</summary>
    /// <param name="size">The number of elements, 1 to <c>Array.MaxLength</c>.</param>
    /// <param name="seed">The seed.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="size"/> is out of range.</exception>
    public QuicksortProgram(long size, int seed)
        : this(size, seed, sequentialSweeps: false)
    {
    }

    /// <summary>Builds <paramref name="size"/> random non-negative integers from <paramref name="seed"/>, in either form.</summary>
    /// <param name="size">The number of elements, 1 to <c>Array.MaxLength</c>.</param>
    /// <param name="seed">The seed.</param>
    /// <param name="sequentialSweeps">Whether every partition is one sequential sweep (the thesis form, named <see cref="ThesisFormName"/>).</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="size"/> is out of range.</exception>
    public QuicksortProgram(long size, int seed, bool sequentialSweeps)
        : base(sequentialSweeps ? ThesisFormName : DefaultName, size, seed)
    {
        _skeleton = sequentialSweeps
            ? new Quicksort(SourceArray, OutputArray) { MaximumSweepLength = int.MaxValue }
            : new Quicksort(SourceArray, OutputArray);
    }

    /// <summary>Sorts the given elements (any length, including 0).</summary>
    /// <param name="source">The elements (never written, not copied).</param>
    public QuicksortProgram(int[] source)
        : base(DefaultName, source)
    {
        _skeleton = new Quicksort(SourceArray, OutputArray);
    }

    /// <summary>Whether every partition is one sequential sweep (the thesis form).</summary>
    public bool HasSequentialSweeps => _skeleton.MaximumSweepLength == int.MaxValue;

    /// <inheritdoc/>
    public override GranularDivideAndConquer<QuicksortProblem, IndexRange> Skeleton => _skeleton;

    /// <inheritdoc/>
    public override QuicksortProblem RootProblem => _skeleton.WholeProblem;

    /// <inheritdoc/>
    private protected override IndexRange SolveSequentially() => _skeleton.SortSequentially();
}
