namespace DivCon.Schedulers.Multiprogram.Domain;
using DivCon.Schedulers.Multiprogram.Model;
/// The CPUs a process may use and which of its programs holds each, decided by a machine-wide domain.
internal sealed record ArbiterGrant(long Epoch, IReadOnlyDictionary<ProgramId, IReadOnlyList<int>> CpusByProgram);
/// A process's link to a machine-wide arbitration domain. Never blocks its caller on the network.
internal interface ICpuArbiter : IDisposable
{
    /// Hands the arbiter the latest local view (this process's programs with their states; CoreCount = this process's CPUs). Non-blocking.
    void Publish(AllocationSnapshot local, IReadOnlyList<int> ownCpus, IReadOnlyDictionary<ProgramId, string> names);
    /// The latest valid grant, or null when not joined or fallen back (then the process uses its local policy on all its own CPUs).
    ArbiterGrant? LatestGrant { get; }
    /// Raised (on the arbiter's thread, never under the caller's lock) when LatestGrant changes, including to null.
    event Action? GrantChanged;
}
