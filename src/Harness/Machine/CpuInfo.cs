namespace DivCon.Harness.Machine;

/// <summary>Reads the CPU model name (Linux <c>/proc/cpuinfo</c>; "unknown" elsewhere or on failure).</summary>
public static class CpuInfo
{
    private const string CpuInfoPath = "/proc/cpuinfo";

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
