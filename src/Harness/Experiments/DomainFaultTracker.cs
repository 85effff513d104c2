using System.Globalization;

namespace DivCon.Harness.Experiments;

/// <summary>
/// What the parent of a <c>domain-faults</c> run knows of its children, from their report lines (see
/// <c>DomainFaultChildCommand</c>): which CPUs each live child's workers serve now (applied moves, not decisions),
/// who hosts the coordinator, which killed processes the coordinator has dropped, the join/leave cycles; and the
/// reassignment watch of each kill. Pure state over timestamped lines (no clock of its own), thread-safe;
/// <see cref="Changed"/> completes at the next line so that waiters need no polling.
/// </summary>
public sealed class DomainFaultTracker
{
    private readonly Lock _gate = new();
    private readonly Dictionary<int, Member> _members = [];
    private readonly List<ReassignmentWatch> _watches = [];
    private readonly Dictionary<int, long> _dropped = [];
    private readonly Dictionary<int, string> _dropReasons = [];
    private readonly List<GrantLine> _grants = [];
    private TaskCompletionSource _changed = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _coordinator;
    private int _coordinatorChanges;
    private long _cycles;
    private long _longestLeaveTicks;

    /// <summary>Completes at the next change (a line, a kill, a new child).</summary>
    public Task Changed
    {
        get
        {
            lock (_gate)
            {
                return _changed.Task;
            }
        }
    }

    /// <summary>The pid hosting the coordinator as far as the logs tell, or 0.</summary>
    public int CoordinatorPid
    {
        get
        {
            lock (_gate)
            {
                return _coordinator;
            }
        }
    }

    /// <summary>How often the coordinator's host changed or went (an election, a kill of the host, its leave).</summary>
    public int CoordinatorChanges
    {
        get
        {
            lock (_gate)
            {
                return _coordinatorChanges;
            }
        }
    }

    /// <summary>Join/leave cycles the children completed by leaving (kills not included).</summary>
    public long Cycles
    {
        get
        {
            lock (_gate)
            {
                return _cycles;
            }
        }
    }

    /// <summary>The longest leave (scheduler disposal, the domain left) of a cycle, in timestamp ticks.</summary>
    public long LongestLeaveTicks
    {
        get
        {
            lock (_gate)
            {
                return _longestLeaveTicks;
            }
        }
    }

    /// <summary>A child started (live from now on).</summary>
    /// <param name="pid">Its process id.</param>
    /// <param name="now">The parent's timestamp.</param>
    public void Add(int pid, long now)
    {
        lock (_gate)
        {
            _members[pid] = new Member { LastActivity = now, StartedAt = now };
            Pulse();
        }
    }

