using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram.Domain;

/// <summary>The CPUs a process may use and which of its programs holds each, decided by a machine-wide domain.</summary>
/// <param name="Epoch">The decision that made the grant; grows from one grant to the next.</param>
/// <param name="CpusByProgram">CPU ids per program of this process; a CPU of the process absent here is withheld.</param>
internal sealed record ArbiterGrant(long Epoch, IReadOnlyDictionary<ProgramId, IReadOnlyList<int>> CpusByProgram)
{
    /// <summary>
    /// When the client received the grant (a <c>Stopwatch</c> timestamp, on Linux <c>CLOCK_MONOTONIC</c>); 0 when
    /// unknown. The start of a cross-process move's latency: the Grant message carries no decision time (its decoder
    /// refuses extra bytes), so moves are timed from the receipt.
    /// </summary>
    public long ReceivedAt { get; init; }
}
/// <summary>A process's link to a machine-wide arbitration domain. Never blocks its caller on the network.</summary>
internal interface ICpuArbiter : IDisposable
{
    /// <summary>Hands the arbiter the latest local view (this process's programs with their states; CoreCount = this process's CPUs). Non-blocking.</summary>
    /// <param name="local">This process's programs and their states.</param>
    /// <param name="ownCpus">The CPUs this process may use (its affinity mask / cpuset).</param>
    /// <param name="names">Each program's name, for people.</param>
    void Publish(AllocationSnapshot local, IReadOnlyList<int> ownCpus, IReadOnlyDictionary<ProgramId, string> names);
    /// <summary>The latest valid grant, or null when not joined or fallen back (then the process uses its local policy on all its own CPUs).</summary>
    ArbiterGrant? LatestGrant { get; }
    /// <summary>Raised (on the arbiter's thread, never under the caller's lock) when LatestGrant changes, including to null.</summary>
    event Action? GrantChanged;
}
