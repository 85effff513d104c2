using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>Where one worker of a <see cref="MultiprogramScheduler"/> stands: its owner and the program it serves.</summary>
/// <param name="WorkerIndex">The worker's index in the pool (0 to worker count - 1).</param>
/// <param name="CpuId">
/// The worker's CPU: an operating-system CPU number when the scheduler pins, otherwise the id of the slot in the
/// (virtual) topology the rebalancer places programs on.
/// </param>
/// <param name="Owner">
/// The program the rebalancer gave the worker (what allocations count), or <see langword="null"/> when no program
/// is registered.
/// </param>
/// <param name="Serving">
/// The program whose tasks the worker takes now: the owner, another program it is lent to, or the previous owner for
/// the moment until it reaches a task boundary; <see langword="null"/> when it serves no program.
/// </param>
public readonly record struct WorkerAssignment(int WorkerIndex, int CpuId, ProgramId? Owner, ProgramId? Serving)
{
    /// <summary>Whether the worker serves a program other than its owner (lent, or not yet moved).</summary>
    public bool IsAway => Owner != Serving;

    /// <inheritdoc />
    /// <remarks>For example <c>worker 2 (cpu 2): mergesort, serving fft</c>.</remarks>
    public override string ToString() =>
        $"worker {WorkerIndex} (cpu {CpuId}): {Owner?.ToString() ?? "none"}{(IsAway ? $", serving {Serving?.ToString() ?? "none"}" : string.Empty)}";
}
