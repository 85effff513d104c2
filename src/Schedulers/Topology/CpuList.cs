using System.Globalization;

namespace DivCon.Schedulers.Topology;

/// <summary>The Linux CPU list format (<c>0-3,8,10-11</c>) used by sysfs and cpusets.</summary>
public static class CpuList
{
    /// <summary>Parses a CPU list; whitespace and an empty list are allowed.</summary>
    /// <param name="text">The list, for example <c>0-3,8</c>.</param>
    /// <returns>The CPU ids, sorted and distinct.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="text"/> is null.</exception>
    /// <exception cref="FormatException">A part is not a number or a range <c>a-b</c> with a &lt;= b.</exception>
    public static IReadOnlyList<int> Parse(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        var cpus = new SortedSet<int>();
        // Trim, then drop empty parts (StringSplitOptions.TrimEntries is .NET 5+).
        foreach (string rawPart in text.Split(',').Select(part => part.Trim()).Where(part => part.Length > 0))
        {
            int dash = rawPart.IndexOf('-', StringComparison.Ordinal);
            if (dash < 0)
            {
                cpus.Add(ParseId(rawPart, text));
                continue;
            }

            int first = ParseId(rawPart[..dash], text);
            int last = ParseId(rawPart[(dash + 1)..], text);
            if (last < first)
            {
                throw new FormatException($"CPU range '{rawPart}' in '{text}' runs backwards.");
            }

            for (int cpu = first; cpu <= last; cpu++)
            {
                cpus.Add(cpu);
            }
        }

        return [.. cpus];
    }

    /// <summary>Formats CPU ids as a compact list (<c>0-3,8</c>).</summary>
    /// <param name="cpuIds">The ids (any order, duplicates ignored).</param>
    /// <returns>The list text; empty for no CPUs.</returns>
    public static string Format(IEnumerable<int> cpuIds)
    {
        ArgumentNullException.ThrowIfNull(cpuIds);
        int[] ids = [.. cpuIds.Distinct().Order()];
        var parts = new List<string>();
        for (int i = 0; i < ids.Length;)
        {
            int j = i;
            while (j + 1 < ids.Length && ids[j + 1] == ids[j] + 1)
            {
                j++;
            }

            parts.Add(i == j
                ? ids[i].ToString(CultureInfo.InvariantCulture)
                : FormattableString.Invariant($"{ids[i]}-{ids[j]}"));
            i = j + 1;
        }

        return string.Join(',', parts);
    }

    private static int ParseId(string part, string text) =>
        int.TryParse(part, NumberStyles.None, CultureInfo.InvariantCulture, out int id)
            ? id
            : throw new FormatException($"'{part}' in CPU list '{text}' is not a CPU number.");
}
