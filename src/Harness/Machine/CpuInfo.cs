namespace DivCon.Harness.Machine;

/// <summary>
/// Reads the CPU model name (Linux <c>/proc/cpuinfo</c>; "unknown" elsewhere or on failure) and the load average
/// (<c>/proc/loadavg</c>), which timings record so that a reader can tell a quiet run from a loaded one.
/// </summary>
public static class CpuInfo
{
    private const string CpuInfoPath = "/proc/cpuinfo";
    private const string LoadAveragePath = "/proc/loadavg";

    // x86 kernels say "model name"; some ARM kernels say "Hardware", "cpu model" or "Processor".
    private static readonly string[] ModelKeys = ["model name", "cpu model", "Hardware", "Processor"];

    /// <summary>The CPU model of this machine.</summary>
    /// <returns>The model name, or "unknown".</returns>
    public static string ReadModelName()
    {
        try
        {
            return File.Exists(CpuInfoPath) ? ParseModelName(File.ReadAllText(CpuInfoPath)) : "unknown";
        }
        catch (IOException)
        {
            return "unknown";
        }
        catch (UnauthorizedAccessException)
        {
            return "unknown";
        }
    }

    /// <summary>The 1-minute load average now (runnable and uninterruptible tasks), or null where it cannot be read.</summary>
    /// <returns>The load average, or null.</returns>
    public static double? ReadLoadAverage()
    {
        try
        {
            return File.Exists(LoadAveragePath) ? ParseLoadAverage(File.ReadAllText(LoadAveragePath)) : null;
        }
        catch (IOException)
        {
            return null;
        }
        catch (UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>Extracts the 1-minute load average from the text of <c>/proc/loadavg</c> ("0.52 0.58 0.59 1/189 12345").</summary>
    /// <param name="loadAverage">The file's text.</param>
    /// <returns>The first field, or null when it is not a non-negative number.</returns>
    public static double? ParseLoadAverage(string loadAverage)
    {
        ArgumentNullException.ThrowIfNull(loadAverage);
        string first = loadAverage.Split((char[]?)null, 2, StringSplitOptions.RemoveEmptyEntries).FirstOrDefault() ?? "";
        return double.TryParse(first, System.Globalization.NumberStyles.Float, System.Globalization.CultureInfo.InvariantCulture, out double value) && value >= 0
            ? value
            : null;
    }

    /// <summary>Extracts the model name from the text of <c>/proc/cpuinfo</c>.</summary>
    /// <param name="cpuInfo">The file's text.</param>
    /// <returns>The first model line's value, whitespace collapsed; "unknown" if none.</returns>
    public static string ParseModelName(string cpuInfo)
    {
        ArgumentNullException.ThrowIfNull(cpuInfo);
        string[] lines = cpuInfo.Split('\n');
        foreach (string key in ModelKeys)
        {
            foreach (string line in lines)
            {
                int colon = line.IndexOf(':', StringComparison.Ordinal);
                if (colon > 0 && line[..colon].Trim().Equals(key, StringComparison.OrdinalIgnoreCase))
                {
                    string value = string.Join(' ', line[(colon + 1)..].Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries));
                    if (value.Length > 0)
                    {
                        return value;
                    }
                }
            }
        }

        return "unknown";
    }
}
