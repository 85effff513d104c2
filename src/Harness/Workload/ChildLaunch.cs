using System.Globalization;
using System.Reflection;

namespace DivCon.Harness.Workload;

/// <summary>
/// What a child process of the <c>processes</c> experiment runs: one catalog program, under one mode, restarted by its
/// parent (one <c>run</c> line on its standard input per run). The child is the harness itself with the hidden
/// <c>process-child</c> command.
/// </summary>
/// <param name="Program">The catalog program's name.</param>
/// <param name="Size">Its problem size.</param>
/// <param name="Seed">Its seed.</param>
/// <param name="Mode">Independent (the .NET thread pool) or joined (a multiprogram scheduler in a machine domain).</param>
/// <param name="Cpus">The CPUs of the run (joined: its workers' CPUs; independent: their count sizes the thread pool).</param>
/// <param name="Pin">Whether the joined child pins its workers to <paramref name="Cpus"/>.</param>
/// <param name="RebalanceMilliseconds">The joined child's rebalancing interval.</param>
/// <param name="DomainDirectory">The machine domain's directory (joined), shared by every joined child of the run.</param>
/// <param name="CompletionsPath">The CSV file the child appends its completed runs to.</param>
public sealed record ChildLaunch(
    string Program, long Size, int Seed, ProcessMode Mode, IReadOnlyList<int> Cpus, bool Pin, int RebalanceMilliseconds, string? DomainDirectory, string CompletionsPath)
{
    /// <summary>The hidden command's name.</summary>
    public const string CommandName = "process-child";

    /// <summary>The domain name every joined child uses.</summary>
    public const string DomainName = "harness";

    /// <summary>The default of <see cref="WarmupRuns"/>.</summary>
    public const int DefaultWarmupRuns = 2;

    /// <summary>The default of <see cref="WarmupMilliseconds"/>.</summary>
    public const int DefaultWarmupMilliseconds = 5000;

    /// <summary>The least number of unrecorded runs the child makes before it says it is ready. Default 2.</summary>
    public int WarmupRuns { get; init; } = DefaultWarmupRuns;

    /// <summary>The least time the child spends on unrecorded runs before it says it is ready. Default 5 s.</summary>
    public int WarmupMilliseconds { get; init; } = DefaultWarmupMilliseconds;

    /// <summary>The child's command line after the harness's own path.</summary>
    /// <returns>The arguments.</returns>
    public IReadOnlyList<string> Arguments()
    {
        var args = new List<string>
        {
            CommandName,
            "--program", Program,
            "--size", Size.ToString(CultureInfo.InvariantCulture),
            "--seed", Seed.ToString(CultureInfo.InvariantCulture),
            "--mode", ProcessModes.NameOf(Mode),
            "--cpus", string.Join(',', Cpus.Select(c => c.ToString(CultureInfo.InvariantCulture))),
            "--rebalance-ms", RebalanceMilliseconds.ToString(CultureInfo.InvariantCulture),
            "--completions", CompletionsPath,
            "--warmup-runs", WarmupRuns.ToString(CultureInfo.InvariantCulture),
            "--warmup-ms", WarmupMilliseconds.ToString(CultureInfo.InvariantCulture),
        };
        if (Pin)
        {
            args.Add("--pin");
        }

        if (DomainDirectory is not null)
        {
            args.Add("--domain-dir");
            args.Add(DomainDirectory);
        }

        return args;
    }

    /// <summary>
    /// How to start the harness again: its executable, or <c>dotnet</c> and its assembly when it runs under the
    /// <c>dotnet</c> host.
    /// </summary>
    /// <returns>The file to run and the arguments that come before the command.</returns>
    /// <exception cref="PlatformNotSupportedException">The process's path is unknown.</exception>
    public static (string FileName, IReadOnlyList<string> Prefix) Self()
    {
        string process = Environment.ProcessPath ?? throw new PlatformNotSupportedException("The harness's own executable path is unknown.");
        string assembly = typeof(ChildLaunch).Assembly.Location;
        bool host = string.Equals(Path.GetFileNameWithoutExtension(process), "dotnet", StringComparison.OrdinalIgnoreCase);
        bool isHarness = string.Equals(Assembly.GetEntryAssembly()?.Location, assembly, StringComparison.Ordinal);
        return host || !isHarness ? ("dotnet", [assembly]) : (process, []);
    }
}
