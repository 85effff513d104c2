using System.Globalization;
using System.Runtime.InteropServices;

namespace DivCon.Harness.Machine;

/// <summary>
/// Where and how a result was produced: machine, operating system, runtime, date, source revision and the
/// exact command. Every file under <c>results/</c> carries one, so a number can always be traced back.
/// </summary>
/// <remarks>
/// Where the stamp goes: CSV files stay strict RFC 4180 (no comment lines, which break parsers); instead
/// every experiment folder gets a sidecar <c>stamp.json</c>. JSON summaries embed it under <c>"stamp"</c>,
/// Markdown summaries end with a "Run" table, SVG charts carry it in <c>&lt;desc&gt;</c> and
/// <c>&lt;metadata&gt;</c> (JSON) plus a small footer line.
/// </remarks>
/// <param name="CpuModel">CPU model name (Linux: <c>/proc/cpuinfo</c>), or "unknown".</param>
/// <param name="LogicalCpus">Logical CPUs visible to the process.</param>
/// <param name="Topology">A one-line summary of the CPU topology (packages, cores, caches), supplied by the caller.</param>
/// <param name="OperatingSystem">OS description (<see cref="RuntimeInformation.OSDescription"/>).</param>
/// <param name="Runtime">.NET runtime (<see cref="RuntimeInformation.FrameworkDescription"/>).</param>
/// <param name="UtcDate">When the run started, UTC.</param>
/// <param name="GitCommit">Short commit hash of the source tree, or "unknown".</param>
/// <param name="CommandLine">The exact command that produced the result.</param>
public sealed record RunStamp(
    string CpuModel,
    int LogicalCpus,
    string Topology,
    string OperatingSystem,
    string Runtime,
    DateTimeOffset UtcDate,
    string GitCommit,
    string CommandLine)
{
    /// <summary>Captures the stamp of the current process and machine.</summary>
    /// <param name="topologySummary">One-line topology description (e.g. from the schedulers' topology discovery).</param>
    /// <param name="commandLine">The command; the current process's when null (<see cref="CommandLineText.Current"/>).</param>
    /// <param name="timeProvider">Clock for the date; system clock when null.</param>
    /// <param name="gitDirectory">Directory to ask git in; the current directory when null.</param>
    /// <returns>The stamp.</returns>
    public static RunStamp Capture(string topologySummary, string? commandLine = null, TimeProvider? timeProvider = null, string? gitDirectory = null)
    {
        ArgumentNullException.ThrowIfNull(topologySummary);
        return new RunStamp(
            CpuInfo.ReadModelName(),
            Environment.ProcessorCount,
            topologySummary,
            RuntimeInformation.OSDescription,
            RuntimeInformation.FrameworkDescription,
            (timeProvider ?? TimeProvider.System).GetUtcNow().ToUniversalTime(),
            GitInfo.ShortCommit(gitDirectory),
            commandLine ?? CommandLineText.Current());
    }

    /// <summary>The stamp as ordered (label, value) pairs, for tables and text.</summary>
    /// <returns>The pairs.</returns>
    public IReadOnlyList<KeyValuePair<string, string>> ToPairs() =>
    [
        new("Machine", CpuModel),
        new("Logical CPUs", LogicalCpus.ToString(CultureInfo.InvariantCulture)),
        new("Topology", Topology),
        new("OS", OperatingSystem),
        new(".NET", Runtime),
        new("Date (UTC)", UtcDate.ToString("yyyy-MM-dd HH:mm:ss'Z'", CultureInfo.InvariantCulture)),
        new("Commit", GitCommit),
        new("Command", CommandLine),
    ];

    /// <summary>A one-line summary for chart footers.</summary>
    /// <returns>The line.</returns>
    public string ToShortLine() => string.Create(CultureInfo.InvariantCulture,
        $"DivCon {GitCommit} · {UtcDate:yyyy-MM-dd HH:mm}Z · {CpuModel} ({LogicalCpus} CPUs) · {Runtime} · {OperatingSystem}");
}
