using System.CommandLine;
using System.Globalization;
using DivCon.Harness.Experiments;
using DivCon.Harness.Reports;
using DivCon.Schedulers.Multiprogram.Domain;
using Spectre.Console;

namespace DivCon.Harness.Cli;

/// <summary>
/// <c>domain-faults</c>: joined child processes, each a multiprogram scheduler with a busy program in one machine domain,
/// killed with SIGKILL and replaced. The reassignment phase measures, per kill of a process serving CPUs, the time from
/// the kill until another process's worker serves each of its CPUs (the move applied, reported by the worker, not the
/// grant); the churn phase runs join/leave cycles with random kills and checks that no CPU stays with a dead process
/// and that nothing hangs. A separate command rather than an option of <c>processes</c>: that experiment times catalog
/// programs under the cyclic protocol, this one needs always-busy members that stream their moves, and kills timed by
/// the parent.
/// </summary>
public static class DomainFaultsCommand
{
    /// <summary>Builds the command.</summary>
    /// <param name="host">The host.</param>
    /// <returns>The command.</returns>
    public static Command Create(CliHost host)
    {
        ArgumentNullException.ThrowIfNull(host);
        var children = OptionTable.Whole("--children", "Processes joined at a time.", 4, 2, 64);
        var kills = OptionTable.Whole("--kills", "Reassignment phase: kills of a process serving CPUs, each timed until its CPUs serve others (0: skip).", 200, 0);
        var cycles = OptionTable.Whole("--cycles", "Churn phase: join/leave cycles, kills included (0: skip).", 1000, 0);
        var killEvery = OptionTable.Number("--kill-every", "Churn phase: kill a random process this often.", 1, above: 0, unit: "seconds");
        var holdMin = OptionTable.Whole("--hold-min-ms", "Churn phase: the least time a process stays joined per cycle.", 50, 1);
        var holdMax = OptionTable.Whole("--hold-max-ms", "Churn phase: the most time a process stays joined per cycle.", 250, 1);
        var bound = OptionTable.Whole("--bound-intervals", "Decision intervals a kill's CPUs may take to serve others before it counts as not reassigned (and the settling bound).", 20, 2, 10_000);
        var timeout = OptionTable.Number("--child-timeout", "A process not ready, or completing no cycle, within this is reported hung.", 60, above: 0, unit: "seconds");
        var workers = OptionTable.OptionalWhole("--workers", "CPUs every process runs on. [default: all allowed CPUs]", 1, () => host.Machine.CpuCount, "the allowed CPUs", "-w");
        var seed = OptionTable.Whole("--seed", "The seed of the victims and cycle lengths.", 1, int.MinValue);
        var keepLines = OptionTable.Flag("--keep-lines", "Also write every child's report lines (grants sent, installed and applied, arrivals, domain log) to lines.txt.");
        var outRoot = OptionTable.Text("--out", $"Results root folder. [default: {CommonOptions.AdHocRoot} (ad-hoc, ignored by git)]", null, "folder", aliases: "-o");
        var name = OptionTable.FolderName("--name", "Results subfolder.", "domain-faults");
        var command = new Command("domain-faults",
            "Joined processes killed (SIGKILL) and replaced: per-kill time until the killed process's CPUs serve others (p50/p95/p99/max, in decision intervals), then join/leave churn with random kills checked for stranded CPUs and hangs.");
        foreach (Option option in new Option[] { children, kills, cycles, killEvery, holdMin, holdMax, bound, timeout, workers, seed, keepLines, outRoot, name })
        {
            command.Add(option);
        }

        CommandActions.Set(command, host, async (parse, cancellationToken) =>
        {
            if (!OperatingSystem.IsLinux())
            {
                throw new PlatformNotSupportedException("domain-faults needs Linux (the machine domain and SIGKILL).");
            }

            int min = parse.GetValue(holdMin), max = parse.GetValue(holdMax);
            if (max < min)
            {
                throw new ArgumentException($"--hold-max-ms ({max}) is below --hold-min-ms ({min}).");
            }

            int count = parse.GetValue(workers) ?? host.Machine.CpuCount;
            var options = new DomainFaultOptions(
                host.Machine.CpusFor(count), host.Machine.PinningSupported, parse.GetValue(children), parse.GetValue(kills), parse.GetValue(cycles),
                TimeSpan.FromSeconds(parse.GetValue(killEvery)), min, max, new CpuDomainOptions().DecisionInterval, parse.GetValue(bound),
                TimeSpan.FromSeconds(parse.GetValue(timeout)), parse.GetValue(seed))
            {
                LinesPath = parse.GetValue(keepLines) ? string.Empty : null, // the results folder's lines.txt, set by RunAsync
            };
            if (options.Kills == 0 && options.Cycles == 0)
            {
                throw new ArgumentException("--kills and --cycles are both 0: nothing to run.");
            }

            await RunAsync(host, parse.GetValue(outRoot) ?? CommonOptions.AdHocRoot, parse.GetValue(name)!, options, cancellationToken).ConfigureAwait(false);
        });
        return command;
    }

