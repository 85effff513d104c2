using System.Collections.Concurrent;
using System.CommandLine;
using System.Diagnostics;
using System.Diagnostics.Tracing;
using System.Globalization;
using DivCon.Schedulers.Multiprogram;

namespace DivCon.Harness.Cli;

/// <summary>
/// The hidden <c>domain-fault-child</c> command: one member of a <c>domain-faults</c> run. It joins the machine domain
/// with a multiprogram scheduler running one busy program (short spinning tasks, always more than its CPUs), and
/// reports on standard output, each line stamped with <see cref="Stopwatch.GetTimestamp"/> (on Linux
/// <c>CLOCK_MONOTONIC</c>, one clock for every process of the machine):
/// <list type="bullet">
/// <item><c>ready &lt;ts&gt; &lt;status&gt;</c> once, when the first scheduler is up;</item>
/// <item><c>arrive &lt;ts&gt; &lt;cpu&gt; &lt;to&gt;</c> when a worker of a CPU starts serving the program (<c>to</c> its name)
/// or leaves it (<c>none</c>): the move applied, not merely decided;</item>
/// <item><c>log &lt;ts&gt; &lt;text&gt;</c> the domain's own log lines (joins, drops, elections);</item>
/// <item><c>grant &lt;decided ts&gt; &lt;pid&gt; &lt;epoch&gt; &lt;cpus&gt; &lt;withheld&gt; &lt;trigger&gt;</c> (only the process hosting the
/// coordinator) each grant sent: to which process, its CPUs (comma-separated, <c>-</c> for none), the CPUs its
/// decision gave but the handover rule withheld (<c>cpu:pid</c> of the process that may still hold each, <c>-</c> for
/// none) and why the decision ran;</item>
/// <item><c>install &lt;received ts&gt; &lt;epoch&gt; &lt;cpus&gt; &lt;changed&gt; &lt;acknowledged ts&gt;</c> each grant this
/// process's client received and acknowledged (<c>changed</c> 0: a renewal);</item>
/// <item><c>apply &lt;ts&gt; &lt;epoch&gt;</c> when the scheduler applied a grant (its decision made; the workers move next);</item>
/// <item><c>joined &lt;ts&gt;</c> and <c>cycle &lt;n&gt; &lt;join ts&gt; &lt;leave ts&gt; &lt;left ts&gt;</c> around each join/leave
/// cycle when cycling.</item>
/// </list>
/// Requests on standard input: <c>hold</c> stops cycling (it stays joined); end of input ends the child.
/// </summary>
public static class DomainFaultChildCommand
{
    /// <summary>The hidden command's name.</summary>
    public const string CommandName = "domain-fault-child";

    /// <summary>The busy program's name.</summary>
    public const string ProgramName = "busy";

    /// <summary>Builds the command (hidden from help).</summary>
    /// <param name="host">The host.</param>
    /// <returns>The command.</returns>
    public static Command Create(CliHost host)
    {
        ArgumentNullException.ThrowIfNull(host);
        var cpus = OptionTable.WholeList("--cpus", "The CPUs of the run.", [0], 0, () => int.MaxValue, null);
        var pin = OptionTable.Flag("--pin", "Pin the workers to --cpus.");
        var domain = OptionTable.Text("--domain-dir", "The machine domain's directory.", null, "folder");
        var holdMin = OptionTable.Whole("--hold-min-ms", "Cycling: the least time joined per cycle (0 with --hold-max-ms 0: never leave).", 0, 0);
        var holdMax = OptionTable.Whole("--hold-max-ms", "Cycling: the most time joined per cycle (0: never leave).", 0, 0);
        var seed = OptionTable.Whole("--seed", "The seed of the cycle lengths.", 1, int.MinValue);
        var command = new Command(CommandName, "Internal: one member of a domain-faults run.") { Hidden = true };
        foreach (Option option in new Option[] { cpus, pin, domain, holdMin, holdMax, seed })
        {
            command.Add(option);
        }

        CommandActions.Set(command, host, (parse, cancellationToken) =>
        {
            string directory = parse.GetValue(domain) ?? throw new ArgumentException("--domain-dir is required.");
            int min = parse.GetValue(holdMin), max = parse.GetValue(holdMax);
            if (max < min)
            {
                throw new ArgumentException($"--hold-max-ms ({max}) is below --hold-min-ms ({min}).");
            }

            var settings = new FaultChildSettings(parse.GetValue(cpus) ?? [0], parse.GetValue(pin), directory, min, max, parse.GetValue(seed));
            return RunAsync(settings, Console.In, host.Output, cancellationToken);
        });
        return command;
    }

