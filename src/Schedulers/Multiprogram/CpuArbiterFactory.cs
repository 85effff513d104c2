using System.Globalization;
using DivCon.Schedulers.Multiprogram.Domain;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>Creates a process's link to a machine domain (the client of the domain's coordinator).</summary>
internal static class CpuArbiterFactory
{
    /// <summary>Joins <paramref name="domain"/>: returns at once, the link then joins in the background.</summary>
    /// <param name="domain">The domain.</param>
    /// <returns>The arbiter.</returns>
    /// <exception cref="PlatformNotSupportedException">No domain here (not Linux, .NET before 8, a refused directory): the reason.</exception>
    public static ICpuArbiter Create(MachineDomainOptions domain)
    {
        ArgumentNullException.ThrowIfNull(domain);
        var options = new CpuDomainOptions
        {
            Directory = DirectoryOf(domain),
            AllowedGroup = GroupId(domain.AllowedGroup),
            Log = message => System.Diagnostics.Trace.WriteLine($"DivCon {domain}: {message}"),
        };
        return CpuDomain.TryJoin(options, out string? reason)
            ?? throw new PlatformNotSupportedException($"Joining {domain}: {reason ?? "unavailable"}.");
    }

    /// <summary>The domain's directory: the one given, the per-user default for the default name, else the default with "-name".</summary>
    private static string? DirectoryOf(MachineDomainOptions domain)
    {
        if (domain.Directory is not null || domain.Name == MachineDomainOptions.DefaultName)
        {
            return domain.Directory;
        }

#if NET8_0_OR_GREATER
        return OperatingSystem.IsLinux() ? DomainDirectory.DefaultPath() + "-" + domain.Name : null;
#else
        return null;
#endif
    }

    /// <summary>A group given by number or by name (looked up in /etc/group); null for none.</summary>
    private static uint? GroupId(string? group)
    {
        if (string.IsNullOrEmpty(group))
        {
            return null;
        }

        if (uint.TryParse(group, NumberStyles.None, CultureInfo.InvariantCulture, out uint id))
        {
            return id;
        }

        const string GroupFile = "/etc/group";
        if (File.Exists(GroupFile))
        {
            foreach (string line in File.ReadLines(GroupFile))
            {
                string[] fields = line.Split(':');
                if (fields.Length >= 3 && fields[0] == group
                    && uint.TryParse(fields[2], NumberStyles.None, CultureInfo.InvariantCulture, out id))
                {
                    return id;
                }
            }
        }

        throw new PlatformNotSupportedException($"Joining a domain: group '{group}' is neither a number nor a group of {GroupFile}.");
    }
}
