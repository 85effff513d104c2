using System.CommandLine;
using DivCon.Harness.Cli;
using DivCon.Harness.Tests.Cli;
using DivCon.Harness.Workload;
using DivCon.Programs;

namespace DivCon.Harness.Tests.Workload;

/// <summary>
/// The processes experiment's pieces: the child's request loop (in this process), the child's command line through the
/// real parser, the modes, and one child process end to end (the harness started again as a child).
/// </summary>
[Collection(LiveSchedulersTestGroup.Name)]
public sealed class ProcessSchemeTests
{
    [Fact]
    public async Task The_child_says_ready_runs_once_per_request_and_records_each_completion()
    {
        string completions = Path.Combine(Path.GetTempPath(), $"divcon-child-test-{Guid.NewGuid():N}.csv");
        try
        {
            var launch = Launch(ProcessMode.Independent, completions);
            var output = new StringWriter();

            await ProcessChildCommand.RunAsync(launch, new StringReader("run\nbogus\nrun\n"), output, CancellationToken.None);

            string[] lines = output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
            Assert.Equal(["ready -", "done", "error unknown request 'bogus'", "done"], lines);
            string text = File.ReadAllText(completions);
            Assert.DoesNotContain("\n", text.Replace("\r\n", string.Empty, StringComparison.Ordinal), StringComparison.Ordinal); // RFC 4180: CRLF
            string[] rows = text.Split("\r\n", StringSplitOptions.RemoveEmptyEntries);
            Assert.Equal("pid,mode,program,size,run,start_seconds,end_seconds", rows[0]);
            Assert.Equal(3, rows.Length);
            Assert.Equal(["independent", "sumsq", "65536", "1"], rows[2].Split(',')[1..5]);
        }
        finally
        {
            File.Delete(completions);
        }
    }

    [Fact]
    public async Task A_joined_child_says_whether_it_joined_its_domain_and_runs()
    {
        string completions = Path.Combine(Path.GetTempPath(), $"divcon-child-test-{Guid.NewGuid():N}.csv");
        try
        {
            var output = new StringWriter();

            await ProcessChildCommand.RunAsync(Launch(ProcessMode.Joined, completions), new StringReader("run\n"), output, CancellationToken.None);

            string[] lines = output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
            Assert.Equal(2, lines.Length);
            Assert.StartsWith("ready domain harness", lines[0], StringComparison.Ordinal);
            // Linux with .NET 8+: the child joins (it is the domain's only member, so its coordinator); elsewhere it
            // says it did not and runs on its own CPUs.
            Assert.Contains(OperatingSystem.IsLinux() ? ": attached" : "not joined", lines[0], StringComparison.Ordinal);
            Assert.Equal("done", lines[1]);
        }
        finally
        {
            File.Delete(completions);
        }
    }

    [Fact]
    public void The_childs_command_line_parses_back_into_the_same_launch()
    {
        var launch = Launch(ProcessMode.Joined, "/tmp/c.csv") with { Cpus = [0, 3], Pin = true, DomainDirectory = "/tmp/domain" };
        RootCommand root = HarnessCli.Build(CliHost.ForWriters(TextWriter.Null, TextWriter.Null, "divcon"));

        ParseResult parsed = root.Parse([.. launch.Arguments()]);

        Assert.Empty(parsed.Errors);
        Assert.Equal(ChildLaunch.CommandName, parsed.CommandResult.Command.Name);
        Assert.True(parsed.CommandResult.Command.Hidden);
        string[] args = [.. launch.Arguments()];
        Assert.Equal("0,3", args[Array.IndexOf(args, "--cpus") + 1]);
        Assert.Equal("joined", args[Array.IndexOf(args, "--mode") + 1]);
        Assert.Contains("--pin", args);
        Assert.Equal("2", args[Array.IndexOf(args, "--warmup-runs") + 1]);
        Assert.Equal("0", args[Array.IndexOf(args, "--warmup-ms") + 1]);
        Assert.Equal(5000, new ChildLaunch("pi", 1, 1, ProcessMode.Joined, [0], false, 100, null, "c.csv").WarmupMilliseconds);
    }

    [Theory]
    [InlineData("independent", ProcessMode.Independent)]
    [InlineData("JOINED", ProcessMode.Joined)]
    [InlineData(" one-process ", ProcessMode.OneProcess)]
    [InlineData("joined-guests", ProcessMode.JoinedGuests)]
    [InlineData("joined-local-sampling", ProcessMode.JoinedLocalSampling)]
    public void Modes_parse_by_name(string name, ProcessMode mode)
    {
        Assert.Equal(mode, ProcessModes.Parse(name));
        Assert.Equal(name.Trim().ToLowerInvariant(), ProcessModes.NameOf(mode));
    }

