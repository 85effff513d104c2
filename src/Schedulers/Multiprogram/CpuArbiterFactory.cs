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

    /// <summary>
    /// Opens the domain's guest board (<see cref="MachineDomainOptions.Guests"/>): checks the directory as the client
    /// does, creates the board if absent and claims a row.
    /// </summary>
    /// <param name="domain">The domain.</param>
    /// <returns>The board.</returns>
    /// <exception cref="PlatformNotSupportedException">No board here, and why.</exception>
    public static IGuestBoard OpenGuestBoard(MachineDomainOptions domain)
    {
        ArgumentNullException.ThrowIfNull(domain);
#if NET8_0_OR_GREATER
        if (OperatingSystem.IsLinux())
        {
            uint? group = GroupId(domain.AllowedGroup);
            DomainDirectory directory = DomainDirectory.Open(DirectoryOf(domain), group);
            return GuestBoard.TryOpen(directory.Path, group, out string? reason)
                ?? throw new PlatformNotSupportedException($"Guests in {domain}: {reason}.");
        }
#endif
        throw new PlatformNotSupportedException($"Guests in {domain}: Linux and .NET 8 or later only.");
    }

    /// <summary>The domain's directory: the one given, the per-user default for the default name, else the default with "-name".</summary>
    internal static string? DirectoryOf(MachineDomainOptions domain)
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
    internal static uint? GroupId(string? group)
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