    /// <summary>The child's loop: join, report, cycle (or hold) until end of input.</summary>
    /// <param name="settings">What to run.</param>
    /// <param name="input">The parent's requests.</param>
    /// <param name="output">The reports.</param>
    /// <param name="cancellationToken">Cancels the loop.</param>
    /// <returns>A task that completes at end of input.</returns>
    public static async Task RunAsync(FaultChildSettings settings, TextReader input, TextWriter output, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(output);
        using var lines = new LineWriter(output);
        using var moves = new MoveListener(lines);
        using var log = new DomainLogListener(lines);
        Trace.Listeners.Add(log);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        int holding = settings.HoldMaxMilliseconds == 0 ? 1 : 0;
        Task requests = Task.Run(
            async () =>
            {
                while (await input.ReadLineAsync(stop.Token).ConfigureAwait(false) is { } line)
                {
                    if (line == "hold")
                    {
                        Volatile.Write(ref holding, 1);
                    }
                }

                await stop.CancelAsync().ConfigureAwait(false); // end of input: the parent is done (or gone)
            },
            CancellationToken.None);
        try
        {
            var random = new Random(settings.Seed);
            bool first = true;
            for (int cycle = 1; !stop.IsCancellationRequested; cycle++)
            {
                long joinedAt = Stopwatch.GetTimestamp();
                using (var member = new BusyMember(settings))
                {
                    if (first)
                    {
                        lines.Write($"ready {joinedAt} {CommandActions.OneLine(member.Status)}");
                        first = false;
                    }
                    else
                    {
                        lines.Write($"joined {joinedAt}");
                    }

                    int hold = Volatile.Read(ref holding) == 1 ? Timeout.Infinite : random.Next(settings.HoldMinMilliseconds, settings.HoldMaxMilliseconds + 1);
                    try
                    {
                        await Task.Delay(hold, stop.Token).ConfigureAwait(false);
                    }
                    catch (OperationCanceledException)
                    {
                    }

                    if (Volatile.Read(ref holding) == 1 && !stop.IsCancellationRequested)
                    {
                        // Told to hold during this cycle: stay joined until end of input.
                        try
                        {
                            await Task.Delay(Timeout.Infinite, stop.Token).ConfigureAwait(false);
                        }
                        catch (OperationCanceledException)
                        {
                        }
                    }

                    long leaving = Stopwatch.GetTimestamp();
                    member.Dispose();
                    lines.Write($"cycle {cycle} {joinedAt} {leaving} {Stopwatch.GetTimestamp()}");
                }
            }
        }
        finally
        {
            Trace.Listeners.Remove(log);
            await stop.CancelAsync().ConfigureAwait(false);
            try
            {
                await requests.ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
            }
        }
    }

    /// <summary>One join: a multiprogram scheduler in the domain with the busy program spinning on it.</summary>
    private sealed class BusyMember : IDisposable
    {
        private static readonly long SpinTicks = Stopwatch.Frequency / 2000; // 0.5 ms: a task boundary that often
        private readonly MultiprogramScheduler _scheduler;
        private readonly ProgramTaskScheduler _program;
        private readonly CountdownEvent _spinners;
        private volatile bool _stopping;
        private bool _disposed;

        public BusyMember(FaultChildSettings settings)
        {
            _scheduler = new MultiprogramScheduler(new MultiprogramSchedulerOptions
            {
                Pin = settings.Pin,
                CpuIds = settings.Pin ? settings.Cpus : null,
                WorkerCount = settings.Pin ? null : settings.Cpus.Count,
                MachineDomain = new MachineDomainOptions { Name = "faults", Directory = settings.DomainDirectory },
            });
            Status = _scheduler.DomainStatus ?? "no domain";
            _program = _scheduler.Register(ProgramName);
            int count = 2 * settings.Cpus.Count; // more tasks than CPUs: the program always wants every CPU
            _spinners = new CountdownEvent(count);
            for (int i = 0; i < count; i++)
            {
                Spawn();
            }
        }

        public string Status { get; }

        public void Dispose()
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
            _stopping = true;
            _spinners.Wait(TimeSpan.FromSeconds(10)); // each spinner ends at its next task boundary
            _program.Dispose();
            _scheduler.Dispose();
            _spinners.Dispose();
        }

        private void Spawn() => Task.Factory.StartNew(Spin, CancellationToken.None, TaskCreationOptions.None, _program);