    [Fact]
    public void Guest_counters_sum_the_last_line_of_each_childs_file_over_the_wall_seconds()
    {
        string folder = Path.Combine(Path.GetTempPath(), $"divcon-guests-{Guid.NewGuid():N}");
        Directory.CreateDirectory(folder);
        try
        {
            const string Header = "seconds,loans,handbacks,wakes,polls\r\n";
            File.WriteAllText(Path.Combine(folder, "joined-guests-001-a-1-guests.csv"), Header + "5,1,1,1,10\r\n10,40,30,20,9000\r\n");
            File.WriteAllText(Path.Combine(folder, "joined-guests-001-b-1-guests.csv"), Header + "10,60,50,30,11000\r\n");
            File.WriteAllText(Path.Combine(folder, "joined-guests-001-c-1-guests.csv"), Header); // no run completed
            File.WriteAllText(Path.Combine(folder, "joined-001-a-1-guests.csv"), Header + "10,999,999,999,999\r\n"); // another scheme

            GuestTotals totals = CrossProcessGuests.Read(folder, "joined-guests", concurrent: 2);

            Assert.Equal(new GuestTotals(2, 10, 100, 80, 50, 20_000), totals);
            Assert.Contains("10 loans/s, 8 hand-backs/s", totals.ToString(), StringComparison.Ordinal);
            Assert.Equal(new GuestTotals(0, 0, 0, 0, 0, 0), CrossProcessGuests.Read(Path.Combine(folder, "absent"), "joined-guests", 3));
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Fact]
    public void A_process_scheme_refuses_one_process_and_synthetic_programs()
    {
        var options = new ProcessSchemeOptions([0], false, TimeSpan.FromMilliseconds(100), Path.GetTempPath(), Path.GetTempPath(), null);
        WorkloadProgram catalog = new("sumsq", ProgramCatalog.Create("sumsq", 1 << 16));
        Assert.Throws<ArgumentException>(() => new ProcessScheme(ProcessMode.OneProcess, [catalog], options));
        var ex = Assert.Throws<ArgumentException>(() => new ProcessScheme(ProcessMode.Independent, [new WorkloadProgram("synthetic", _ => Task.CompletedTask)], options));
        Assert.Contains("synthetic", ex.Message, StringComparison.Ordinal);
        Assert.Equal("independent", new ProcessScheme(ProcessMode.Independent, [catalog], options).Name);
    }

    [Fact]
    public async Task A_child_process_runs_the_program_on_request_and_records_its_completions()
    {
        (string file, IReadOnlyList<string> prefix) = ChildLaunch.Self();
        string assembly = prefix.Count > 0 ? prefix[0] : file;
        Assert.True(File.Exists(Path.ChangeExtension(assembly, ".runtimeconfig.json")), $"The harness cannot be started as a child: no runtimeconfig beside {assembly}.");
        string folder = Path.Combine(Path.GetTempPath(), $"divcon-processes-test-{Guid.NewGuid():N}");
        try
        {
            var options = new ProcessSchemeOptions([0], false, TimeSpan.FromMilliseconds(100), folder, folder, KillEvery: null);
            var scheme = new ProcessScheme(ProcessMode.Independent, [new WorkloadProgram("sumsq", ProgramCatalog.Create("sumsq", 1 << 16))], options);

            await using (IWorkloadSession session = await scheme.OpenAsync(CancellationToken.None))
            {
                await session.Programs[0].RunOnceAsync(CancellationToken.None).WaitAsync(TimeSpan.FromSeconds(60));
                await session.Programs[0].RunOnceAsync(CancellationToken.None).WaitAsync(TimeSpan.FromSeconds(60));
            }

            string completions = Assert.Single(Directory.GetFiles(folder, "independent-001-sumsq-1.csv"));
            // A header and the two runs asked for; the parent queues the next run as soon as one is done, so the child
            // may also have finished the run nobody asked for before disposal killed it (one line more, never two).
            Assert.InRange(File.ReadAllLines(completions).Length, 3, 4);
            Assert.Equal(["-"], scheme.DomainStatuses);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    private static ChildLaunch Launch(ProcessMode mode, string completions) =>
        new("sumsq", 1 << 16, ProgramCatalog.DefaultSeed, mode, [0], Pin: false, RebalanceMilliseconds: 100, DomainDirectory: null, completions) { WarmupMilliseconds = 0 };
}
