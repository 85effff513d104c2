using System.CommandLine;
using System.CommandLine.Invocation;

namespace DivCon.Harness.Cli;

/// <summary>
/// The <c>divcon</c> command line: experiments (demo, cyclic, symmetric, granularity, scalability, phases) and the
/// BenchmarkDotNet host (bench). No arguments runs the demo.
/// </summary>
/// <example>
/// <code>
/// dotnet run -c Release --project src/Harness                       # the demo
/// dotnet run -c Release --project src/Harness -- cyclic --programs strassen,quicksort,mergesort --duration 60
/// dotnet run -c Release --project src/Harness -- bench --filter '*Skeleton*' --job short
/// </code>
/// </example>
public static class HarnessCli
{
    /// <summary>Builds the root command.</summary>
    /// <param name="host">The host.</param>
    /// <returns>The root command.</returns>
    public static RootCommand Build(CliHost host)
    {
        ArgumentNullException.ThrowIfNull(host);
        return new RootCommand(
            "DivCon experiment harness: divide-and-conquer programs alone and multiprogrammed under scheduling schemes. No command runs the demo. "
            + $"Results go to {CommonOptions.AdHocRoot}/ (ignored by git) unless --out names a folder (reference results: --out {CommonOptions.ReferenceRoot}). "
            + "Exit codes: 0 success, 1 bad input, 2 I/O or platform problem, 3 failed run, 130 cancelled.")
        {
            CyclicCommand.CreateDemo(host),
            CyclicCommand.CreateCyclic(host),
            ProcessesCommand.Create(host),
            ProcessChildCommand.Create(host),
            DomainFaultsCommand.Create(host),
            DomainFaultChildCommand.Create(host),
            SymmetricCommand.Create(host),
            GranularityCommand.Create(host),
            ScalabilityCommand.Create(host),
            PhasesCommand.Create(host),
            TraceCommand.Create(host),
            SimulateCommand.Create(host),
            SimulateMixesCommand.Create(host),
            BenchCommand.Create(),
            InstrumentationBenchCommand.Create(host),
            PairsBenchCommand.Create(host),
        };
    }

    /// <summary>Parses and runs a command line.</summary>
    /// <param name="args">The arguments (none or options only: the demo; <c>bench ...</c>: straight to BenchmarkDotNet).</param>
    /// <param name="host">The host.</param>
    /// <param name="cancellationToken">Cancels the run.</param>
    /// <returns>The exit code (see <see cref="CommandActions"/>).</returns>
    public static Task<int> InvokeAsync(string[] args, CliHost host, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(host);
        if (args.Length > 0 && args[0] == BenchCommand.Name)
        {
            return Task.FromResult(BenchCommand.Run(args[1..]));
        }

        if (args.Length > 0 && args[0] == InstrumentationBenchCommand.Name)
        {
            return Task.FromResult(InstrumentationBenchCommand.Run(args[1..], host));
        }

        if (args.Length > 0 && args[0] == PairsBenchCommand.Name)
        {
            return Task.FromResult(PairsBenchCommand.Run(args[1..], host));
        }

        // No command (nothing, or options only such as --out x): the demo. The root keeps --help and --version.
        bool demo = args.Length == 0 || (args[0].StartsWith('-') && args[0] is not ("-h" or "--help" or "-?" or "/?" or "/h" or "--version"));
        string[] effective = demo ? ["demo", .. args] : args;
        ParseResult parse = Build(host).Parse(effective);
        if (parse.Action is ParseErrorAction)
        {
            // Every parse error (an option's value, an unknown option or command) is one line on the error writer,
            // as every other bad input is, and never the help on the output.
            string message = string.Join(' ', parse.Errors.Select(e => CommandActions.OneLine(e.Message)).Distinct(StringComparer.Ordinal));
            host.Error.WriteLine($"error: {message}");
            return Task.FromResult(CommandActions.BadInput);
        }

        var configuration = new InvocationConfiguration { Output = host.Output, Error = host.Error };
        return parse.InvokeAsync(configuration, cancellationToken);
    }
}