        private void Spin()
        {
            long until = Stopwatch.GetTimestamp() + SpinTicks;
            while (Stopwatch.GetTimestamp() < until)
            {
                Thread.SpinWait(20);
            }

            if (_stopping)
            {
                _spinners.Signal();
                return;
            }

            Spawn();
        }
    }

    /// <summary>Writes whole lines from any thread without blocking it on the pipe (a writer thread flushes them).</summary>
    private sealed class LineWriter : IDisposable
    {
        private readonly BlockingCollection<string> _queue = new();
        private readonly Thread _thread;

        public LineWriter(TextWriter output)
        {
            _thread = new Thread(() =>
            {
                foreach (string line in _queue.GetConsumingEnumerable())
                {
                    try
                    {
                        output.WriteLine(line);
                        if (_queue.Count == 0)
                        {
                            output.Flush();
                        }
                    }
                    catch (IOException)
                    {
                        return; // the parent is gone
                    }
                }

                try
                {
                    output.Flush();
                }
                catch (IOException)
                {
                }
            })
            { IsBackground = true, Name = "domain-fault-child output" };
            _thread.Start();
        }

        public void Write(FormattableString line)
        {
            try
            {
                _queue.Add(FormattableString.Invariant(line));
            }
            catch (InvalidOperationException)
            {
                // Completed: shutting down.
            }
        }

        public void Dispose()
        {
            _queue.CompleteAdding();
            _thread.Join(TimeSpan.FromSeconds(5));
            _queue.Dispose();
        }
    }

    /// <summary>The scheduler's move arrivals, stamped when the worker reports them (the event is written on its thread).</summary>
    private sealed class MoveListener(LineWriter lines) : EventListener
    {
        private const string MachineDomainPolicy = MultiprogramScheduler.DomainPolicyName; // a decision that applied a grant
        private const string GrantEpoch = "grant epoch "; // how such a decision's explanation starts

        private static string Dash(string list) => list.Length == 0 ? "-" : list;

        protected override void OnEventSourceCreated(EventSource eventSource)
        {
            if (eventSource.Name == MultiprogramEventSource.SourceName)
            {
                EnableEvents(
                    eventSource,
                    EventLevel.Verbose,
                    MultiprogramEventSource.Keywords.Moves | MultiprogramEventSource.Keywords.Domain | MultiprogramEventSource.Keywords.Decisions);
            }
        }

        protected override void OnEventWritten(EventWrittenEventArgs eventData)
        {
            long now = Stopwatch.GetTimestamp();
            switch (eventData.EventId, eventData.Payload)
            {
                case (MultiprogramEventSource.MoveArrivedId, [int cpu, string to, ..]):
                    lines.Write($"arrive {now} {cpu} {(to == "none" ? "none" : ProgramName)}");
                    break;
                case (MultiprogramEventSource.DomainGrantSentId, [int pid, long epoch, string cpus, string withheld, long decidedAt, string trigger]):
                    lines.Write($"grant {decidedAt} {pid} {epoch} {Dash(cpus)} {Dash(withheld)} {trigger}");
                    break;
                case (MultiprogramEventSource.DomainGrantInstalledId, [long epoch, string cpus, bool changed, long receivedAt, long acknowledgedAt]):
                    lines.Write($"install {receivedAt} {epoch} {Dash(cpus)} {(changed ? 1 : 0)} {acknowledgedAt}");
                    break;
                case (MultiprogramEventSource.DecisionId, [_, string policy, _, _, string explanation])
                    when policy == MachineDomainPolicy && explanation.StartsWith(GrantEpoch, StringComparison.Ordinal):
                    int end = explanation.IndexOf(':', GrantEpoch.Length);
                    if (end > 0 && long.TryParse(explanation.AsSpan(GrantEpoch.Length, end - GrantEpoch.Length), NumberStyles.None, CultureInfo.InvariantCulture, out long applied))
                    {
                        lines.Write($"apply {now} {applied}");
                    }

                    break;
            }
        }
    }

    /// <summary>The domain's log lines (the arbiter writes them to <see cref="Trace"/>), one line each.</summary>
    private sealed class DomainLogListener(LineWriter lines) : TraceListener
    {
        public override void Write(string? message)
        {
        }

        public override void WriteLine(string? message)
        {
            if (message is not null && message.StartsWith("DivCon ", StringComparison.Ordinal))
            {
                lines.Write($"log {Stopwatch.GetTimestamp()} {CommandActions.OneLine(message)}");
            }
        }
    }
}

/// <summary>What a <c>domain-fault-child</c> runs.</summary>
/// <param name="Cpus">The CPUs of the run.</param>
/// <param name="Pin">Whether the workers are pinned to them.</param>
/// <param name="DomainDirectory">The machine domain's directory.</param>
/// <param name="HoldMinMilliseconds">Cycling: the least time joined per cycle.</param>
/// <param name="HoldMaxMilliseconds">Cycling: the most time joined per cycle; 0: join once and hold.</param>
/// <param name="Seed">The seed of the cycle lengths.</param>
public sealed record FaultChildSettings(IReadOnlyList<int> Cpus, bool Pin, string DomainDirectory, int HoldMinMilliseconds, int HoldMaxMilliseconds, int Seed)
{
    /// <summary>The child's command line after the harness's own path.</summary>
    /// <returns>The arguments.</returns>
    public IReadOnlyList<string> Arguments()
    {
        var args = new List<string>
        {
            DomainFaultChildCommand.CommandName,
            "--cpus", string.Join(',', Cpus.Select(c => c.ToString(CultureInfo.InvariantCulture))),
            "--domain-dir", DomainDirectory,
            "--hold-min-ms", HoldMinMilliseconds.ToString(CultureInfo.InvariantCulture),
            "--hold-max-ms", HoldMaxMilliseconds.ToString(CultureInfo.InvariantCulture),
            "--seed", Seed.ToString(CultureInfo.InvariantCulture),
        };
        if (Pin)
        {
            args.Add("--pin");
        }

        return args;
    }
}
