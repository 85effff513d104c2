using DivCon.Programs;

namespace DivCon.Harness.Workload;

/// <summary>Problem sizes of a run: a preset, with explicit sizes for some programs taking precedence.</summary>
/// <param name="Preset">The preset for programs without an explicit size.</param>
/// <param name="Explicit">Explicit sizes by canonical program name (case-insensitive).</param>
public sealed record SizeSelection(SizePreset Preset, IReadOnlyDictionary<string, long> Explicit)
{
    /// <summary>The quick preset and no explicit sizes.</summary>
    public static SizeSelection Quick { get; } = new(SizePreset.Quick, new Dictionary<string, long>(StringComparer.OrdinalIgnoreCase));

    /// <summary>The size of one program.</summary>
    /// <param name="program">The program.</param>
    /// <returns>The explicit size if given, else the preset's.</returns>
    public long SizeOf(ProgramDescriptor program)
    {
        ArgumentNullException.ThrowIfNull(program);
        return Explicit.TryGetValue(program.Name, out long size) ? size : program.SizeOf(Preset);
    }
}