    /// <summary>A child's report line (lines of dead children are ignored: a killed process serves nothing).</summary>
    /// <param name="pid">The child.</param>
    /// <param name="line">The line.</param>
    /// <param name="now">The parent's timestamp when it was read.</param>
    /// <returns>Whether the line was understood.</returns>
    public bool OnLine(int pid, string line, long now)
    {
        ArgumentNullException.ThrowIfNull(line);
        string[] parts = line.Split(' ', 3);
        lock (_gate)
        {
            if (!_members.TryGetValue(pid, out Member? member))
            {
                return false;
            }

            if (!member.Alive)
            {
                // A dead child's lines still in the pipe: only its moves stamped before its kill matter (a CPU it had
                // already given up was not its own at the kill).
                if (parts is ["arrive", var ts, var rest] && Long(ts, out long at) && rest.Split(' ') is [var c, var to]
                    && int.TryParse(c, CultureInfo.InvariantCulture, out int cpu))
                {
                    foreach (ReassignmentWatch watch in _watches)
                    {
                        watch.Moved(pid, cpu, at, to != "none");
                    }

                    Pulse();
                }

                return false;
            }

            bool known = true;
            switch (parts)
            {
                case ["arrive", var ts, var rest] when Long(ts, out long at) && rest.Split(' ') is [var c, var to] && int.TryParse(c, CultureInfo.InvariantCulture, out int cpu):
                    if (to == "none")
                    {
                        member.Held.Remove(cpu);
                    }
                    else
                    {
                        member.Held[cpu] = at;
                    }

                    // Every move, before the kill too: a line stamped before the kill may be read after it.
                    foreach (ReassignmentWatch watch in _watches)
                    {
                        watch.Moved(pid, cpu, at, to != "none");
                    }

                    break;
                case ["log", var ts, var text] when Long(ts, out long at):
                    OnLog(pid, member, text, at);
                    break;
                case ["grant", var ts, var rest] when Long(ts, out long decided) && rest.Split(' ') is [var to, var e, var cpus, var withheld, var trigger]
                    && int.TryParse(to, CultureInfo.InvariantCulture, out int receiver) && Long(e, out long epoch):
                    _grants.Add(new GrantLine(receiver, epoch, Cpus(cpus), [.. Cpus(withheld, pairs: true)], decided, trigger));
                    break;
                case ["install", var ts, var rest] when Long(ts, out long received) && rest.Split(' ') is [var e, var cpus, var changed, var ack]
                    && Long(e, out long epoch) && Long(ack, out long acked):
                    member.Installs[epoch] = new InstallLine(Cpus(cpus), changed == "1", received, acked);
                    break;
                case ["apply", var ts, var e] when Long(ts, out long at) && Long(e, out long epoch):
                    member.Applied.TryAdd(epoch, at);
                    break;
                case ["ready" or "joined", var ts, ..]:
                    member.LastActivity = now;
                    // The line is stamped just before its scheduler was created, and written once it exists: the new
                    // scheduler's first arrivals (a join and a grant, or a fallback, inside its constructor) can come
                    // through the pipe before it. Only the moves stamped earlier belong to a scheduler that is gone.
                    if (Long(ts, out long created))
                    {
                        foreach (int cpu in member.Held.Where(h => h.Value < created).Select(h => h.Key).ToArray())
                        {
                            member.Held.Remove(cpu);
                        }
                    }
                    else
                    {
                        member.Held.Clear();
                    }

                    break;
                case ["cycle", _, var times] when times.Split(' ') is [_, var leave, var left] && Long(leave, out long l) && Long(left, out long t):
                    member.LastActivity = now;
                    member.Held.Clear(); // the scheduler is gone: its workers serve nothing
                    member.Joined = false;
                    _cycles++;
                    _longestLeaveTicks = Math.Max(_longestLeaveTicks, t - l);
                    if (_coordinator == pid)
                    {
                        SetCoordinator(0); // its coordinator stopped with its client
                    }

                    break;
                default:
                    known = false;
                    break;
            }

            Pulse();
            return known;
        }
    }

    /// <summary>Starts a kill: the victim is dead from now on, and the watch waits for every CPU it served to serve another live child.</summary>
    /// <param name="victim">The child about to be killed.</param>
    /// <param name="now">The timestamp just before the kill.</param>
    /// <returns>The watch (already done when the victim served nothing, or another child already serves its CPUs).</returns>
    public ReassignmentWatch BeginKill(int victim, long now)
    {
        lock (_gate)
        {
            Member member = _members[victim];
            member.Alive = false;
            bool coordinator = _coordinator == victim;
            if (coordinator)
            {
                SetCoordinator(0);
            }

            var watch = new ReassignmentWatch(victim, now, [.. member.Held.Keys.Order()], coordinator, member.Joined, _coordinatorChanges);
            foreach (var (cpu, since) in member.Held)
            {
                watch.Moved(victim, cpu, since, serves: true);
            }

            foreach (var (pid, other) in _members.Where(m => m.Key != victim && m.Value.Alive))
            {
                foreach (var (cpu, since) in other.Held)
                {
                    // Another live child serves it already (a fallback, or a move under way when the victim died).
                    watch.Moved(pid, cpu, since, serves: true);
                }
            }

            member.Held.Clear();

            // A finished watch stays a while: lines stamped before its kill may still be in the pipes.
            _watches.RemoveAll(w => w.Done && now - w.KilledAt > 5 * System.Diagnostics.Stopwatch.Frequency);
            _watches.Add(watch); // even when done: a late line stamped before the kill may undo that

            Pulse();
            return watch;
        }
    }

