using DivCon.Harness.Machine;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Multiprogram.Profiles;

namespace DivCon.Harness.Workload;

/// <summary>What every scheme needs besides its workload: the machine, the CPUs to use, and the programs' profiles.</summary>
/// <param name="Machine">The machine.</param>
/// <param name="Workers">How many workers (CPUs) the run uses.</param>
/// <param name="Profiles">
/// Scalability profile per workload member name, for the partitioning schemes; a missing or null entry means
/// "speedup 1" (the scheme then treats the program as not scaling). Empty for the other schemes.
/// </param>
/// <param name="RebalanceInterval">How often a dynamic multiprogram scheduler re-runs its policy.</param>
/// <param name="Time">The clock of allocation traces.</param>
/// <param name="Lending">Whether the multiprogram scheduler lends idle workers to programs with queued tasks.</param>
public sealed record SchemeContext(
    HarnessMachine Machine,
    int Workers,
    IReadOnlyDictionary<string, ScalabilityProfile?> Profiles,
    TimeSpan RebalanceInterval,
    TimeProvider Time,
    bool Lending = true)
{
    /// <summary>The default rebalancing interval (100 ms, as in the thesis).</summary>
    public static readonly TimeSpan DefaultRebalanceInterval = TimeSpan.FromMilliseconds(100);

    /// <summary>
    /// Whether the multiprogram scheduler keeps a standby worker per CPU, so that a moved core serves its new owner
    /// within about a millisecond even when its worker is inside a long task (default); false: a move waits for the
    /// task boundary.
    /// </summary>
    public bool Standby { get; init; } = true;

    /// <summary>To which program the multiprogram scheduler lends an idle worker (default round-robin).</summary>
    public LendingPreference LendingPreference { get; init; } = LendingPreference.RoundRobin;

    /// <summary>The CPUs the run uses: the first <see cref="Workers"/> in topology order.</summary>
    public IReadOnlyList<int> Cpus => Machine.CpusFor(Workers);

    /// <summary>A context without profiles and with the default interval and the system clock.</summary>
    /// <param name="machine">The machine.</param>
    /// <param name="workers">How many workers.</param>
    /// <returns>The context.</returns>
    public static SchemeContext Plain(HarnessMachine machine, int workers) =>
        new(machine, workers, new Dictionary<string, ScalabilityProfile?>(StringComparer.Ordinal), DefaultRebalanceInterval, TimeProvider.System);

    /// <summary>Throws when the scheme needs pinning and this platform cannot pin.</summary>
    /// <param name="scheme">The scheme's name, for the message.</param>
    /// <exception cref="PlatformNotSupportedException">Pinning is not supported.</exception>
    public void RequirePinning(string scheme)
    {
        if (!Machine.PinningSupported)
        {
            throw new PlatformNotSupportedException($"Scheme '{scheme}' pins threads, which this operating system does not support; use oversubscribed-free or default.");
        }
    }
}
