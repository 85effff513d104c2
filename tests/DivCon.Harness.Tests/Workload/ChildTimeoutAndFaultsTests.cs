using System.Diagnostics;
using DivCon.Harness.Cli;
using DivCon.Harness.Experiments;
using DivCon.Harness.Tests.Cli;
using DivCon.Harness.Workload;
using DivCon.Programs;

namespace DivCon.Harness.Tests.Workload;

/// <summary>
/// A child that never answers is reported within the timeout, never waited for forever; the domain-faults run end to
/// end at a tiny scale; a joined child's cross-process moves file read back. Unix (the stand-in child is /bin/sh; the
/// machine domain and SIGKILL need Linux).
/// </summary>
[Collection(LiveSchedulersTestGroup.Name)]
public sealed class ChildTimeoutAndFaultsTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(120);

    [Fact]
    public async Task A_child_that_never_answers_a_run_is_killed_and_reported_within_the_timeout()
    {
        string folder = Path.Combine(Path.GetTempPath(), $"divcon-timeout-test-{Guid.NewGuid():N}");
        try
        {
            var scheme = new ProcessScheme(ProcessMode.Independent, [new WorkloadProgram("sumsq", ProgramCatalog.Create("sumsq", 1 << 16))], Options(folder, "echo ready -; exec sleep 600"));
            await using IWorkloadSession session = await scheme.OpenAsync(CancellationToken.None).AsTask().WaitAsync(Bound);
            var clock = Stopwatch.StartNew();

            var ex = await Assert.ThrowsAsync<TimeoutException>(() => session.Programs[0].RunOnceAsync(CancellationToken.None).WaitAsync(Bound));

            Assert.Contains("did not answer a run within 1 s", ex.Message, StringComparison.Ordinal);
            Assert.Contains("sumsq", ex.Message, StringComparison.Ordinal);
            Assert.True(clock.Elapsed < TimeSpan.FromSeconds(60), $"reported after {clock.Elapsed}");
            Assert.Equal(CommandActions.RunFailed, CommandActions.ExitCodeOf(ex)); // one error line, exit code 3
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Fact]
    public async Task A_child_that_never_says_ready_is_reported_within_the_timeout()
    {
        string folder = Path.Combine(Path.GetTempPath(), $"divcon-timeout-test-{Guid.NewGuid():N}");
        try
        {
            var scheme = new ProcessScheme(ProcessMode.Independent, [new WorkloadProgram("sumsq", ProgramCatalog.Create("sumsq", 1 << 16))], Options(folder, "exec sleep 600"));

            var ex = await Assert.ThrowsAsync<TimeoutException>(() => scheme.OpenAsync(CancellationToken.None).AsTask().WaitAsync(Bound));

            Assert.Contains("did not answer ready within 1 s", ex.Message, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Fact]
    public async Task The_next_run_is_queued_when_a_run_is_done_and_an_unasked_queued_run_is_not_waited_for()
    {
        string folder = Path.Combine(Path.GetTempPath(), $"divcon-queue-test-{Guid.NewGuid():N}");
        Directory.CreateDirectory(folder);
        string mark = Path.Combine(folder, "queued");
        try
        {
            // The stand-in answers the first request, then records the second one, which the test never asks for,
            // and then runs "forever" (far longer than the 10 s a child gets to exit when its input closes).
            var scheme = new ProcessScheme(
                ProcessMode.Independent,
                [new WorkloadProgram("sumsq", ProgramCatalog.Create("sumsq", 1 << 16))],
                Options(folder, $"echo ready -; read a; echo done; read b; echo \"$b\" > '{mark}'; exec sleep 600") with { ChildTimeout = TimeSpan.FromSeconds(60) });
            IWorkloadSession session = await scheme.OpenAsync(CancellationToken.None).AsTask().WaitAsync(Bound);
            await session.Programs[0].RunOnceAsync(CancellationToken.None).WaitAsync(Bound);

            // Nobody asked for a second run: the parent queued it when the first was done.
            var clock = Stopwatch.StartNew();
            while (!File.Exists(mark) || File.ReadAllText(mark).Trim() != "run")
            {
                Assert.True(clock.Elapsed < Bound, "the next run was never queued");
                await Task.Delay(20);
            }

            // The queued run's result is not wanted: disposal kills the child instead of waiting for it to end.
            clock.Restart();
            await session.DisposeAsync().AsTask().WaitAsync(Bound);
            Assert.True(clock.Elapsed < TimeSpan.FromSeconds(8), $"disposal took {clock.Elapsed}: it waited for the queued run");
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Fact]
    public void Cross_process_moves_read_back_with_their_latencies_and_unarrived_ones_as_null()
    {
        string completions = Path.Combine(Path.GetTempPath(), $"divcon-moves-test-{Guid.NewGuid():N}.csv");
        string moves = CrossProcessMoves.PathFor(completions);
        try
        {
            Assert.EndsWith("-moves.csv", moves, StringComparison.Ordinal);
            File.WriteAllText(moves, "decided_seconds,cpu,receipt_to_decision_ms,latency_ms\r\n0.5,1,0.2,1.75\r\n0.9,0,0.1,\r\n");

            var samples = CrossProcessMoves.Read([moves]);

            Assert.Equal(2, samples.Count);
            Assert.Equal(TimeSpan.FromMilliseconds(1.75), samples[0].Latency);
            Assert.Null(samples[1].Latency);
            Assert.StartsWith("cpu 1: another process -> ", samples[0].Label, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(moves);
        }
    }

    [Fact]
    public async Task Domain_faults_times_each_kill_and_churns_cycles_without_failures()
    {
        string root = Path.Combine(Path.GetTempPath(), $"divcon-faults-test-{Guid.NewGuid():N}");
        try
        {
            var host = CliHost.ForWriters(TextWriter.Null, TextWriter.Null, "divcon");
            var options = new DomainFaultOptions(
                host.Machine.CpusFor(host.Machine.CpuCount), host.Machine.PinningSupported, Children: 2, Kills: 2, Cycles: 4, KillEvery: TimeSpan.FromSeconds(0.5),
                HoldMinMilliseconds: 20, HoldMaxMilliseconds: 80, DecisionInterval: TimeSpan.FromMilliseconds(100), BoundIntervals: 200,
                ChildTimeout: TimeSpan.FromSeconds(60), Seed: 3);

            DomainFaultResult result = await DomainFaultsCommand.RunAsync(host, root, "faults", options, CancellationToken.None).WaitAsync(TimeSpan.FromMinutes(10)); // about 30 s idle; each child start takes seconds on a loaded machine

            Assert.Empty(result.Failures);
            KillRecord[] timed = [.. result.Kills.Where(k => k.Phase == "reassign")];
            Assert.Equal(2, timed.Length);
            Assert.All(timed.Where(k => k.Cpus.Count > 0), k => Assert.NotNull(k.LatencyMs));
            Assert.True(result.Cycles + result.ChurnKills >= 4, $"{result.Cycles} cycles, {result.ChurnKills} kills");
            string folder = Path.Combine(root, "faults");
            string[] rows = File.ReadAllLines(Path.Combine(folder, "kills.csv"));
            Assert.StartsWith("phase,kill,seconds,victim_pid,coordinator,cpus,settled,latency_ms,latency_intervals,dropped", rows[0], StringComparison.Ordinal);
            Assert.EndsWith(",receiver_pid,receiver_started_ms,first_grantee_pid,first_grant_ms,granted_ms,grant_trigger,received_ms,acked_ms,applied_ms,arrived_ms,withheld_until_ms,withheld_by_pid,grants_sent", rows[0], StringComparison.Ordinal);

            // Each CPU of a timed kill is explained: who served it next (a pid, or -1 when another child already did at the kill) and when.
            Assert.All(timed.Where(k => k.Cpus.Count > 0), k => Assert.All(k.Handovers, h => Assert.True(h.Receiver != 0 && h.ArrivedMs is not null, $"{h}")));
            Assert.All(timed, k => Assert.Equal(k.Cpus.Count, k.Handovers.Count));
            Assert.Equal(result.Kills.Count + 1, rows.Length);
            Assert.Contains("## Join/leave churn with random kills", File.ReadAllText(Path.Combine(folder, "summary.md")), StringComparison.Ordinal);
        }
        finally
        {
            if (Directory.Exists(root))
            {
                Directory.Delete(root, recursive: true);
            }
        }
    }

    private static ProcessSchemeOptions Options(string folder, string script) =>
        new([0], false, TimeSpan.FromMilliseconds(100), folder, folder, KillEvery: null)
        {
            ChildTimeout = TimeSpan.FromSeconds(1),
            ChildStart = _ => new ProcessStartInfo("/bin/sh") { ArgumentList = { "-c", script } },
        };
}
