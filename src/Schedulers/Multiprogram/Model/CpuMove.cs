namespace DivCon.Schedulers.Multiprogram.Model;

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
