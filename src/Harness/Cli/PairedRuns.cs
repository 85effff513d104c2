using System.Diagnostics;
using System.Globalization;

namespace DivCon.Harness.Cli;

/// <summary>
/// What the paired child-process benchmarks (<c>bench-instrumentation</c>, <c>bench-pairs</c>) share: running a child
/// under the same <c>dotnet</c> host, how a time is shown, the machine's load for the stamp, and the <c>--only</c> list
/// checked against the known names.
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

    /// <summary>
    /// Runs <c>dotnet</c> (this process's host when it is one, else <c>DOTNET_HOST_PATH</c> or <c>dotnet</c> on the
    /// path) with <paramref name="arguments"/> and returns its standard output's non-empty lines.
    /// </summary>
    /// <param name="arguments">The host's arguments (for example <c>exec</c>, a program and its options).</param>
    /// <param name="timeout">How long the child may take (infinite: no bound).</param>
    /// <param name="description">The child, for the errors.</param>
    /// <returns>The child's output lines, trimmed.</returns>
    /// <exception cref="InvalidOperationException">The child could not start or exited with a nonzero code.</exception>
    /// <exception cref="TimeoutException">The child took longer than <paramref name="timeout"/> (it is killed).</exception>
    public static string[] RunDotnet(IEnumerable<string> arguments, TimeSpan timeout, string description)
    {
        ArgumentNullException.ThrowIfNull(arguments);
        string? process = Environment.ProcessPath;
        string dotnet = process is not null && string.Equals(Path.GetFileNameWithoutExtension(process), "dotnet", StringComparison.OrdinalIgnoreCase)
            ? process
            : Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet";
        var info = new ProcessStartInfo(dotnet)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (string argument in arguments)
        {
            info.ArgumentList.Add(argument);
        }

        using Process child = Process.Start(info) ?? throw new InvalidOperationException($"Could not start {dotnet} for {description}.");
        Task<string> output = child.StandardOutput.ReadToEndAsync();
        Task<string> error = child.StandardError.ReadToEndAsync();
        if (!child.WaitForExit(timeout))
        {
            child.Kill(entireProcessTree: true);
            child.WaitForExit();
            throw new TimeoutException($"{description} took longer than {timeout}; it was killed.");
        }

        child.WaitForExit(); // The output's end (the timed wait may return before it).
        if (child.ExitCode != 0)
        {
            string message = CommandActions.OneLine(error.GetAwaiter().GetResult().Trim());
            throw new InvalidOperationException($"{description} exited with {child.ExitCode}: {(message.Length == 0 ? "no error output" : message)}");
        }

        return output.GetAwaiter().GetResult().Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
    }
}
