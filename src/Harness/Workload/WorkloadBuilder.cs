using System.Globalization;
using DivCon.Programs;

namespace DivCon.Harness.Workload;

/// <summary>Builds workloads (initialised program instances) from catalog names and sizes.</summary>
public static class WorkloadBuilder
{
    /// <summary>One instance of each named program (names unique after resolving aliases).</summary>
    /// <param name="programs">Catalog names or aliases.</param>
    /// <param name="sizes">The sizes.</param>
    /// <param name="seed">Seed of every input.</param>
    /// <returns>The workload, in the given order, named by canonical program names.</returns>
    /// <exception cref="ArgumentException">An unknown or repeated program, or a size the program rejects.</exception>
    public static IReadOnlyList<WorkloadProgram> Distinct(IReadOnlyList<string> programs, SizeSelection sizes, int seed)
    {
        ArgumentNullException.ThrowIfNull(programs);
        ArgumentNullException.ThrowIfNull(sizes);
        ProgramDescriptor[] descriptors = programs.Select(ProgramCatalog.Find).ToArray();
        string? repeated = descriptors.GroupBy(d => d.Name, StringComparer.Ordinal).FirstOrDefault(g => g.Count() > 1)?.Key;
        if (repeated is not null)
        {
            throw new ArgumentException($"Program '{repeated}' appears twice; use the symmetric command for several instances of one program.", nameof(programs));
        }

        return descriptors.Select(d => new WorkloadProgram(d.Name, Create(d, sizes, seed))).ToArray();
    }

    /// <summary>
    /// <paramref name="instances"/> instances of one program, named <c>program#1</c> .. <c>program#k</c>, each with
    /// its own input (seeds <paramref name="seed"/>, <paramref name="seed"/> + 1, ...).
    /// </summary>
    /// <param name="program">Catalog name or alias.</param>
    /// <param name="instances">How many instances (at least 1).</param>
    /// <param name="sizes">The sizes.</param>
    /// <param name="seed">Seed of the first instance.</param>
    /// <returns>The workload.</returns>
    /// <exception cref="ArgumentException">Unknown program or a size it rejects.</exception>
    public static IReadOnlyList<WorkloadProgram> Symmetric(string program, int instances, SizeSelection sizes, int seed)
    {
        ArgumentNullException.ThrowIfNull(sizes);
        ArgumentOutOfRangeException.ThrowIfLessThan(instances, 1);
        ProgramDescriptor descriptor = ProgramCatalog.Find(program);
        return Enumerable.Range(1, instances)
            .Select(i => new WorkloadProgram(string.Create(CultureInfo.InvariantCulture, $"{descriptor.Name}#{i}"), Create(descriptor, sizes, seed + i - 1)))
            .ToArray();
    }

    /// <summary>Creates one instance, turning a rejected size into an <see cref="ArgumentException"/> that names the program.</summary>
    /// <param name="descriptor">The program.</param>
    /// <param name="sizes">The sizes.</param>
    /// <param name="seed">The seed.</param>
    /// <returns>The instance.</returns>
    public static BenchmarkProgram Create(ProgramDescriptor descriptor, SizeSelection sizes, int seed)
    {
        ArgumentNullException.ThrowIfNull(descriptor);
        ArgumentNullException.ThrowIfNull(sizes);
        long size = sizes.SizeOf(descriptor);
        try
        {
            return descriptor.Factory(size, seed);
        }
        catch (ArgumentOutOfRangeException e)
        {
            throw new ArgumentException($"Size {size} is not valid for {descriptor.Name} ({descriptor.SizeMeaning}): {e.Message}", nameof(sizes), e);
        }
    }
}

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