    /// <summary>A child ended other than by a kill (it exited or its output closed): dead from now on.</summary>
    /// <param name="pid">The child.</param>
    public void Gone(int pid)
    {
        lock (_gate)
        {
            if (_members.TryGetValue(pid, out Member? member) && member.Alive)
            {
                member.Alive = false;
                member.Held.Clear();
                if (_coordinator == pid)
                {
                    SetCoordinator(0);
                }

                Pulse();
            }
        }
    }

    /// <summary>When the coordinator logged that it dropped <paramref name="pid"/>, or null.</summary>
    /// <param name="pid">A process.</param>
    /// <returns>The child's timestamp of the log line.</returns>
    public long? DroppedAt(int pid)
    {
        lock (_gate)
        {
            return _dropped.TryGetValue(pid, out long at) ? at : null;
        }
    }

    /// <summary>Why the coordinator dropped <paramref name="pid"/> (for example <c>connection closed</c>, <c>no report for a lease</c>), or null.</summary>
    /// <param name="pid">A process.</param>
    /// <returns>The reason as logged.</returns>
    public string? DropReason(int pid)
    {
        lock (_gate)
        {
            return _dropReasons.GetValueOrDefault(pid);
        }
    }

    /// <summary>The live children serving each CPU (empty: nobody serves it).</summary>
    /// <param name="cpus">The CPUs of the run.</param>
    /// <returns>Per CPU, the pids serving it.</returns>
    public IReadOnlyDictionary<int, int[]> Holders(IReadOnlyList<int> cpus)
    {
        ArgumentNullException.ThrowIfNull(cpus);
        lock (_gate)
        {
            return cpus.ToDictionary(c => c, c => _members.Where(m => m.Value.Alive && m.Value.Held.ContainsKey(c)).Select(m => m.Key).Order().ToArray());
        }
    }

    /// <summary>Whether every CPU of the run is served by exactly one live child (the grants applied, none stranded).</summary>
    /// <param name="cpus">The CPUs of the run.</param>
    /// <returns>Whether the live children partition the CPUs.</returns>
    public bool IsPartition(IReadOnlyList<int> cpus) => Holders(cpus).Values.All(h => h.Length == 1);

    /// <summary>The live children serving at least one CPU.</summary>
    /// <returns>Their pids.</returns>
    public IReadOnlyList<int> LiveHolders()
    {
        lock (_gate)
        {
            return [.. _members.Where(m => m.Value.Alive && m.Value.Held.Count > 0).Select(m => m.Key).Order()];
        }
    }

    /// <summary>Live children with no progress line (ready, joined, cycle) for longer than <paramref name="silence"/> ticks, as of <paramref name="now"/>.</summary>
    /// <param name="now">The parent's timestamp.</param>
    /// <param name="silence">The bound, in ticks.</param>
    /// <returns>Their pids.</returns>
    public IReadOnlyList<int> Silent(long now, long silence)
    {
        lock (_gate)
        {
            return [.. _members.Where(m => m.Value.Alive && now - m.Value.LastActivity > silence).Select(m => m.Key).Order()];
        }
    }

