using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using DivCon.Harness.Cli;
using DivCon.Harness.Measurement;
using DivCon.Harness.Workload;

namespace DivCon.Harness.Experiments;

/// <summary>How a <c>domain-faults</c> run goes.</summary>
/// <param name="Cpus">The CPUs every child runs on.</param>
/// <param name="Pin">Whether the children pin their workers.</param>
/// <param name="Children">Processes joined at a time (at least 2).</param>
/// <param name="Kills">Kills measured in the reassignment phase (0: skip it).</param>
/// <param name="Cycles">Join/leave cycles of the churn phase (0: skip it); kills count as cycles.</param>
/// <param name="KillEvery">The churn phase kills a random child this often.</param>
/// <param name="HoldMinMilliseconds">Churn: the least time a child stays joined per cycle.</param>
/// <param name="HoldMaxMilliseconds">Churn: the most.</param>
/// <param name="DecisionInterval">The domain's decision interval (the unit of the criterion).</param>
/// <param name="BoundIntervals">How long, in decision intervals, a kill's CPUs may take to serve others before the kill counts as not reassigned,
/// and the settling before a kill and at the end.</param>
/// <param name="ChildTimeout">A child that starts no faster, or completes no cycle for this long, is reported hung.</param>
/// <param name="Seed">The seed of the victims and cycle lengths.</param>
public sealed record DomainFaultOptions(
    IReadOnlyList<int> Cpus, bool Pin, int Children, int Kills, int Cycles, TimeSpan KillEvery, int HoldMinMilliseconds, int HoldMaxMilliseconds,
    TimeSpan DecisionInterval, int BoundIntervals, TimeSpan ChildTimeout, int Seed)
{
    /// <summary>Where every line of every child goes, prefixed with its pid (grants, installs, arrivals: the raw
    /// material of the kills' handover columns); null: nowhere.</summary>
    public string? LinesPath { get; init; }
}

/// <summary>One kill.</summary>
/// <param name="Phase"><c>reassign</c> or <c>churn</c>.</param>
/// <param name="Number">The kill's number in its phase.</param>
/// <param name="Seconds">When, from the start of the run.</param>
/// <param name="Victim">The killed process.</param>
/// <param name="Coordinator">Whether it hosted the coordinator.</param>
/// <param name="Cpus">The CPUs its workers served.</param>
/// <param name="Settled">Whether the children partitioned the CPUs when it was killed (grants applied).</param>
/// <param name="LatencyMs">From the kill until another process's worker served the last of its CPUs; null: not within the bound.</param>
/// <param name="Dropped">Whether the coordinator dropped the victim (null: not applicable: it was not joined, or was the coordinator, or the coordinator went meanwhile).</param>
public sealed record KillRecord(string Phase, int Number, double Seconds, int Victim, bool Coordinator, IReadOnlyList<int> Cpus, bool Settled, double? LatencyMs, bool? Dropped)
{
    /// <summary>From the kill until the coordinator logged the victim's drop (the first step of the reassignment), or null.</summary>
    public double? DropMs { get; init; }

    /// <summary>Why the coordinator dropped the victim, as it logged it, or null.</summary>
    public string? DropReason { get; init; }

    /// <summary>How each of <see cref="Cpus"/> reached its next holder (reassignment phase; empty otherwise).</summary>
    public IReadOnlyList<CpuHandover> Handovers { get; init; } = [];
}

/// <summary>What a <c>domain-faults</c> run found.</summary>
/// <param name="Kills">Every kill, in order.</param>
/// <param name="Reassignment">The reassignment phase's latencies (kills of a process that served CPUs).</param>
/// <param name="Cycles">Join/leave cycles completed by leaving.</param>
/// <param name="ChurnKills">Kills of the churn phase (each also a cycle).</param>
/// <param name="LongestLeaveMs">The longest leave of a cycle (its scheduler's disposal).</param>
/// <param name="CoordinatorChanges">How often the coordinator's host changed.</param>
/// <param name="Failures">Hangs, stranded CPUs, undropped dead processes: one line each.</param>
public sealed record DomainFaultResult(
    IReadOnlyList<KillRecord> Kills, ReassignmentSummary? Reassignment, long Cycles, int ChurnKills, double LongestLeaveMs, int CoordinatorChanges, IReadOnlyList<string> Failures);

