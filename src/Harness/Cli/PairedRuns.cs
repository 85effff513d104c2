using System.Globalization;

namespace DivCon.Harness.Cli;

/// <summary>
/// What the paired child-process benchmarks (<c>bench-instrumentation</c>, <c>bench-pairs</c>) share: how a time is
/// shown, the machine's load for the stamp, and the <c>--only</c> list checked against the known names.
/// </summary>
internal static class PairedRuns
{
    /// <summary>A time in nanoseconds as ms, us or ns, invariant culture.</summary>
    public static string Format(double nanoseconds) => nanoseconds switch
    {
        >= 1e6 => string.Create(CultureInfo.InvariantCulture, $"{nanoseconds / 1e6:0.000} ms"),
        >= 1e3 => string.Create(CultureInfo.InvariantCulture, $"{nanoseconds / 1e3:0.00} us"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{nanoseconds:0.0} ns"),
    };

    /// <summary>The 1, 5 and 15 minute load averages (Linux), or "unknown".</summary>
    public static string LoadAverage()
    {
        try
        {
            return File.Exists("/proc/loadavg") ? string.Join(' ', File.ReadAllText("/proc/loadavg").Split(' ').Take(3)) : "unknown";
        }
        catch (IOException)
        {
            return "unknown";
        }
    }

    /// <summary>The names of a comma-separated <c>--only</c> value, each one of <paramref name="known"/>.</summary>
    /// <param name="value">The option's value.</param>
    /// <param name="known">The names there are.</param>
    /// <param name="what">What the names name, for the error ("cases", "benchmarks").</param>
    /// <exception cref="ArgumentException">The value names nothing, or a name that is not known.</exception>
    public static HashSet<string> OnlyNames(string value, IEnumerable<string> known, string what)
    {
        var knownNames = known.ToHashSet(StringComparer.Ordinal);
        var names = value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).ToHashSet(StringComparer.Ordinal);
        if (names.Count == 0 || names.Any(n => !knownNames.Contains(n)))
        {
            throw new ArgumentException($"--only must name {what} among {string.Join(", ", knownNames)}, got '{value}'.");
        }

        return names;
    }
}
