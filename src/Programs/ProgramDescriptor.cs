namespace DivCon.Programs;

/// <summary>What the catalog knows about one program: its names, what its size means, its preset sizes and how to build it.</summary>
/// <param name="Name">The canonical name.</param>
/// <param name="Aliases">Other accepted names.</param>
/// <param name="Description">One line about the algorithm.</param>
/// <param name="SizeMeaning">What the size counts (elements, points, matrix order, n).</param>
/// <param name="QuickSize">The <see cref="SizePreset.Quick"/> size.</param>
/// <param name="ThesisSize">The <see cref="SizePreset.Thesis"/> size.</param>
/// <param name="Factory">(size, seed) =&gt; a new instance; throws <see cref="ArgumentOutOfRangeException"/> for a size it does not accept.</param>
public sealed record ProgramDescriptor(
    string Name,
    IReadOnlyList<string> Aliases,
    string Description,
    string SizeMeaning,
    long QuickSize,
    long ThesisSize,
    Func<long, int, BenchmarkProgram> Factory)
{
    /// <summary>The size of a preset.</summary>
    /// <param name="preset">The preset.</param>
    /// <returns>The size.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="preset"/> is not defined.</exception>
    public long SizeOf(SizePreset preset) => preset switch
    {
        SizePreset.Quick => QuickSize,
        SizePreset.Thesis => ThesisSize,
        _ => throw new ArgumentOutOfRangeException(nameof(preset), preset, "Not a defined SizePreset."),
    };
}
