using System.Collections.ObjectModel;

namespace DivCon.Schedulers.Multiprogram.Model;

/// <summary>The input of an allocation policy: the machine's core count and the state of every program.</summary>
/// <remarks>
/// Invariants checked here, so that policies need not: at least one core, no null program, no program id twice.
/// The program order is significant: policies break exact ties by it, and <see cref="AllocationDecision.Cores"/>
/// follows it.
/// </remarks>
public sealed class AllocationSnapshot
{
    private readonly ProgramState[] _programs;

    /// <summary>Creates a snapshot.</summary>
    /// <param name="coreCount">Cores to split among the programs; at least 1.</param>
    /// <param name="programs">The programs, in a stable order (for example registration order); may be empty.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="coreCount"/> is below 1.</exception>
    /// <exception cref="ArgumentNullException"><paramref name="programs"/> is null.</exception>
    /// <exception cref="ArgumentException">A program is null or an id appears twice.</exception>
    public AllocationSnapshot(int coreCount, IEnumerable<ProgramState> programs)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(coreCount, 1);
        ArgumentNullException.ThrowIfNull(programs);
        _programs = [.. programs];
        var seen = new HashSet<ProgramId>();
        for (int i = 0; i < _programs.Length; i++)
        {
            var program = _programs[i] ?? throw new ArgumentException($"Program at index {i} is null.", nameof(programs));
            if (!seen.Add(program.Id))
            {
                throw new ArgumentException($"Program id {program.Id} appears more than once.", nameof(programs));
            }
        }

        CoreCount = coreCount;
        Programs = new ReadOnlyCollection<ProgramState>(_programs);
    }

    /// <summary>Cores to split.</summary>
    public int CoreCount { get; }

    /// <summary>The programs, in the caller's order.</summary>
    public IReadOnlyList<ProgramState> Programs { get; }

    /// <summary>The position of a program in <see cref="Programs"/>, or -1.</summary>
    /// <param name="id">The program.</param>
    /// <returns>Its index, or -1 when absent.</returns>
    public int IndexOf(ProgramId id)
    {
        for (int i = 0; i < _programs.Length; i++)
        {
            if (_programs[i].Id == id)
            {
                return i;
            }
        }

        return -1;
    }
}