    /// <summary>Runs the experiment into a results folder (kept as partial when it fails).</summary>
    /// <param name="host">The host.</param>
    /// <param name="outRoot">Results root.</param>
    /// <param name="experiment">Folder name.</param>
    /// <param name="options">The run.</param>
    /// <param name="cancellationToken">Cancels it.</param>
    /// <returns>The result.</returns>
    /// <exception cref="InvalidOperationException">A hang, a stranded CPU or an undropped dead process (the files are written first).</exception>
    public static Task<DomainFaultResult> RunAsync(CliHost host, string outRoot, string experiment, DomainFaultOptions options, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(host);
        ArgumentNullException.ThrowIfNull(options);
        return ExperimentOutput.RunAsync(host, outRoot, experiment, options.Cpus.Count, async (context, warn) =>
        {
            string domain = Path.Combine(Path.GetTempPath(), $"divcon-faults-{Environment.ProcessId}-{Guid.NewGuid():N}");
            if (OperatingSystem.IsWindows())
            {
                throw new PlatformNotSupportedException("domain-faults needs Linux (the machine domain and SIGKILL).");
            }

            // Private to this user (0700): the domain refuses a directory others may enter.
            Directory.CreateDirectory(domain, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
            context.Output.WriteJson("setup.json", new
            {
                Experiment = experiment,
                options.Children,
                options.Kills,
                options.Cycles,
                KillEverySeconds = options.KillEvery.TotalSeconds,
                options.HoldMinMilliseconds,
                options.HoldMaxMilliseconds,
                DecisionIntervalMs = options.DecisionInterval.TotalMilliseconds,
                options.BoundIntervals,
                ChildTimeoutSeconds = options.ChildTimeout.TotalSeconds,
                options.Cpus,
                options.Pin,
                options.Seed,
                Member = "a domain-fault-child process: a multiprogram scheduler over the CPUs, one busy program (0.5 ms spinning tasks, twice as many as CPUs), joined to one machine domain",
                Latency = "from the parent's timestamp just before SIGKILL until the last CPU the victim's workers served is served by another live process's worker (its move arrival, stamped in that process); CLOCK_MONOTONIC across processes",
            });
            DomainFaultResult result;
            try
            {
                var run = options.LinesPath is null ? options : options with { LinesPath = context.Output.PathOf("lines.txt") };
                result = await new DomainFaultRun(run, domain, context.Progress).RunAsync(cancellationToken).ConfigureAwait(false);
            }
            finally
            {
                try
                {
                    Directory.Delete(domain, recursive: true);
                }
                catch (IOException)
                {
                }
            }

            Write(context.Output, result);
            if (result.Failures.Count > 0)
            {
                throw new InvalidOperationException($"{result.Failures.Count} failure(s), first: {result.Failures[0]} (all in failures.txt)");
            }

            if (result.Reassignment is { MeetsCriterion: false } summary)
            {
                warn(FormattableString.Invariant($"reassignment p99 {summary.Latencies.P99Ms:0.0} ms is above two decision intervals ({2 * summary.DecisionIntervalMs:0} ms), or a kill was not reassigned."));
            }

            return result;
        }, result => Render(host, result), cancellationToken);
    }

    /// <summary>Writes kills.csv, failures.txt and summary.md.</summary>
    /// <param name="folder">The results folder.</param>
    /// <param name="result">The result.</param>
    public static void Write(ResultsFolder folder, DomainFaultResult result)
    {
        ArgumentNullException.ThrowIfNull(folder);
        ArgumentNullException.ThrowIfNull(result);
        double interval = result.Reassignment?.DecisionIntervalMs ?? 100;
        // Per CPU of the victim (space-separated in the order of cpus): who received it and each step of its handover.
        folder.WriteText("kills.csv", w => Csv.Write(w, ["phase", "kill", "seconds", "victim_pid", "coordinator", "cpus", "settled", "latency_ms", "latency_intervals", "dropped", "drop_ms", "drop_reason",
            "receiver_pid", "receiver_started_ms", "first_grantee_pid", "first_grant_ms", "granted_ms", "grant_trigger", "received_ms", "acked_ms", "applied_ms", "arrived_ms", "withheld_until_ms", "withheld_by_pid", "grants_sent"],
            result.Kills.Select(k => (IReadOnlyList<string>)[
                k.Phase, I(k.Number), I(k.Seconds, "0.###"), I(k.Victim), k.Coordinator ? "1" : "0", string.Join(' ', k.Cpus), k.Settled ? "1" : "0",
                k.LatencyMs is { } ms ? I(ms, "0.###") : string.Empty, k.LatencyMs is { } m ? I(m / interval, "0.####") : string.Empty,
                k.Dropped switch { true => "1", false => "0", null => string.Empty }, k.DropMs is { } d ? I(d, "0.###") : string.Empty, k.DropReason ?? string.Empty,
                Each(k, h => I(h.Receiver)), Each(k, h => Ms(h.ReceiverStartedMs)), Each(k, h => h.FirstGranteePid is { } p ? I(p) : "-"), Each(k, h => Ms(h.FirstGrantMs)),
                Each(k, h => Ms(h.GrantedMs)), Each(k, h => h.Trigger ?? "-"), Each(k, h => Ms(h.ReceivedMs)), Each(k, h => Ms(h.AcknowledgedMs)),
                Each(k, h => Ms(h.AppliedMs)), Each(k, h => Ms(h.ArrivedMs)), Each(k, h => Ms(h.WithheldUntilMs)), Each(k, h => h.WithheldBy is { } b ? I(b) : "-"),
                Each(k, h => I(h.Decisions))])));
        folder.WriteText("failures.txt", w =>
        {
            foreach (string failure in result.Failures)
            {
                w.WriteLine(failure);
            }
        });
        folder.WriteText("summary.md", w =>
        {
            foreach (string line in Summary(result))
            {
                w.WriteLine(line);
            }
        });
    }

    /// <summary>The summary as Markdown lines.</summary>
    /// <param name="result">The result.</param>
    /// <returns>The lines.</returns>
    public static IEnumerable<string> Summary(DomainFaultResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        yield return "# Domain faults";
        yield return string.Empty;
        if (result.Reassignment is { } summary)
        {
            KillRecord[] timed = [.. result.Kills.Where(k => k.Phase == "reassign" && k.Cpus.Count > 0)];
            yield return "## Reassignment after a kill (from SIGKILL to another process's worker serving each of the victim's CPUs)";
            yield return string.Empty;
            foreach (string line in summary.Markdown())
            {
                yield return line;
            }

            yield return string.Empty;
            yield return I($"Of which the victim hosted the coordinator: {timed.Count(k => k.Coordinator)} (its members fall back to their own CPUs at once); killed while the grants were not settled: {timed.Count(k => !k.Settled)}.");
            yield return string.Empty;
        }

        int churnKills = result.ChurnKills;
        yield return "## Join/leave churn with random kills";
        yield return string.Empty;
        yield return I($"- cycles: {result.Cycles + churnKills} ({result.Cycles} left, {churnKills} killed); longest leave {result.LongestLeaveMs:0.0} ms; coordinator host changes {result.CoordinatorChanges}");
        int dropped = result.Kills.Count(k => k.Dropped == true);
        int undropped = result.Kills.Count(k => k.Dropped == false);
        yield return I($"- killed joined processes dropped by the coordinator: {dropped}; not dropped: {undropped}; not applicable (not joined, the coordinator itself, or it went meanwhile): {result.Kills.Count(k => k.Dropped is null)}");
        yield return I($"- failures (hangs, CPUs left to dead processes): {result.Failures.Count}");
    }

    private static void Render(CliHost host, DomainFaultResult result)
    {
        foreach (string line in Summary(result).Where(l => l.Length > 0))
        {
            host.Console.WriteLine(line);
        }
    }

    private static string I(FormattableString text) => FormattableString.Invariant(text);

    /// <summary>One value per handover, space-separated (empty when the kill has none).</summary>
    private static string Each(KillRecord kill, Func<CpuHandover, string> value) => string.Join(' ', kill.Handovers.Select(value));

    private static string Ms(double? ms) => ms is { } v ? I(v, "0.#") : "-";

    private static string I(int value) => value.ToString(CultureInfo.InvariantCulture);

    private static string I(double value, string format) => value.ToString(format, CultureInfo.InvariantCulture);
}
