using System.Collections.ObjectModel;

namespace DivCon.Schedulers.Multiprogram.Model;

/// <summary>Which CPUs each program holds: an immutable map from program to a sorted set of CPU ids.</summary>
/// <remarks>Invariant (checked on construction): no CPU belongs to two programs. CPUs may be unassigned.</remarks>
public sealed class CpuAssignment
{
    private readonly Dictionary<ProgramId, IReadOnlyList<int>> _cpus;
    private readonly Dictionary<int, ProgramId> _owners;

    /// <summary>Creates an assignment.</summary>
    /// <param name="cpusByProgram">CPU ids per program.</param>
    /// <exception cref="ArgumentNullException">The map or one of its sets is null.</exception>
    /// <exception cref="ArgumentException">A CPU appears twice; the message names it and both programs.</exception>
    public CpuAssignment(IEnumerable<KeyValuePair<ProgramId, IEnumerable<int>>> cpusByProgram)
    {
        ArgumentNullException.ThrowIfNull(cpusByProgram);
        _cpus = [];
        _owners = [];
        foreach (var (program, cpus) in cpusByProgram)
        {
            ArgumentNullException.ThrowIfNull(cpus, nameof(cpusByProgram));
            var sorted = cpus.Order().ToArray();
            foreach (int cpu in sorted)
            {
                if (!_owners.TryAdd(cpu, program))
                {
                    throw new ArgumentException(
                        $"CPU {cpu} is given to both {_owners[cpu]} and {program}.", nameof(cpusByProgram));
                }
            }

            if (!_cpus.TryAdd(program, new ReadOnlyCollection<int>(sorted)))
            {
                throw new ArgumentException($"Program {program} appears more than once.", nameof(cpusByProgram));
            }
        }

        Programs = new ReadOnlyCollection<ProgramId>([.. _cpus.Keys]);
    }

    /// <summary>An assignment with no programs.</summary>
    public static CpuAssignment Empty { get; } = new([]);

    /// <summary>The programs, in the order they were given.</summary>
    public IReadOnlyList<ProgramId> Programs { get; }

    /// <summary>The number of assigned CPUs.</summary>
    public int AssignedCount => _owners.Count;

    /// <summary>The CPUs of one program, sorted by id; empty for an unknown program.</summary>
    /// <param name="program">The program.</param>
    /// <returns>Its CPU ids.</returns>
    public IReadOnlyList<int> CpusOf(ProgramId program) => _cpus.TryGetValue(program, out var cpus) ? cpus : [];

    /// <summary>The program holding a CPU.</summary>
    /// <param name="cpuId">A CPU id.</param>
    /// <returns>The owner, or <see langword="null"/> when the CPU is unassigned.</returns>
    public ProgramId? OwnerOf(int cpuId) => _owners.TryGetValue(cpuId, out var owner) ? owner : null;

    /// <inheritdoc />
    public override string ToString() =>
        string.Join("; ", _cpus.Select(kv => $"{kv.Key}: [{string.Join(",", kv.Value)}]"));
}

/// <summary>One CPU's worker changing program between two placements.</summary>
/// <param name="CpuId">The operating-system CPU number.</param>
/// <param name="From">The program that had it, or <see langword="null"/> when it was unassigned.</param>
/// <param name="To">The program that gets it, or <see langword="null"/> when it becomes unassigned (no programs left).</param>
public readonly record struct CpuMove(int CpuId, ProgramId? From, ProgramId? To)
{
    /// <inheritdoc />
    /// <remarks>For example <c>cpu 3: mergesort -> fft</c> (<c>none</c> for an unassigned side).</remarks>
    public override string ToString() => $"cpu {CpuId}: {From?.ToString() ?? "none"} -> {To?.ToString() ?? "none"}";
}