    private static bool Long(string text, out long value) => long.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out value);

    /// <summary>A comma-separated CPU list (<c>-</c>: none); with <paramref name="pairs"/>, <c>cpu:pid</c> items as (cpu, pid).</summary>
    private static IEnumerable<(int Cpu, int By)> Cpus(string list, bool pairs)
    {
        if (list == "-")
        {
            yield break;
        }

        foreach (string item in list.Split(','))
        {
            string[] parts = item.Split(':');
            if (int.TryParse(parts[0], CultureInfo.InvariantCulture, out int cpu))
            {
                yield return (cpu, pairs && parts.Length > 1 && int.TryParse(parts[1], CultureInfo.InvariantCulture, out int by) ? by : 0);
            }
        }
    }

    private static int[] Cpus(string list) => [.. Cpus(list, pairs: false).Select(c => c.Cpu)];

    /// <summary>
    /// How each CPU of a finished kill reached its next holder, from the children's lines: who received it, how old that
    /// process was, the first decision after the kill that gave the CPU to anyone, the grant that gave it to the
    /// receiver (decided, received, acknowledged, applied), the worker's arrival, and the last decision before the
    /// arrival that withheld it under the handover rule (and for whom). Times in ms from the kill; null: no line says.
    /// </summary>
    /// <param name="watch">A kill's watch.</param>
    /// <returns>One entry per CPU of the victim, in CPU order (a CPU not served yet has receiver 0).</returns>
    public IReadOnlyList<CpuHandover> Explain(ReassignmentWatch watch)
    {
        ArgumentNullException.ThrowIfNull(watch);
        lock (_gate)
        {
            var result = new List<CpuHandover>();
            foreach (int cpu in watch.Cpus)
            {
                if (watch.ServedBy(cpu) is not { } served)
                {
                    result.Add(new CpuHandover(cpu, 0, null, null, null, null, null, null, null, null, null, null, null, 0));
                    continue;
                }

                (int receiver, long arrived) = served;
                double Ms(long at) => (at - watch.KilledAt) * 1000.0 / System.Diagnostics.Stopwatch.Frequency;
                GrantLine[] after = [.. _grants.Where(g => g.DecidedAt >= watch.KilledAt && g.DecidedAt <= arrived && g.Pid != watch.Victim)];
                GrantLine? first = after.FirstOrDefault(g => g.Cpus.Contains(cpu));
                GrantLine? granted = after.FirstOrDefault(g => g.Pid == receiver && g.Cpus.Contains(cpu));
                GrantLine? withheld = after.LastOrDefault(g => g.Withheld.Any(w => w.Cpu == cpu));
                _members.TryGetValue(receiver, out Member? member);
                InstallLine? install = granted is not null && member is not null ? member.Installs.GetValueOrDefault(granted.Epoch) : null;
                long? applied = granted is not null && member is not null && member.Applied.TryGetValue(granted.Epoch, out long a) ? a : null;
                result.Add(new CpuHandover(
                    cpu,
                    receiver,
                    member is null ? null : Ms(member.StartedAt),
                    first?.Pid,
                    first is null ? null : Ms(first.DecidedAt),
                    granted is null ? null : Ms(granted.DecidedAt),
                    granted?.Trigger,
                    install is null ? null : Ms(install.ReceivedAt),
                    install is null ? null : Ms(install.AcknowledgedAt),
                    applied is { } ap ? Ms(ap) : null,
                    Ms(arrived),
                    withheld is null ? null : Ms(withheld.DecidedAt),
                    withheld?.Withheld.First(w => w.Cpu == cpu).By,
                    after.Length));
            }

            return result;
        }
    }

    private void OnLog(int pid, Member member, string text, long at)
    {
        // "<ts> DivCon <domain>: client <pid>: ..." / "... coordinator <pid>: pid <x> dropped: ..."
        if (text.Contains(": became the coordinator", StringComparison.Ordinal))
        {
            SetCoordinator(pid);
        }
        else if (text.Contains(": joined the domain", StringComparison.Ordinal))
        {
            member.Joined = true;
        }
        else if (text.Contains(": fell back to own CPUs", StringComparison.Ordinal))
        {
            member.Joined = false;
        }

        int start = text.IndexOf(": pid ", StringComparison.Ordinal);
        int end = start < 0 ? -1 : text.IndexOf(" dropped:", start, StringComparison.Ordinal);
        if (end > 0 && int.TryParse(text.AsSpan(start + 6, end - start - 6), NumberStyles.None, CultureInfo.InvariantCulture, out int dropped))
        {
            _dropped[dropped] = at;
            _dropReasons[dropped] = text[(end + " dropped:".Length)..].Trim();
        }
    }

    private void SetCoordinator(int pid)
    {
        if (_coordinator != pid)
        {
            _coordinator = pid;
            _coordinatorChanges++;
        }
    }

    private void Pulse()
    {
        TaskCompletionSource changed = _changed;
        _changed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        changed.SetResult();
    }

    private sealed record GrantLine(int Pid, long Epoch, int[] Cpus, (int Cpu, int By)[] Withheld, long DecidedAt, string Trigger);

    private sealed record InstallLine(int[] Cpus, bool Changed, long ReceivedAt, long AcknowledgedAt);

    private sealed class Member
    {
        public bool Alive { get; set; } = true;

        public long StartedAt { get; init; }

        public Dictionary<long, InstallLine> Installs { get; } = [];

        public Dictionary<long, long> Applied { get; } = [];

        public bool Joined { get; set; }

        /// <summary>The CPUs its workers serve, each with the timestamp of its arrival.</summary>
        public Dictionary<int, long> Held { get; } = [];

        public long LastActivity { get; set; }
    }
}

