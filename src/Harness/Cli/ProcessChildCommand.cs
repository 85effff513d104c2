using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using DivCon.Harness.Workload;
using DivCon.Programs;
using DivCon.Schedulers.Multiprogram;

namespace DivCon.Harness.Cli;

/// <summary>
/// The hidden <c>process-child</c> command: one program of the <c>processes</c> experiment in its own process, run once
/// per <c>run</c> line on standard input (protocol: <see cref="ProgramChild"/>), each completion appended to a CSV file.
/// </summary>
public static class ProcessChildCommand
{
    /// <summary>Builds the command (hidden from help).</summary>
    /// <param name="host">The host.</param>
    /// <returns>The command.</returns>
    public static Command Create(CliHost host)
    {
        ArgumentNullException.ThrowIfNull(host);
        var program = OptionTable.Text("--program", "The catalog program to run.", null, "program",
            n => ProgramCatalog.TryFind(n, out _) ? null : "a catalog program", ["nosuchprogram"]);
        var size = OptionTable.WholeLong("--size", "Its problem size.", 1, 1);
        var seed = OptionTable.Whole("--seed", "Its seed.", ProgramCatalog.DefaultSeed, int.MinValue);
        var mode = OptionTable.Choice("--mode", "independent: the .NET thread pool; joined: a multiprogram scheduler in a machine domain.",
            "independent", [ProcessModes.NameOf(ProcessMode.Independent), ProcessModes.NameOf(ProcessMode.Joined), ProcessModes.NameOf(ProcessMode.JoinedGuests),
                ProcessModes.NameOf(ProcessMode.JoinedLocalSampling)]);
        var cpus = OptionTable.WholeList("--cpus", "The CPUs of the run.", [0], 0, () => int.MaxValue, null);
        var pin = OptionTable.Flag("--pin", "Joined: pin the workers to --cpus.");
        var rebalance = OptionTable.Whole("--rebalance-ms", "Joined: the rebalancing interval in milliseconds.", 100, 1);
        var domain = OptionTable.Text("--domain-dir", "Joined: the machine domain's directory.", null, "folder");
        var completions = OptionTable.Text("--completions", "The CSV file completed runs are appended to.", null, "file");
        var warmupRuns = OptionTable.Whole("--warmup-runs", "The least number of unrecorded runs before saying ready.", ChildLaunch.DefaultWarmupRuns, 1);
        var warmupMs = OptionTable.Whole("--warmup-ms", "The least time spent on unrecorded runs before saying ready, in milliseconds.", ChildLaunch.DefaultWarmupMilliseconds, 0);
        var command = new Command(ChildLaunch.CommandName, "Internal: one program of the processes experiment in a child process.") { Hidden = true };
        foreach (Option option in new Option[] { program, size, seed, mode, cpus, pin, rebalance, domain, completions, warmupRuns, warmupMs })
        {
            command.Add(option);
        }

        CommandActions.Set(command, host, (parse, cancellationToken) =>
        {
            string name = parse.GetValue(program) ?? throw new ArgumentException("--program is required.");
            var launch = new ChildLaunch(
                name, parse.GetValue(size), parse.GetValue(seed), ProcessModes.Parse(parse.GetValue(mode)!), parse.GetValue(cpus) ?? [0], parse.GetValue(pin),
                parse.GetValue(rebalance), parse.GetValue(domain), parse.GetValue(completions) ?? Path.Combine(Path.GetTempPath(), $"divcon-child-{Environment.ProcessId}.csv"))
            {
                WarmupRuns = parse.GetValue(warmupRuns),
                WarmupMilliseconds = parse.GetValue(warmupMs),
            };
            return RunAsync(launch, Console.In, host.Output, cancellationToken);
        });
        return command;
    }

