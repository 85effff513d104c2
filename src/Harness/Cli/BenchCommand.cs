using System.CommandLine;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Running;

namespace DivCon.Harness.Cli;
/// <summary>
/// <c>bench</c>: the BenchmarkDotNet suites in <c>Benchmarks/</c>; every argument after <c>bench</c> goes to
/// BenchmarkDotNet unchanged (<c>--filter '*Scheduler*' --job short</c>, <c>--list flat</c>, its own <c>--help</c>).
/// </summary>
/// <remarks><see cref="HarnessCli.InvokeAsync"/> hands <c>bench</c> to <see cref="Run"/> before parsing, so
/// BenchmarkDotNet's options never meet System.CommandLine; the command here gives <c>bench</c> its line in the help.</remarks>
public static class BenchCommand
{
    /// <summary>The command's name.</summary>
    public const string Name = "bench";

    /// <summary>Builds the help-only command.</summary>
    /// <returns>The command.</returns>
    public static Command Create()
    {
        var command = new Command(Name, "BenchmarkDotNet microbenchmarks; the remaining arguments go to BenchmarkDotNet (e.g. bench --filter '*Skeleton*' --job short).")
        {
            TreatUnmatchedTokensAsErrors = false,
        };
        command.SetAction(parse => Run(parse.UnmatchedTokens.ToArray()));
        return command;
    }

    /// <summary>Runs BenchmarkDotNet's switcher over this assembly's benchmarks.</summary>
    /// <param name="arguments">BenchmarkDotNet's arguments.</param>
    /// <returns>0.</returns>
    public static int Run(string[] arguments)
    {
        BenchmarkSwitcher.FromAssembly(typeof(BenchCommand).Assembly).Run(arguments, ManualConfig.Create(DefaultConfig.Instance).WithBuildTimeout(BuildTimeout));
        return 0;
    }

    /// <summary>
    /// How long BenchmarkDotNet may take to build the project it generates before a run. Its default (2 minutes) is
    /// shorter than that build of the harness and its libraries takes on a 2-CPU machine that is also building
    /// something else: the run then measured nothing ("failed to build the auto-generated boilerplate code").
    /// </summary>
    public static readonly TimeSpan BuildTimeout = TimeSpan.FromMinutes(15);
}
