using DivCon.Harness.Machine;

namespace DivCon.Harness.Tests.Machine;

public class MachineTests
{
    [Fact]
    public void Cpu_model_is_read_from_cpuinfo_text()
    {
        const string X86 = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R)   CPU @ 2.20GHz\n\nprocessor\t: 1\nmodel name\t: other\n";
        const string Arm = "processor\t: 0\nBogoMIPS\t: 50.00\n\nHardware\t: BCM2835\n";
        Assert.Equal("Intel(R) Xeon(R) CPU @ 2.20GHz", CpuInfo.ParseModelName(X86));
        Assert.Equal("BCM2835", CpuInfo.ParseModelName(Arm));
        Assert.Equal("unknown", CpuInfo.ParseModelName(""));
        Assert.False(string.IsNullOrWhiteSpace(CpuInfo.ReadModelName()));
    }

    [Fact]
    public void Simulation_cost_names_wall_cpu_time_and_the_share_of_the_cpus()
    {
        var cost = new DivCon.Harness.Simulation.SimulationCost(54.6, 103.74, 2);
        Assert.Equal(0.95, cost.Share, 2);
        Assert.Equal(
            "Whole simulation: 54.60 s wall, 103.7 s CPU time on 2 CPUs (schemes in parallel; the process had 95% of the CPUs' time).",
            cost.Describe());
        Assert.Equal(0, new DivCon.Harness.Simulation.SimulationCost(0, 1, 2).Share);
    }

    [Fact]
    public void Command_lines_are_quoted_for_a_shell()
    {
        Assert.Equal("dotnet run -- cyclic --limit=8m", CommandLineText.Join(["dotnet", "run", "--", "cyclic", "--limit=8m"]));
        Assert.Equal("run 'two words' '' 'it'\\''s' '*'", CommandLineText.Join(["run", "two words", "", "it's", "*"]));
    }

    [Fact]
    public void Git_commit_is_unknown_outside_a_repository()
    {
        string empty = Directory.CreateTempSubdirectory("divcon-nogit-").FullName;
        try
        {
            Assert.Equal("unknown", GitInfo.ShortCommit(empty));
        }
        finally
        {
            Directory.Delete(empty);
        }
    }

    [Fact]
    public void Capture_fills_every_field()
    {
        var clock = new Support.ManualTimeProvider();
        RunStamp stamp = RunStamp.Capture("2 cores", "harness cyclic", clock);

        Assert.Equal(Environment.ProcessorCount, stamp.LogicalCpus);
        Assert.Equal("2 cores", stamp.Topology);
        Assert.Equal("harness cyclic", stamp.CommandLine);
        Assert.Equal(clock.GetUtcNow(), stamp.UtcDate);
        Assert.Contains(".NET", stamp.Runtime, StringComparison.Ordinal);
        Assert.False(string.IsNullOrWhiteSpace(stamp.GitCommit));
        Assert.Equal(8, stamp.ToPairs().Count);
        Assert.False(string.IsNullOrWhiteSpace(RunStamp.Capture("t").CommandLine));
    }
}