    /// <summary>The child's loop: build the scheduler, say ready, run on every <c>run</c> line until end of input.</summary>
    /// <param name="launch">What to run.</param>
    /// <param name="input">The parent's requests.</param>
    /// <param name="output">The replies.</param>
    /// <param name="cancellationToken">Cancels the loop.</param>
    /// <returns>A task that completes at end of input.</returns>
    public static async Task RunAsync(ChildLaunch launch, TextReader input, TextWriter output, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(launch);
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(output);
        BenchmarkProgram program = ProgramCatalog.Create(launch.Program, launch.Size, launch.Seed);
        MultiprogramScheduler? multiprogram = null;
        ProgramTaskScheduler? registered = null;
        TaskScheduler scheduler = TaskScheduler.Default;
        string status = "-";
        CrossProcessMoves? moves = null;
        CrossProcessGuests? guests = null;
        if (ProcessModes.IsJoined(launch.Mode))
        {
            multiprogram = new MultiprogramScheduler(new MultiprogramSchedulerOptions
            {
                Pin = launch.Pin,
                CpuIds = launch.Pin ? launch.Cpus : null,
                WorkerCount = launch.Pin ? null : launch.Cpus.Count,
                RebalanceInterval = TimeSpan.FromMilliseconds(launch.RebalanceMilliseconds),
                MachineDomain = new MachineDomainOptions
                {
                    Name = ChildLaunch.DomainName, Directory = launch.DomainDirectory, Guests = launch.Mode == ProcessMode.JoinedGuests,
                    EstimatorSampleInterval = launch.Mode == ProcessMode.JoinedLocalSampling
                        ? MultiprogramSchedulerOptions.DefaultEstimatorSampleInterval
                        : MachineDomainOptions.DefaultEstimatorSampleInterval,
                },
            });
            registered = multiprogram.Register(launch.Program);
            scheduler = registered;
            moves = new CrossProcessMoves(multiprogram, CrossProcessMoves.PathFor(launch.CompletionsPath));
            status = CommandActions.OneLine(multiprogram.DomainStatus ?? "no domain");
        }

        try
        {
            string? folder = Path.GetDirectoryName(Path.GetFullPath(launch.CompletionsPath));
            if (folder is not null)
            {
                Directory.CreateDirectory(folder);
            }

            // RFC 4180 like every CSV of the harness (CRLF); times from the child's start.
            bool header = !File.Exists(launch.CompletionsPath);
            await using var completions = new StreamWriter(launch.CompletionsPath, append: true) { NewLine = "\r\n" };
            if (header)
            {
                await completions.WriteLineAsync("pid,mode,program,size,run,start_seconds,end_seconds").ConfigureAwait(false);
            }

            string prefix = string.Create(CultureInfo.InvariantCulture, $"{Environment.ProcessId},{ProcessModes.NameOf(launch.Mode)},{launch.Program},{launch.Size}");
            await completions.FlushAsync(cancellationToken).ConfigureAwait(false);

            // A fresh process's first run pays for JIT compilation and first-touch page faults (at thesis size about
            // twice a warm run: quicksort 5.8 s against 2.9 s), and its second still runs partly on code the tiered
            // compiler has not finished (a fresh child's runs in its first 10 s were 2-4% slower than its later ones,
            // its second run alone 10% slower than its third), while the one-process mode's programs are warm from
            // its earlier runs. So every child runs its program, unrecorded, at least its warm-up runs (2 by default) and for at
            // least its warm-up time before it says it is ready: the modes then differ only in how the CPUs are shared.
            var warming = Stopwatch.StartNew();
            for (int warm = 0; warm < launch.WarmupRuns || warming.ElapsedMilliseconds < launch.WarmupMilliseconds; warm++)
            {
                await program.RunParallelAsync(scheduler, cancellationToken: cancellationToken).ConfigureAwait(false);
            }

            if (launch.Mode == ProcessMode.JoinedGuests && multiprogram is not null)
            {
                guests = new CrossProcessGuests(multiprogram, CrossProcessGuests.PathFor(launch.CompletionsPath)); // counts from here: the warm-up run is not recorded
            }

            await output.WriteLineAsync($"ready {status}").ConfigureAwait(false);
            await output.FlushAsync(cancellationToken).ConfigureAwait(false);
            var clock = Stopwatch.StartNew();
            int run = 0;
            while (await input.ReadLineAsync(cancellationToken).ConfigureAwait(false) is { } line)
            {
                if (line != "run")
                {
                    await output.WriteLineAsync($"error unknown request '{CommandActions.OneLine(line)}'").ConfigureAwait(false);
                    await output.FlushAsync(cancellationToken).ConfigureAwait(false);
                    continue;
                }

                TimeSpan start = clock.Elapsed;
                string reply = "done";
                try
                {
                    await program.RunParallelAsync(scheduler, cancellationToken: cancellationToken).ConfigureAwait(false);
                    await completions.WriteLineAsync(string.Create(
                        CultureInfo.InvariantCulture, $"{prefix},{run++},{start.TotalSeconds:0.######},{clock.Elapsed.TotalSeconds:0.######}")).ConfigureAwait(false);
                    await completions.FlushAsync(cancellationToken).ConfigureAwait(false);
                    moves?.Flush(final: false); // before "done": the parent reads the moves when the test ends
                    guests?.Flush();
                }
                catch (Exception e) when (e is not OperationCanceledException)
                {
                    reply = "error " + CommandActions.OneLine(e);
                }

                await output.WriteLineAsync(reply).ConfigureAwait(false);
                await output.FlushAsync(cancellationToken).ConfigureAwait(false);
            }
        }
        finally
        {
            moves?.Dispose();
            registered?.Dispose();
            multiprogram?.Dispose();
        }
    }
}
