namespace DivCon.Schedulers.Topology;

/// <summary>Reads the small text files of sysfs and cgroupfs, treating a missing or unreadable file as absent.</summary>
internal static class SysfsText
{
    /// <summary>The file's text, trimmed.</summary>
    /// <param name="path">The file.</param>
    /// <returns>The trimmed text, or <see langword="null"/> when the file is missing or cannot be read.</returns>
    public static string? Read(string path)
    {
        try
        {
            return File.Exists(path) ? File.ReadAllText(path).Trim() : null;
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
}
