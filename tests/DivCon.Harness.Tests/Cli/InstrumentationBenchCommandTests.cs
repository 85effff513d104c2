using System.Text.Json.Nodes;
using DivCon.Harness.Benchmarks;
using DivCon.Harness.Cli;

namespace DivCon.Harness.Tests.Cli;

/// <summary>
/// <c>bench-instrumentation</c>: its bad input, the runtime configuration it gives its children, and, in child
/// processes (the switch is read once per process), that <c>DivCon.Instrumentation.IsSupported=false</c> in a
/// runtime configuration leaves a <c>MeterListener</c> and an <c>EventListener</c> nothing from DivCon while programs
/// still run, and that the same child with the switch true shows everything.
/// </summary>
[Collection(LiveSchedulersTestGroup.Name)] // The children pin scheduler workers.
public sealed class InstrumentationBenchCommandTests
{
    private static readonly TimeSpan ChildTimeout = TimeSpan.FromMinutes(3);

    [Theory]
    [InlineData("--pairs", "1")]
    [InlineData("--pairs", "abc")]
    [InlineData("--seconds", "0")]
    [InlineData("--seconds", "x")]
    [InlineData("--only", "nosuch")]
    [InlineData("--only", ",")]
    [InlineData("--child", "maybe")]
    [InlineData("--bogus", "1")]
    [InlineData("--pairs", null)]
    public async Task Bad_input_is_one_error_line_and_exit_code_1(string option, string? value)
    {
        string[] args = value is null ? [InstrumentationBenchCommand.Name, option] : [InstrumentationBenchCommand.Name, option, value];
        var (exitCode, output, error) = await CliRunner.RunAsync(args);
        Assert.Equal(1, exitCode);
        Assert.Equal(string.Empty, output);
        string line = Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("error: ", line, StringComparison.Ordinal);
        Assert.Contains(option, line, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void The_child_configuration_is_the_harness_one_with_the_switch_set(bool on)
    {
        const string harness = """{"runtimeOptions":{"tfm":"net10.0","framework":{"name":"Microsoft.NETCore.App","version":"10.0.0"},"configProperties":{"System.GC.Server":false}}}""";
        JsonNode child = JsonNode.Parse(InstrumentationBenchCommand.ChildRuntimeConfig(harness, on))!;
        Assert.Equal(on, child["runtimeOptions"]!["configProperties"]![InstrumentationWorkloads.SwitchName]!.GetValue<bool>());
        Assert.False(child["runtimeOptions"]!["configProperties"]!["System.GC.Server"]!.GetValue<bool>());
        Assert.Equal("Microsoft.NETCore.App", child["runtimeOptions"]!["framework"]!["name"]!.GetValue<string>());
    }

    [Fact]
    public void A_configuration_without_properties_gets_them()
    {
        const string harness = """{"runtimeOptions":{"tfm":"net10.0","framework":{"name":"Microsoft.NETCore.App","version":"10.0.0"}}}""";
        JsonNode child = JsonNode.Parse(InstrumentationBenchCommand.ChildRuntimeConfig(harness, false))!;
        Assert.False(child["runtimeOptions"]!["configProperties"]![InstrumentationWorkloads.SwitchName]!.GetValue<bool>());
        Assert.Throws<ArgumentException>(() => InstrumentationBenchCommand.ChildRuntimeConfig("""{"other":1}""", false));
    }

    [Fact]
    public void With_the_switch_off_a_child_shows_listeners_nothing_from_DivCon_and_still_runs()
    {
        string line = Observe(on: false);
        Assert.Equal("observed meters= measurements=0 sources= events=0 result=1029", line);
    }

    [Fact]
    public void With_the_switch_on_the_same_child_shows_every_meter_and_the_event_source()
    {
        string line = Observe(on: true);
        Assert.StartsWith("observed meters=DivCon.Schedulers,DivCon.Skeletons measurements=", line, StringComparison.Ordinal);
        Assert.Contains(" sources=DivCon-Multiprogram events=", line, StringComparison.Ordinal);
        Assert.EndsWith(" result=1029", line, StringComparison.Ordinal);
        Assert.DoesNotContain("measurements=0 ", line, StringComparison.Ordinal);
        Assert.DoesNotContain("events=0 ", line, StringComparison.Ordinal);
    }

    [Fact]
    public void A_child_started_for_the_other_variant_refuses_to_measure()
    {
        string folder = Directory.CreateTempSubdirectory("divcon-instr-").FullName;
        try
        {
            string config = WriteConfig(folder, on: false);
            var ex = Assert.Throws<InvalidOperationException>(() =>
                InstrumentationBenchCommand.RunChild(config, ["--child", "on", "--seconds", "0.01", "--only", "skeleton.fib"], ChildTimeout));
            Assert.Contains("IsSupported=False", ex.Message, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    private static string Observe(bool on)
    {
        string folder = Directory.CreateTempSubdirectory("divcon-instr-").FullName;
        try
        {
            IReadOnlyList<string> lines = InstrumentationBenchCommand.RunChild(WriteConfig(folder, on), ["--observe"], ChildTimeout);
            return Assert.Single(lines);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    private static string WriteConfig(string folder, bool on)
    {
        string harness = File.ReadAllText(Path.ChangeExtension(typeof(InstrumentationBenchCommand).Assembly.Location, ".runtimeconfig.json"));
        string path = Path.Combine(folder, on ? "on.json" : "off.json");
        File.WriteAllText(path, InstrumentationBenchCommand.ChildRuntimeConfig(harness, on));
        return path;
    }
}