/// <summary>One kill's reassignment: from the kill until every CPU the victim served serves another live child.</summary>
public sealed class ReassignmentWatch
{
    private readonly List<(int Pid, int Cpu, long At, bool Serves)> _moves = [];

    internal ReassignmentWatch(int victim, long killedAt, IReadOnlyList<int> cpus, bool wasCoordinator, bool wasJoined, int coordinatorChanges)
    {
        Victim = victim;
        KilledAt = killedAt;
        Cpus = cpus;
        WasCoordinator = wasCoordinator;
        WasJoined = wasJoined;
        CoordinatorChangesAtKill = coordinatorChanges;
    }

    /// <summary>Who first served a CPU after the kill: <c>-1</c> another child already served it at the kill.</summary>
    public const int ServedAtKill = -1;

    /// <summary>Who first served a CPU after the kill: <c>-2</c> the victim had given it up before the kill (its line was still in the pipe).</summary>
    public const int ReleasedBeforeKill = -2;

    /// <summary>The killed child.</summary>
    public int Victim { get; }

    /// <summary>The timestamp just before the kill.</summary>
    public long KilledAt { get; }

    /// <summary>The CPUs the victim's workers served when it was killed, as far as the parent had read its lines.</summary>
    public IReadOnlyList<int> Cpus { get; }

    /// <summary>Whether the victim hosted the coordinator.</summary>
    public bool WasCoordinator { get; }

    /// <summary>Whether the victim was joined (so the coordinator must drop it).</summary>
    public bool WasJoined { get; }

    /// <summary>The tracker's coordinator changes when the kill began (a later change means the coordinator went meanwhile).</summary>
    public int CoordinatorChangesAtKill { get; }

    /// <summary>Whether every CPU of <see cref="Cpus"/> serves another live child (or was no longer the victim's at the kill).</summary>
    public bool Done
    {
        get
        {
            lock (_moves)
            {
                return Cpus.All(c => Resolve(c) is not null);
            }
        }
    }

    /// <summary>The time from the kill until the last of its CPUs served another child, in ticks; null while not done.</summary>
    public long? LatencyTicks
    {
        get
        {
            lock (_moves)
            {
                var served = Cpus.Select(Resolve).ToArray();
                return served.Any(s => s is null) ? null : served.Select(s => s!.Value.At - KilledAt).DefaultIfEmpty(0).Max();
            }
        }
    }

    /// <summary>The CPUs not served by another child yet.</summary>
    public IReadOnlyList<int> Pending
    {
        get
        {
            lock (_moves)
            {
                return [.. Cpus.Where(c => Resolve(c) is null)];
            }
        }
    }

