using DivCon.Programs.Data;
using DivCon.Skeletons;

namespace DivCon.Programs.Sorting;

/// <summary>
/// What the sorting benchmarks share: a source array (thesis: 2^26 non-negative 32-bit integers, 256 MB) that no
/// run writes, an output array every run fills, and the verification of the output.
/// </summary>
/// <typeparam name="TProblem">The sort's problem type.</typeparam>
/// <remarks>
/// Verification: the result must be the whole range, the output must be in non-decreasing order and a permutation
/// of the source. The permutation check compares order-insensitive 64-bit fingerprints
/// (<see cref="Checksum.OfMultiset"/>; a wrong multiset passes with probability about 2^-64); up to
/// <see cref="ExactCheckLimit"/> elements the output is also compared element by element with
/// <see cref="Array.Sort{T}(T[])"/> of a copy of the source.
/// </remarks>
public abstract class SortProgram<TProblem> : BenchmarkProgram<TProblem, IndexRange>
{
    /// <summary>Up to this many elements, verification also compares with a trusted sort of the source.</summary>
    public const int ExactCheckLimit = 1 << 22;

    private ulong? _sourceMultiset;

    /// <summary>Builds <paramref name="size"/> random non-negative integers from <paramref name="seed"/>.</summary>
    /// <param name="name">The catalog name.</param>
    /// <param name="size">The number of elements, 1 to <c>Array.MaxLength</c>.</param>
    /// <param name="seed">The seed.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="size"/> is out of range.</exception>
    private protected SortProgram(string name, long size, int seed)
        : base(name, size, seed)
    {
        if (size < 1 || size > Array.MaxLength)
        {
            throw new ArgumentOutOfRangeException(nameof(size), size, $"{name} needs 1 to {Array.MaxLength} elements.");
        }

        SourceArray = SeededData.UniformInts((int)size, seed, stream: 0, int.MaxValue);
        OutputArray = new int[size];
    }

    /// <summary>Sorts the given elements (any length, including 0); the seed is reported as 0.</summary>
    /// <param name="name">The catalog name.</param>
    /// <param name="source">The elements (never written; not copied, so do not change them while the program lives).</param>
    private protected SortProgram(string name, int[] source)
        : base(name, (source ?? throw new ArgumentNullException(nameof(source))).Length, seed: 0)
    {
        SourceArray = source;
        OutputArray = new int[source.Length];
    }

    /// <summary>The elements to sort.</summary>
    public ReadOnlyMemory<int> Source => SourceArray;

    /// <summary>The sorted elements after a run (contents undefined before the first run and during one).</summary>
    public ReadOnlyMemory<int> Output => OutputArray;

    /// <inheritdoc/>
    public override int BranchingFactor => 2;

    /// <summary>The source array, for the sort's constructor.</summary>
    private protected int[] SourceArray { get; }

    /// <summary>The output array, for the sort's constructor.</summary>
    private protected int[] OutputArray { get; }

    /// <inheritdoc/>
    public override string DescribeResult() => HasResult ? $"sorted {LastResult.Length} elements" : "no result";

    /// <inheritdoc/>
    public override ulong ComputeInputChecksum() => Checksum.OfSequence(SourceArray);

    /// <inheritdoc/>
    public override ulong ComputeResultChecksum()
    {
        ThrowIfNoResult();
        return Checksum.OfSequence(OutputArray);
    }

    /// <inheritdoc/>
    private protected override ProgramVerification Check(IndexRange result)
    {
        if (result != new IndexRange(0, SourceArray.Length))
        {
            return ProgramVerification.Failure($"the run reported the range {result}, not [0, {SourceArray.Length})");
        }

        int descent = SortKernels.FindFirstDescent(OutputArray);
        if (descent >= 0)
        {
            return ProgramVerification.Failure($"output[{descent}] = {OutputArray[descent]} > output[{descent + 1}] = {OutputArray[descent + 1]}");
        }

        ulong expectedMultiset = _sourceMultiset ??= Checksum.OfMultiset(SourceArray);
        if (Checksum.OfMultiset(OutputArray) != expectedMultiset)
        {
            return ProgramVerification.Failure("the output is sorted but not a permutation of the source (multiset fingerprints differ)");
        }

        if (SourceArray.Length > ExactCheckLimit)
        {
            return ProgramVerification.Success($"{SourceArray.Length} elements in order, and a permutation of the source by multiset fingerprint");
        }

        var expected = (int[])SourceArray.Clone();
        Array.Sort(expected);
        int mismatch = OutputArray.AsSpan().CommonPrefixLength(expected);
        return mismatch == expected.Length
            ? ProgramVerification.Success($"all {expected.Length} elements equal Array.Sort of the source")
            : ProgramVerification.Failure($"output[{mismatch}] = {OutputArray[mismatch]}, Array.Sort of the source gives {expected[mismatch]}");
    }
}
