using DivCon.Harness.Terminal;
using DivCon.Harness.Tests.Support;
using Spectre.Console;

namespace DivCon.Harness.Tests.Terminal;

public class TerminalTests
{
    private static (IAnsiConsole Console, StringWriter Output) PlainConsole()
    {
        var output = new StringWriter();
        IAnsiConsole console = AnsiConsole.Create(new AnsiConsoleSettings
        {
            Ansi = AnsiSupport.No,
            ColorSystem = ColorSystemSupport.NoColors,
            Interactive = InteractionSupport.No,
            Out = new AnsiConsoleOutput(output),
        });
        console.Profile.Width = 160;
        return (console, output);
    }

    [Fact]
    public void Summary_tables_show_ntt_with_intervals_and_system_metrics()
    {
        (IAnsiConsole console, StringWriter output) = PlainConsole();
        SummaryTable.Render(console, Samples.TwoSchemes());
        string text = output.ToString();

        Assert.Contains("NTT per program", text, StringComparison.Ordinal);
        Assert.Contains("quicksort", text, StringComparison.Ordinal);
        Assert.Contains("2.000 ± ", text, StringComparison.Ordinal);
        Assert.Contains("static | partition", text, StringComparison.Ordinal);
        Assert.Contains("ANTT", text, StringComparison.Ordinal);
        Assert.Contains("1.750", text, StringComparison.Ordinal); // ANTT of "shared": (2 + 1.5) / 2
        Assert.Throws<ArgumentException>(() => SummaryTable.Render(console, []));
    }

    [Fact]
    public void Plain_sink_writes_lines_and_throttles_silent_reports()
    {
        var output = new StringWriter { NewLine = "\n" };
        var sink = new PlainProgressSink(output);
        sink.BeginPhase("cyclic", 100);
        for (int i = 1; i <= 100; i++)
        {
            sink.Report("cyclic", i);
        }

        sink.Report("cyclic", 100, "A run 3 done");
        sink.EndPhase("cyclic");
        string[] lines = output.ToString().TrimEnd('\n').Split('\n');

        Assert.Equal("[cyclic] started", lines[0]);
        Assert.Equal(10, lines.Count(l => l.EndsWith('%'))); // 10%, 20%, ... 100%
        Assert.Contains("[cyclic] 100% A run 3 done", lines);
        Assert.Equal("[cyclic] done", lines[^1]);
    }

    [Fact]
    public async Task Non_interactive_display_uses_plain_lines()
    {
        (IAnsiConsole console, StringWriter output) = PlainConsole();
        Assert.False(ProgressDisplay.IsInteractive(console));

        int result = await ProgressDisplay.RunAsync(console, interactive: false, sink =>
        {
            Assert.IsType<PlainProgressSink>(sink);
            sink.BeginPhase("p", 1);
            sink.EndPhase("p");
            return Task.FromResult(7);
        }).WaitAsync(TestTimeouts.Wait);

        Assert.Equal(7, result);
        Assert.Contains("[p] done", output.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Spectre_display_runs_the_body_with_a_live_sink()
    {
        (IAnsiConsole console, _) = PlainConsole();
        int result = await ProgressDisplay.RunAsync(console, interactive: true, sink =>
        {
            Assert.IsType<SpectreProgressSink>(sink);
            sink.BeginPhase("p", 10);
            sink.Report("p", 5, "half [way]");
            sink.Report("unknown", 1);
            sink.EndPhase("p");
            return Task.FromResult(3);
        }).WaitAsync(TestTimeouts.Wait);

        Assert.Equal(3, result);
    }
}