    /// <summary>
    /// Who first served <paramref name="cpu"/> after the kill and when: <see cref="ServedAtKill"/> (at the kill) when
    /// another child's last move on it before the kill was an arrival, <see cref="ReleasedBeforeKill"/> (at the kill)
    /// when the victim's was a departure, else the first arrival of another child after the kill; null while nobody has.
    /// Decided from the moves' own timestamps, whatever order the pipes delivered them in.
    /// </summary>
    /// <param name="cpu">A CPU of <see cref="Cpus"/>.</param>
    /// <returns>The process (or one of the two codes) and the timestamp, or null.</returns>
    public (int Pid, long At)? ServedBy(int cpu)
    {
        lock (_moves)
        {
            return Resolve(cpu);
        }
    }

    /// <summary>A move of a worker of <paramref name="pid"/> onto (<paramref name="serves"/>) or off <paramref name="cpu"/>, stamped <paramref name="at"/>.</summary>
    internal void Moved(int pid, int cpu, long at, bool serves)
    {
        if (!Cpus.Contains(cpu) || (pid == Victim && at >= KilledAt))
        {
            return;
        }

        lock (_moves)
        {
            _moves.Add((pid, cpu, at, serves));
        }
    }

    private (int Pid, long At)? Resolve(int cpu)
    {
        var before = _moves.Where(m => m.Cpu == cpu && m.At < KilledAt).GroupBy(m => m.Pid).Select(g => g.MaxBy(m => m.At)).ToArray();
        if (before.Any(m => m.Pid == Victim && !m.Serves))
        {
            return (ReleasedBeforeKill, KilledAt);
        }

        if (before.Any(m => m.Pid != Victim && m.Serves))
        {
            return (ServedAtKill, KilledAt);
        }

        var first = _moves.Where(m => m.Cpu == cpu && m.At >= KilledAt && m.Pid != Victim && m.Serves).OrderBy(m => m.At).FirstOrDefault();
        return first.Serves ? (first.Pid, first.At) : null;
    }
}

/// <summary>How one CPU of a killed process reached its next holder (see <see cref="DomainFaultTracker.Explain"/>); times in ms from the kill.</summary>
/// <param name="Cpu">The CPU.</param>
/// <param name="Receiver">The process whose worker served it first after the kill (-1: one already served it at the kill; -2: the victim
/// had given it up before the kill; 0: nobody yet).</param>
/// <param name="ReceiverStartedMs">When the receiver was started (negative: before the kill), or null.</param>
/// <param name="FirstGranteePid">The process the first decision after the kill that gave this CPU to anyone gave it to, or null.</param>
/// <param name="FirstGrantMs">That decision's time.</param>
/// <param name="GrantedMs">The first decision after the kill that gave it to the receiver.</param>
/// <param name="Trigger">Why that decision ran (interval, change, release, drop).</param>
/// <param name="ReceivedMs">When the receiver's client received that grant.</param>
/// <param name="AcknowledgedMs">When it acknowledged it.</param>
/// <param name="AppliedMs">When the receiver's scheduler applied it.</param>
/// <param name="ArrivedMs">When the receiver's worker arrived on the CPU.</param>
/// <param name="WithheldUntilMs">The last decision before the arrival that withheld this CPU under the handover rule, or null.</param>
/// <param name="WithheldBy">The process whose unacknowledged grant withheld it then (0: one dropped for silence), or null.</param>
/// <param name="Decisions">Grants sent (to anyone but the victim) between the kill and the arrival.</param>
public sealed record CpuHandover(
    int Cpu, int Receiver, double? ReceiverStartedMs, int? FirstGranteePid, double? FirstGrantMs, double? GrantedMs, string? Trigger,
    double? ReceivedMs, double? AcknowledgedMs, double? AppliedMs, double? ArrivedMs, double? WithheldUntilMs, int? WithheldBy, int Decisions);
