namespace DivCon.Schedulers.Multiprogram.Domain;

/// <summary>Creates a process's link to a machine domain (the client of the domain's coordinator).</summary>
internal static class CpuArbiterFactory
{
    /// <summary>Joins <paramref name="domain"/>: returns at once, the link then joins in the background.</summary>
    /// <param name="domain">The domain.</param>
    /// <returns>The arbiter.</returns>
    /// <exception cref="PlatformNotSupportedException">This build has no domain client: the scheduler runs without a domain.</exception>
    public static ICpuArbiter Create(MachineDomainOptions domain)
    {
        ArgumentNullException.ThrowIfNull(domain);
        throw new PlatformNotSupportedException($"Joining {domain}: this build of DivCon has no machine domain client.");
    }
}
