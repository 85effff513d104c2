using DivCon.Harness.Machine;
using DivCon.Harness.Terminal;
using Spectre.Console;

namespace DivCon.Harness.Cli;

/// <summary>
/// Where the CLI talks and what it runs on: the console (tables, progress), the error writer, the clock, the command
/// line recorded in stamps, and the machine (detected once, on first use). Tests substitute writers.
/// </summary>
public sealed class CliHost
{
    /// <summary>Table width when output is redirected (logs, files).</summary>
    public const int WideOutputColumns = 160;

    private readonly Lazy<HarnessMachine> _machine;

    /// <summary>Creates a host.</summary>
    /// <param name="console">Console for tables and progress.</param>
    /// <param name="output">Writer for plain output (help, parse results).</param>
    /// <param name="error">Writer for errors and warnings.</param>
    /// <param name="interactive">Whether to show a live progress display.</param>
    /// <param name="time">The clock.</param>
    /// <param name="commandLine">The command recorded in run stamps.</param>
    /// <param name="detectMachine">Detects the machine (called at most once).</param>
    public CliHost(IAnsiConsole console, TextWriter output, TextWriter error, bool interactive, TimeProvider time, string commandLine, Func<HarnessMachine> detectMachine)
    {
        ArgumentNullException.ThrowIfNull(console);
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(error);
        ArgumentNullException.ThrowIfNull(time);
        ArgumentNullException.ThrowIfNull(commandLine);
        ArgumentNullException.ThrowIfNull(detectMachine);
        Console = console;
        Output = output;
        Error = error;
        Interactive = interactive;
        Time = time;
        CommandLine = commandLine;
        _machine = new Lazy<HarnessMachine>(detectMachine, LazyThreadSafetyMode.ExecutionAndPublication);
    }

    /// <summary>Console for tables and progress.</summary>
    public IAnsiConsole Console { get; }

    /// <summary>Writer for plain output.</summary>
    public TextWriter Output { get; }

    /// <summary>Writer for errors and warnings.</summary>
    public TextWriter Error { get; }

    /// <summary>Whether progress is a live display.</summary>
    public bool Interactive { get; }

    /// <summary>The clock.</summary>
    public TimeProvider Time { get; }

    /// <summary>The command recorded in run stamps.</summary>
    public string CommandLine { get; }

    /// <summary>The machine.</summary>
    public HarnessMachine Machine => _machine.Value;

    /// <summary>The host of a real process: the system console, live progress on an interactive terminal.</summary>
    /// <returns>The host.</returns>
    public static CliHost ForProcess()
    {
        IAnsiConsole console = AnsiConsole.Console;
        bool interactive = ProgressDisplay.IsInteractive(console);
        if (!interactive)
        {
            // Redirected output has no width; Spectre assumes 80 columns and wraps a 7-scheme table into unreadable cells.
            console.Profile.Width = Math.Max(console.Profile.Width, WideOutputColumns);
        }

        if (System.Console.IsOutputRedirected)
        {
            console.Profile.Capabilities.Ansi = false; // no colour escapes in log files
        }

        return new CliHost(console, System.Console.Out, System.Console.Error, interactive, TimeProvider.System, CommandLineText.Current(), HarnessMachine.Detect);
    }

    /// <summary>A host writing plain text (no colours, no live display) to the given writers, for tests and logs.</summary>
    /// <param name="output">Output writer (also the console's).</param>
    /// <param name="error">Error writer.</param>
    /// <param name="commandLine">The command recorded in stamps.</param>
    /// <returns>The host.</returns>
    public static CliHost ForWriters(TextWriter output, TextWriter error, string commandLine)
    {
        IAnsiConsole console = AnsiConsole.Create(new AnsiConsoleSettings
        {
            Ansi = AnsiSupport.No,
            ColorSystem = ColorSystemSupport.NoColors,
            Interactive = InteractionSupport.No,
            Out = new AnsiConsoleOutput(output),
        });
        console.Profile.Width = WideOutputColumns;
        return new CliHost(console, output, error, interactive: false, TimeProvider.System, commandLine, HarnessMachine.Detect);
    }
}