/// <summary>
/// Runs the <c>domain-faults</c> experiment: joined child processes (<c>domain-fault-child</c>), killed with SIGKILL and
/// replaced. Phase one measures, per kill, the time until the CPUs the victim served serve another process; phase two
/// churns join/leave cycles with random kills and checks that no CPU stays with a dead process and nothing hangs.
/// Every wait is bounded; the children's lines drive a <see cref="DomainFaultTracker"/>.
/// </summary>
public sealed class DomainFaultRun
{
    private readonly DomainFaultOptions _options;
    private readonly string _domainDirectory;
    private readonly IProgressSink _progress;
    private readonly DomainFaultTracker _tracker = new();
    private readonly List<FaultChild> _children = [];
    private readonly ConcurrentQueue<string> _failures = new();
    private readonly List<KillRecord> _kills = [];
    private readonly List<ReassignmentWatch> _dropChecks = [];
    private readonly Dictionary<int, ReassignmentWatch> _timed = []; // reassignment kills by their index in _kills
    private readonly long _start = Stopwatch.GetTimestamp();
    private readonly Random _random;
    private readonly TextWriter? _lines;
    private int _seed;

    /// <summary>Prepares a run.</summary>
    /// <param name="options">The options.</param>
    /// <param name="domainDirectory">A private directory for the domain (0700).</param>
    /// <param name="progress">Progress lines.</param>
    public DomainFaultRun(DomainFaultOptions options, string domainDirectory, IProgressSink progress)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(domainDirectory);
        ArgumentNullException.ThrowIfNull(progress);
        if (options.Children < 2)
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.Children, "At least 2 children are needed (a kill's CPUs must have somewhere to go).");
        }

        _options = options;
        _domainDirectory = domainDirectory;
        _progress = progress;
        _random = new Random(options.Seed);
        _seed = options.Seed;
        _lines = options.LinesPath is { } path ? new StreamWriter(path) : null;
    }

    private long Bound => Ticks(_options.DecisionInterval * _options.BoundIntervals);

    /// <summary>Runs both phases.</summary>
    /// <param name="cancellationToken">Cancels the run (the children are killed).</param>
    /// <returns>The result.</returns>
    public async Task<DomainFaultResult> RunAsync(CancellationToken cancellationToken)
    {
        try
        {
            if (_options.Kills > 0)
            {
                await ReassignAsync(cancellationToken).ConfigureAwait(false);
                await StopChildrenAsync().ConfigureAwait(false);
            }

            if (_options.Cycles > 0)
            {
                await ChurnAsync(cancellationToken).ConfigureAwait(false);
            }
        }
        finally
        {
            await StopChildrenAsync().ConfigureAwait(false);
            if (_lines is not null)
            {
                await _lines.DisposeAsync().ConfigureAwait(false);
            }
        }

        CheckDrops(force: true);
        foreach (var (index, watch) in _timed)
        {
            // At the end: the coordinator's grant lines come through another child's pipe than the arrivals.
            // The latency again from every line read by now: one stamped before the kill but read after it (a move under
            // way when the victim died) counts from its own timestamp, not from when the parent read it.
            _kills[index] = _kills[index] with
            {
                Handovers = _tracker.Explain(watch),
                LatencyMs = watch.LatencyTicks is { } ticks ? ticks * 1000.0 / Stopwatch.Frequency : _kills[index].LatencyMs,
            };
        }

        KillRecord[] reassign = [.. _kills.Where(k => k.Phase == "reassign" && k.Cpus.Count > 0)];
        return new DomainFaultResult(
            _kills,
            reassign.Length == 0 ? null : ReassignmentSummary.Compute(reassign.Select(k => k.LatencyMs).ToArray(), _options.DecisionInterval),
            _tracker.Cycles,
            _kills.Count(k => k.Phase == "churn"),
            _tracker.LongestLeaveTicks * 1000.0 / Stopwatch.Frequency,
            _tracker.CoordinatorChanges,
            [.. _failures]);
    }

    private static long Ticks(TimeSpan span) => (long)(span.TotalSeconds * Stopwatch.Frequency);

    private double Seconds(long at) => (at - _start) / (double)Stopwatch.Frequency;

    private async Task ReassignAsync(CancellationToken cancellationToken)
    {
        const string Phase = "reassign";
        _progress.BeginPhase(Phase, _options.Kills);
        await StartChildrenAsync(holdMax: 0, cancellationToken).ConfigureAwait(false);
        for (int kill = 1; kill <= _options.Kills; kill++)
        {
            bool settled = await WaitUntilAsync(() => _tracker.IsPartition(_options.Cpus), Bound, cancellationToken).ConfigureAwait(false);
            IReadOnlyList<int> holders = _tracker.LiveHolders();
            if (holders.Count == 0)
            {
                _failures.Enqueue($"reassign kill {kill}: no live process served any CPU within {_options.BoundIntervals} decision intervals (CPUs stranded?)");
                await ReplaceAsync(null, cancellationToken).ConfigureAwait(false);
                continue;
            }

            int chosen = holders[_random.Next(holders.Count)];
            FaultChild victim = _children.Single(c => c.Id == chosen);
            long at = Stopwatch.GetTimestamp();
            ReassignmentWatch watch = _tracker.BeginKill(victim.Id, at);
            victim.Kill();
            bool done = await WaitUntilAsync(() => watch.Done, Bound, cancellationToken).ConfigureAwait(false);
            double? latency = done ? watch.LatencyTicks!.Value * 1000.0 / Stopwatch.Frequency : null;
            if (!done)
            {
                _failures.Enqueue(FormattableString.Invariant(
                    $"reassign kill {kill}: CPUs [{string.Join(", ", watch.Pending)}] of killed pid {victim.Id} served no other process within {_options.BoundIntervals} decision intervals"));
            }

            _dropChecks.Add(watch);
            _timed[_kills.Count] = watch;
            _kills.Add(new KillRecord(Phase, kill, Seconds(at), victim.Id, watch.WasCoordinator, watch.Cpus, settled, latency, null));
            _progress.Report(Phase, kill, latency is { } ms ? FormattableString.Invariant($"kill {kill}: pid {victim.Id}{(watch.WasCoordinator ? " (coordinator)" : string.Empty)}, {ms:0.0} ms") : $"kill {kill}: not reassigned");
            await ReplaceAsync(victim, cancellationToken).ConfigureAwait(false);
            CheckDrops(force: false);
        }
    }

    private async Task ChurnAsync(CancellationToken cancellationToken)
    {
        const string Phase = "churn";
        _progress.BeginPhase(Phase, _options.Cycles);
        long killEvery = Ticks(_options.KillEvery);
        long nextKill = Stopwatch.GetTimestamp() + killEvery; // from the first start: the children cycle while the others start
        await StartChildrenAsync(_options.HoldMaxMilliseconds, cancellationToken).ConfigureAwait(false);
        long silence = Ticks(_options.ChildTimeout) + Ticks(TimeSpan.FromMilliseconds(_options.HoldMaxMilliseconds));
        int kills = 0;
        long progress = -1, progressAt = Stopwatch.GetTimestamp();
        while (_tracker.Cycles + kills < _options.Cycles)
        {
            Task changed = _tracker.Changed;
            long now = Stopwatch.GetTimestamp();
            if (_tracker.Cycles != progress)
            {
                progress = _tracker.Cycles;
                progressAt = now;
            }
            else if (now - progressAt > 2 * silence)
            {
                // Replacing hung children did not help: stop rather than wait for ever.
                _failures.Enqueue(FormattableString.Invariant($"churn: no join/leave cycle completed in {2 * silence / (double)Stopwatch.Frequency:0.#} s; stopped after {progress} cycles"));
                return;
            }

            if (now >= nextKill)
            {
                FaultChild victim = _children[_random.Next(_children.Count)];
                ReassignmentWatch watch = _tracker.BeginKill(victim.Id, now);
                victim.Kill();
                kills++;
                _dropChecks.Add(watch);
                _kills.Add(new KillRecord(Phase, kills, Seconds(now), victim.Id, watch.WasCoordinator, watch.Cpus, false, null, null));
                await ReplaceAsync(victim, cancellationToken).ConfigureAwait(false);
                nextKill = Stopwatch.GetTimestamp() + killEvery;
                continue;
            }

            foreach (int pid in _tracker.Silent(now, silence))
            {
                FaultChild hung = _children.Single(c => c.Id == pid);
                _failures.Enqueue(FormattableString.Invariant(
                    $"churn: pid {pid} completed no join/leave cycle within {silence / (double)Stopwatch.Frequency:0.#} s (hung; killed and replaced): {hung.LastErrors}"));
                _tracker.Gone(pid);
                hung.Kill();
                await ReplaceAsync(hung, cancellationToken).ConfigureAwait(false);
            }

            CheckDrops(force: false);
            _progress.Report(Phase, Math.Min(_options.Cycles, _tracker.Cycles + kills), null);
            long wait = Math.Min(nextKill - now, Ticks(TimeSpan.FromMilliseconds(100)));
            await Task.WhenAny(changed, Task.Delay(TimeSpan.FromSeconds(Math.Max(0.001, wait / (double)Stopwatch.Frequency)), cancellationToken)).ConfigureAwait(false);
            cancellationToken.ThrowIfCancellationRequested();
        }

        // The end: every child stays joined; within the bound the live children must serve every CPU, one each.
        foreach (FaultChild child in _children)
        {
            await child.SendAsync("hold").ConfigureAwait(false);
        }

        if (!await WaitUntilAsync(() => _tracker.IsPartition(_options.Cpus), 2 * Bound, cancellationToken).ConfigureAwait(false))
        {
            IReadOnlyDictionary<int, int[]> holders = _tracker.Holders(_options.Cpus);
            _failures.Enqueue(FormattableString.Invariant(
                $"churn end: the live processes did not serve every CPU once within {2 * _options.BoundIntervals} decision intervals: {string.Join("; ", holders.Select(h => $"cpu {h.Key}: [{string.Join(", ", h.Value)}]"))}"));
        }
    }

    /// <summary>Each killed joined process must be dropped by the coordinator within the bound, unless the coordinator went meanwhile.</summary>
    private void CheckDrops(bool force)
    {
        long now = Stopwatch.GetTimestamp();
        foreach (ReassignmentWatch watch in _dropChecks.ToArray())
        {
            bool due = now - watch.KilledAt > Bound;
            if (!due && !force && _tracker.DroppedAt(watch.Victim) is null)
            {
                continue;
            }

            _dropChecks.Remove(watch);
            bool? dropped = !watch.WasJoined || watch.WasCoordinator ? null
                : _tracker.DroppedAt(watch.Victim) is not null ? true
                : _tracker.CoordinatorChanges != watch.CoordinatorChangesAtKill ? null
                : false;
            int index = _kills.FindIndex(k => k.Victim == watch.Victim);
            if (index >= 0)
            {
                long? droppedAt = _tracker.DroppedAt(watch.Victim);
                _kills[index] = _kills[index] with
                {
                    Dropped = dropped,
                    DropMs = droppedAt is { } d && dropped == true ? (d - watch.KilledAt) * 1000.0 / Stopwatch.Frequency : null,
                    DropReason = dropped == true ? _tracker.DropReason(watch.Victim) : null,
                };
            }

            if (dropped == false)
            {
                _failures.Enqueue(FormattableString.Invariant($"killed pid {watch.Victim} was joined but the coordinator did not drop it within {_options.BoundIntervals} decision intervals"));
            }
        }
    }

    private async Task StartChildrenAsync(int holdMax, CancellationToken cancellationToken)
    {
        // Together: under load a start takes seconds, and churning children cycle while the others start.
        _children.AddRange(await Task.WhenAll(Enumerable.Range(0, _options.Children).Select(_ => StartAsync(holdMax, cancellationToken))).ConfigureAwait(false));
    }

    private async Task ReplaceAsync(FaultChild? victim, CancellationToken cancellationToken)
    {
        int holdMax = _options.HoldMaxMilliseconds;
        if (victim is not null)
        {
            holdMax = victim.HoldMax;
            _children.Remove(victim);
            await victim.DisposeAsync().ConfigureAwait(false);
        }

        _children.Add(await StartAsync(holdMax, cancellationToken).ConfigureAwait(false));
    }

    private async Task<FaultChild> StartAsync(int holdMax, CancellationToken cancellationToken)
    {
        var settings = new FaultChildSettings(_options.Cpus, _options.Pin, _domainDirectory, holdMax == 0 ? 0 : _options.HoldMinMilliseconds, holdMax, ++_seed);
        return await FaultChild.StartAsync(settings, _tracker, _lines, _options.ChildTimeout, cancellationToken).ConfigureAwait(false);
    }

    private async Task StopChildrenAsync()
    {
        FaultChild[] children = [.. _children];
        _children.Clear();
        foreach (FaultChild child in children)
        {
            _tracker.Gone(child.Id);
        }

        await Task.WhenAll(children.Select(c => c.DisposeAsync().AsTask())).ConfigureAwait(false);
    }

    private async Task<bool> WaitUntilAsync(Func<bool> condition, long ticks, CancellationToken cancellationToken)
    {
        long deadline = Stopwatch.GetTimestamp() + ticks;
        while (true)
        {
            Task changed = _tracker.Changed;
            if (condition())
            {
                return true;
            }

            long left = deadline - Stopwatch.GetTimestamp();
            if (left <= 0)
            {
                return false;
            }

            await Task.WhenAny(changed, Task.Delay(TimeSpan.FromSeconds(left / (double)Stopwatch.Frequency), cancellationToken)).ConfigureAwait(false);
            cancellationToken.ThrowIfCancellationRequested();
        }
    }

    /// <summary>One <c>domain-fault-child</c> process: its lines go to the tracker.</summary>
    private sealed class FaultChild : IAsyncDisposable
    {
        private static readonly TimeSpan ExitGrace = TimeSpan.FromSeconds(5);
        private readonly Process _process;
        private readonly ConcurrentQueue<string> _errors = new();
        private readonly TaskCompletionSource<string?> _ready = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private Task _reader = Task.CompletedTask;

        private FaultChild(Process process, int holdMax)
        {
            _process = process;
            HoldMax = holdMax;
        }

        public int Id => _process.Id;

        public int HoldMax { get; }

        public string LastErrors => _errors.IsEmpty ? "no error output" : string.Join(" | ", _errors);

        public static async Task<FaultChild> StartAsync(FaultChildSettings settings, DomainFaultTracker tracker, TextWriter? lines, TimeSpan timeout, CancellationToken cancellationToken)
        {
            (string file, IReadOnlyList<string> prefix) = ChildLaunch.Self();
            var info = new ProcessStartInfo(file)
            {
                RedirectStandardInput = true,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            foreach (string arg in prefix.Concat(settings.Arguments()))
            {
                info.ArgumentList.Add(arg);
            }

            info.Environment.Remove(Schedulers.Multiprogram.MachineDomainOptions.EnvironmentVariable);
            var process = Process.Start(info) ?? throw new InvalidOperationException($"Could not start {file}.");
            var child = new FaultChild(process, settings.HoldMaxMilliseconds);
            tracker.Add(process.Id, Stopwatch.GetTimestamp());
            process.ErrorDataReceived += (_, e) => child.KeepError(e.Data);
            process.BeginErrorReadLine();
            child._reader = Task.Run(() => child.ReadAsync(tracker, lines), CancellationToken.None);
            string? ready;
            try
            {
                ready = await child._ready.Task.WaitAsync(timeout, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception e) when (e is TimeoutException or OperationCanceledException)
            {
                tracker.Gone(process.Id);
                child.Kill();
                await child.DisposeAsync().ConfigureAwait(false);
                if (e is OperationCanceledException)
                {
                    throw;
                }

                throw new TimeoutException(FormattableString.Invariant(
                    $"A domain-fault child (pid {process.Id}) was not ready within {timeout.TotalSeconds:0.#} s (hung at start): {child.LastErrors}"), e);
            }

            if (ready is null)
            {
                await child.DisposeAsync().ConfigureAwait(false);
                throw new InvalidOperationException($"A domain-fault child (pid {child.Id}) ended before it was ready: {child.LastErrors}");
            }

            return child;
        }

        public void Kill()
        {
            try
            {
                _process.Kill(entireProcessTree: false);
            }
            catch (InvalidOperationException)
            {
                // Already exited.
            }
        }

        public async Task SendAsync(string line)
        {
            try
            {
                await _process.StandardInput.WriteLineAsync(line).ConfigureAwait(false);
                await _process.StandardInput.FlushAsync().ConfigureAwait(false);
            }
            catch (IOException)
            {
                // Gone: the tracker learns it from its output.
            }
        }

        public async ValueTask DisposeAsync()
        {
            try
            {
                _process.StandardInput.Close();
            }
            catch (IOException)
            {
            }

            using (var grace = new CancellationTokenSource(ExitGrace))
            {
                try
                {
                    await _process.WaitForExitAsync(grace.Token).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    Kill();
                }
            }

            try
            {
                await _reader.WaitAsync(ExitGrace).ConfigureAwait(false);
            }
            catch (TimeoutException)
            {
            }

            _process.Dispose();
        }

        private async Task ReadAsync(DomainFaultTracker tracker, TextWriter? lines)
        {
            try
            {
                while (await _process.StandardOutput.ReadLineAsync().ConfigureAwait(false) is { } line)
                {
                    if (lines is not null)
                    {
                        lock (lines)
                        {
                            lines.WriteLine(FormattableString.Invariant($"{_process.Id} {line}"));
                        }
                    }

                    tracker.OnLine(_process.Id, line, Stopwatch.GetTimestamp());
                    if (line.StartsWith("ready ", StringComparison.Ordinal))
                    {
                        _ready.TrySetResult(line);
                    }
                }
            }
            catch (IOException)
            {
            }
            finally
            {
                tracker.Gone(_process.Id);
                _ready.TrySetResult(null);
            }
        }

        private void KeepError(string? line)
        {
            if (line is null)
            {
                return;
            }

            _errors.Enqueue(line);
            while (_errors.Count > 10 && _errors.TryDequeue(out _))
            {
            }
        }
    }
}

/// <summary>
/// The reassignment latencies of kills, as the move latencies are reported (nearest-rank percentiles,
/// <see cref="MoveLatencySummary"/>), also in decision intervals; a kill not reassigned within the bound counts as
/// above every percentile (the criterion then fails).
/// </summary>
/// <param name="Latencies">The kills' percentiles over the reassigned ones.</param>
/// <param name="NotReassigned">Kills whose CPUs served nobody else within the bound.</param>
/// <param name="DecisionIntervalMs">The unit of the criterion.</param>
public sealed record ReassignmentSummary(MoveLatencySummary Latencies, int NotReassigned, double DecisionIntervalMs)
{
    /// <summary>p99 within two decision intervals, every kill reassigned.</summary>
    public bool MeetsCriterion => NotReassigned == 0 && Latencies.Arrived > 0 && Latencies.P99Ms <= 2 * DecisionIntervalMs;

    /// <summary>Summarises kills.</summary>
    /// <param name="latenciesMs">One per kill; null: not reassigned.</param>
    /// <param name="decisionInterval">The domain's decision interval.</param>
    /// <returns>The summary.</returns>
    public static ReassignmentSummary Compute(IReadOnlyList<double?> latenciesMs, TimeSpan decisionInterval)
    {
        ArgumentNullException.ThrowIfNull(latenciesMs);
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(decisionInterval, TimeSpan.Zero);
        var summary = MoveLatencySummary.Compute("kill reassignment", [.. latenciesMs.Select(l => l is { } ms ? TimeSpan.FromMilliseconds(ms) : (TimeSpan?)null)]);
        return new ReassignmentSummary(summary, latenciesMs.Count(l => l is null), decisionInterval.TotalMilliseconds);
    }

    /// <summary>A value in decision intervals.</summary>
    /// <param name="ms">Milliseconds.</param>
    /// <returns>Intervals.</returns>
    public double Intervals(double ms) => ms / DecisionIntervalMs;

    /// <summary>The summary as Markdown lines.</summary>
    /// <returns>The lines.</returns>
    public IEnumerable<string> Markdown()
    {
        MoveLatencySummary l = Latencies;
        yield return "| kills | reassigned | p50 ms | p95 ms | p99 ms | max ms | p99 (intervals) | criterion: p99 <= 2 intervals, all reassigned |";
        yield return "|---|---|---|---|---|---|---|---|";
        yield return string.Create(CultureInfo.InvariantCulture,
            $"| {l.Moves} | {l.Arrived} | {l.P50Ms:0.0} | {l.P95Ms:0.0} | {l.P99Ms:0.0} | {l.MaxMs:0.0} | {Intervals(l.P99Ms):0.00} | {(MeetsCriterion ? "met" : "NOT met")} |");
    }
}
