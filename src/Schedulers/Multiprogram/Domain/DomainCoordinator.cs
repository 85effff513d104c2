using DivCon.Schedulers.Multiprogram.Decisions;
#if NET8_0_OR_GREATER
using System.Diagnostics;
using System.Diagnostics.Tracing;
using System.Net.Sockets;
using System.Runtime.Versioning;
using System.Text;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Multiprogram.Domain;

/// <summary>
/// The domain's coordinator: a thread inside the process that holds the domain's lock file, serving the joined
/// processes over a Unix domain socket. See the README beside this file for the protocol and why it is safe.
/// </summary>
/// <remarks>
/// <para>One thread owns every field below (no locks): it accepts connections, reads frames, and every decision
/// interval (and at once on a join, a leave, a death or a released handover) runs <see cref="DomainArbitration"/>
/// and sends each process its grant.</para>
/// <para>Handover rule (the safety invariant): a CPU goes into a process's grant only when no other live process
/// may still hold it, that is, when it is in no unexpired grant of another process newer than or equal to the last
/// grant that process acknowledged (its report's applied epoch), nor in an unexpired grant of a process dropped for
/// silence. A process whose connection closed holds nothing: its client drops its grant before closing, and a dead
/// process runs nothing.</para>
/// </remarks>
[SupportedOSPlatform("linux")]
internal sealed class DomainCoordinator : IDisposable
{
    /// <summary>Most processes in one domain.</summary>
    public const int MaxProcesses = 256;

    private readonly DomainDirectory _directory;
    private readonly FileStream _lock;
    private readonly CpuDomainOptions _options;
    private readonly IAllocationPolicy _policy;
    private readonly StarvationGuard _guard = new(); // time-shares the CPUs when busy programs outnumber them
    private readonly Socket _listener;
    private readonly Thread _thread;
    private readonly long _interval;
    private readonly long _lease;
    private readonly long _graceUntil;
    private readonly List<Peer> _peers = [];
    private readonly List<(long Expiry, HashSet<int> Cpus)> _silentHoldings = [];
    private readonly Dictionary<(int Key, int Local), int> _globalIds = [];
    private CpuAssignment _previous = CpuAssignment.Empty;
    private (int[] Cpus, CpuTopology Topology)? _topology;
    private long _epoch;
    private int _nextKey;
    private int _nextGlobal;
    private readonly Dictionary<int, int> _withheld = []; // CPU -> key of the process the last decision withheld it from
    private readonly Dictionary<int, IReadOnlyList<(int Program, int[] Cpus)>> _intent = []; // key -> the last decision's CPUs per program
    private long _intentExpiry; // the lease of the last decision's grants
    private bool _handoverDue; // an acknowledgement freed a withheld CPU: complete the handover
    private long _handovers;
    private long _releaseAt = long.MaxValue; // the earliest expiry of a grant that blocks a withheld CPU
    private bool _closedOnSend; // a decision's send found a peer closed: decide again at once
    private string _trigger = "interval"; // why the next decision runs (diagnostics only)
    private volatile bool _stopping;
    private int _joined;
    private long _decisions;

    private DomainCoordinator(DomainDirectory directory, FileStream lockFile, CpuDomainOptions options)
    {
        _directory = directory;
        _lock = lockFile;
        _options = options;
        _policy = options.Policy ?? new LearnedScalabilityPolicy();
        _interval = Ticks(options.DecisionInterval);
        _lease = _interval * options.LeaseIntervals;

        // A lock file with content was held by an earlier coordinator, whose grants may still be in their lease:
        // grant nothing for one lease (its clients fall back meanwhile). A new lock file had no predecessor.
        long now = Stopwatch.GetTimestamp();
        _graceUntil = lockFile.Length > 0 ? now + _lease : now;
        _epoch = now; // epochs keep growing across re-elections: a coordinator's first is past every earlier one's
        lockFile.SetLength(0);
        byte[] owner = Encoding.ASCII.GetBytes(FormattableString.Invariant($"{Environment.ProcessId}\n"));
        lockFile.Write(owner);
        lockFile.Flush();

        // Only the lock holder gets here, so a socket file left by a dead coordinator is stale.
        File.Delete(directory.SocketPath);
        _listener = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        try
        {
            _listener.Bind(new UnixDomainSocketEndPoint(directory.SocketPath));
            File.SetUnixFileMode(
                directory.SocketPath,
                UnixFileMode.UserRead | UnixFileMode.UserWrite
                    | (directory.AllowedGroup is null ? UnixFileMode.None : UnixFileMode.GroupRead | UnixFileMode.GroupWrite));
            _listener.Listen(64);
        }
        catch
        {
            _listener.Dispose();
            throw;
        }

        _thread = new Thread(Run) { IsBackground = true, Name = "DivCon domain coordinator" };
        _thread.Start();
    }

    /// <summary>Processes joined now (for tests and diagnostics).</summary>
    public int JoinedCount => Volatile.Read(ref _joined);

    /// <summary>Whether the coordinator's thread still runs.</summary>
    public bool IsRunning => _thread.IsAlive;

    /// <summary>Decisions made so far.</summary>
    public long Decisions => Interlocked.Read(ref _decisions);

    /// <summary>Handovers completed without a decision (an acknowledgement freed a CPU the last decision withheld).</summary>
    public long Handovers => Interlocked.Read(ref _handovers);

    /// <summary>Becomes the coordinator if nobody is: takes the lock file, binds the socket, starts the thread.</summary>
    /// <param name="directory">The checked domain directory.</param>
    /// <param name="options">The domain's options.</param>
    /// <returns>The coordinator, or null when another process holds the lock.</returns>
    public static DomainCoordinator? TryStart(DomainDirectory directory, CpuDomainOptions options)
    {
        ArgumentNullException.ThrowIfNull(directory);
        ArgumentNullException.ThrowIfNull(options);
        var lockFile = directory.TryLock();
        if (lockFile is null)
        {
            return null;
        }

        try
        {
            return new DomainCoordinator(directory, lockFile, options);
        }
        catch
        {
            lockFile.Dispose();
            throw;
        }
    }

    /// <summary>Stops the thread, closes every connection (the clients fall back and elect a successor), releases the lock.</summary>
    public void Dispose()
    {
        _stopping = true;
        if (Thread.CurrentThread != _thread)
        {
            _thread.Join(TimeSpan.FromSeconds(5));
        }
    }

    /// <summary>The least time between two decisions made at once on a report (not on the interval).</summary>
    private static readonly long s_reactionGap = Ticks(TimeSpan.FromMilliseconds(5));

    private static bool IsBusy(ProgramState program) => program.AvailableTasks > 0 || program.RunningTasks > 0;

    private static long Ticks(TimeSpan span) => (long)(span.TotalSeconds * Stopwatch.Frequency);

    /// <summary>
    /// The next decision's time after grants went out (a decision's, or a handover completion's): a peer found closed on
    /// such a send has freed its CPUs, so decide again one reaction gap after <paramref name="lastDecision"/> (as for a
    /// close seen by a receive); otherwise <paramref name="nextDecision"/> stands.
    /// </summary>
    private long AfterClosedOnSend(long nextDecision, long lastDecision)
    {
        if (!_closedOnSend)
        {
            return nextDecision;
        }

        _closedOnSend = false;
        _trigger = "drop";
        return Math.Min(nextDecision, lastDecision + s_reactionGap);
    }

    private void Log(string message) => _options.Log?.Invoke($"coordinator {Environment.ProcessId}: {message}");

    private void Run()
    {
        long nextDecision = Stopwatch.GetTimestamp() + _interval;
        long lastDecision = long.MinValue / 2;
        var readable = new List<Socket>();
        try
        {
            while (!_stopping)
            {
                bool decideNow = false;
                readable.Clear();
                readable.Add(_listener);
                readable.AddRange(_peers.Select(p => p.Socket));
                long wait = Math.Clamp(nextDecision - Stopwatch.GetTimestamp(), 0, _interval);
                Socket.Select(readable, null, null, (int)Math.Max(1000, wait * 1_000_000 / Stopwatch.Frequency));
                foreach (var socket in readable)
                {
                    if (socket == _listener)
                    {
                        Accept();
                    }
                    else if (_peers.Find(p => p.Socket == socket) is { } peer)
                    {
                        decideNow |= Receive(peer);
                    }
                }

                long now = Stopwatch.GetTimestamp();
                bool decideAtOnce = decideNow && now - lastDecision >= s_reactionGap;
                if (_handoverDue && !decideAtOnce && now < nextDecision)
                {
                    // An acknowledgement freed a CPU the last decision withheld: give it to its recipient now, with no
                    // new decision (so no reaction gap to wait out: the CPU would idle until then).
                    CompleteHandovers(now);
                    nextDecision = AfterClosedOnSend(nextDecision, lastDecision);
                }

                if (decideNow && !decideAtOnce)
                {
                    // Changes come in bursts (several processes' programs finish together): one decision for the burst.
                    nextDecision = Math.Min(nextDecision, lastDecision + s_reactionGap);
                }
                else if (decideNow || now >= nextDecision)
                {
                    Decide(now, _trigger);
                    lastDecision = now;

                    // A withheld CPU whose blocking grant expires is free then: decide at that moment, not at the
                    // next interval (a silent process's CPUs would otherwise wait up to an interval past its lease).
                    nextDecision = Math.Min(now + _interval, _releaseAt);
                    _trigger = "interval";
                    nextDecision = AfterClosedOnSend(nextDecision, lastDecision);
                }
            }
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException or IOException)
        {
            Log($"stopped: {e.Message}");
        }
        finally
        {
            foreach (var peer in _peers)
            {
                peer.Socket.Dispose();
            }

            _peers.Clear();
            Volatile.Write(ref _joined, 0);
            try
            {
                File.Delete(_directory.SocketPath);
            }
            catch (IOException)
            {
            }

            _listener.Dispose();
            _lock.Dispose();
        }
    }

    private void Accept()
    {
        Socket socket;
        try
        {
            socket = _listener.Accept();
        }
        catch (SocketException)
        {
            return;
        }

        var peer = DomainDirectory.PeerOf(socket);
        if (peer is not { } credentials || !_directory.Admits(credentials))
        {
            string who = peer is { } c ? FormattableString.Invariant($"uid {c.UserId}, gid {c.GroupId}, pid {c.ProcessId}") : "unknown credentials";
            Log($"refused a process of another user ({who})");
            Refuse(socket, DomainRejectCode.PermissionDenied, $"the domain admits only uid {DomainDirectory.CurrentUserId}{(_directory.AllowedGroup is { } g ? FormattableString.Invariant($" and gid {g}") : string.Empty)}");
            return;
        }

        if (_peers.Count >= MaxProcesses)
        {
            Refuse(socket, DomainRejectCode.Full, FormattableString.Invariant($"the domain is full ({MaxProcesses} processes)"));
            return;
        }

        socket.SendTimeout = 200;
        _peers.Add(new Peer(socket, ++_nextKey, credentials, Stopwatch.GetTimestamp()));
    }

    private static void Refuse(Socket socket, DomainRejectCode code, string reason)
    {
        try
        {
            socket.SendTimeout = 200;
            socket.Send(DomainProtocol.Encode(new RejectMessage(code, reason)));
        }
        catch (SocketException)
        {
        }
        finally
        {
            socket.Dispose();
        }
    }

    /// <summary>Reads what a peer sent; returns whether a decision should run now.</summary>
    private bool Receive(Peer peer)
    {
        int read;
        try
        {
            if (peer.Count == peer.Buffer.Length)
            {
                Array.Resize(ref peer.Buffer, Math.Min(peer.Buffer.Length * 2, DomainProtocol.HeaderSize + DomainProtocol.MaxPayload));
            }

            read = peer.Socket.Receive(peer.Buffer, peer.Count, peer.Buffer.Length - peer.Count, SocketFlags.None);
        }
        catch (SocketException e)
        {
            return Drop(peer, $"connection failed ({e.SocketErrorCode})", silent: false);
        }

        if (read == 0)
        {
            return Drop(peer, "connection closed", silent: false);
        }

        peer.Count += read;
        bool decide = false;
        try
        {
            int offset = 0;
            while (DomainProtocol.TryDecode(peer.Buffer.AsSpan(offset, peer.Count - offset), out var message, out int consumed))
            {
                offset += consumed;
                decide |= Handle(peer, message!);
                if (!_peers.Contains(peer))
                {
                    return true;
                }
            }

            Buffer.BlockCopy(peer.Buffer, offset, peer.Buffer, 0, peer.Count - offset);
            peer.Count -= offset;
        }
        catch (DomainProtocolException e)
        {
            var code = e.Error == DomainProtocolError.VersionMismatch ? DomainRejectCode.VersionMismatch : DomainRejectCode.ProtocolError;
            Log($"refused pid {peer.Credentials.ProcessId}: {e.Message}");
            _ = TrySend(peer, new RejectMessage(code, e.Message));
            return Drop(peer, e.Message, silent: true);
        }

        return decide;
    }

    private bool Handle(Peer peer, DomainMessage message)
    {
        long now = Stopwatch.GetTimestamp();
        switch (message)
        {
            case HelloMessage hello when peer.Allowed is null:
                if (hello.TimestampFrequency != Stopwatch.Frequency)
                {
                    _ = TrySend(peer, new RejectMessage(DomainRejectCode.ClockMismatch, FormattableString.Invariant($"timestamp frequency {hello.TimestampFrequency}, coordinator's {Stopwatch.Frequency}")));
                    return Drop(peer, "clock mismatch", silent: false);
                }

                if (hello.AllowedCpus.Count == 0)
                {
                    throw new DomainProtocolException(DomainProtocolError.Malformed, "Hello with no CPUs.");
                }

                peer.Allowed = hello.AllowedCpus;
                peer.LastReport = now;
                Volatile.Write(ref _joined, _peers.Count(p => p.Allowed is not null));
                Log(FormattableString.Invariant($"pid {peer.Credentials.ProcessId} joined with CPUs {CpuList.Format(hello.AllowedCpus)}"));
                return !TrySend(peer, new WelcomeMessage(Environment.ProcessId, _interval, _lease))
                    && Drop(peer, "welcome not delivered", silent: false);
            case ReportMessage report when peer.Allowed is not null:
                if (report.AppliedEpoch > peer.LastSentEpoch)
                {
                    throw new DomainProtocolException(DomainProtocolError.Malformed, FormattableString.Invariant($"Applied epoch {report.AppliedEpoch} was never sent."));
                }

                // A new member, a changed program set, or a program that became busy or idle: decide now (rate-limited
                // by the loop), so CPUs follow work within milliseconds instead of an interval.
                bool changed = !peer.Reported
                    || report.Programs.Count != peer.Programs.Count
                    || report.Programs.Zip(peer.Programs).Any(pair => pair.First.Id.Value != pair.Second.Id.Value
                        || IsBusy(pair.First) != IsBusy(pair.Second));
                peer.Reported = true;
                peer.Programs = report.Programs;
                peer.LastReport = now;
                var superseded = peer.Outstanding.Where(g => g.Epoch < report.AppliedEpoch).ToArray();
                peer.Outstanding.RemoveAll(g => g.Epoch < report.AppliedEpoch);
                if (superseded.Length > 0 && FreesWithheld(superseded))
                {
                    _handoverDue = true; // completed by the loop, without a new decision
                }

                if (changed)
                {
                    _trigger = "change";
                    return true;
                }

                return false;
            case LeaveMessage:
                return Drop(peer, "left", silent: false);
            default:
                throw new DomainProtocolException(DomainProtocolError.Malformed, $"Unexpected {message.Type} from a client.");
        }
    }

    /// <summary>
    /// Whether the grants an acknowledgement just superseded held a CPU the last decision withheld and that is no
    /// longer blocked for the process it was withheld from. Only then does the acknowledgement warrant a message at
    /// once (the handover's completion): every acknowledgement supersedes the previous grant (a renewal too), so
    /// acting on any of them while some CPU is withheld would act again and again, each grant acknowledged and acted
    /// on anew, for as long as the blocking process stays silent (a killed process until the kernel closes its
    /// socket, a hung one until its lease ends).
    /// </summary>
    private bool FreesWithheld(IReadOnlyList<(long Epoch, long Expiry, HashSet<int> Cpus)> superseded)
    {
        foreach (var (cpu, recipient) in _withheld)
        {
            if (superseded.Any(g => g.Cpus.Contains(cpu)) && !IsBlocked(cpu, recipient))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>The handover rule: whether <paramref name="cpu"/> may still be held by a process other than the one with <paramref name="key"/>.</summary>
    private bool IsBlocked(int cpu, int key) =>
        _peers.Any(other => other.Key != key && other.Outstanding.Any(g => g.Cpus.Contains(cpu)))
        || _silentHoldings.Any(h => h.Cpus.Contains(cpu));

    /// <summary>
    /// Sends a frame; false when the send failed or timed out (a peer that stopped reading fills its socket
    /// buffer). A frame may then be cut in the middle, so the caller drops the peer.
    /// </summary>
    private static bool TrySend(Peer peer, DomainMessage message) => TrySend(peer, message, out _);

    /// <summary>
    /// Sends a frame; on failure <paramref name="error"/> says why. <see cref="PeerClosed"/> errors mean the peer's end
    /// is closed (a leave, or the kernel closing a killed process's socket), which is what a receive of zero bytes
    /// means too; a timeout means a peer that stopped reading, alive or not.
    /// </summary>
    private static bool TrySend(Peer peer, DomainMessage message, out SocketError error)
    {
        try
        {
            peer.Socket.Send(DomainProtocol.Encode(message));
            error = SocketError.Success;
            return true;
        }
        catch (SocketException e)
        {
            error = e.SocketErrorCode;
            return false;
        }
    }

    /// <summary>
    /// Send errors that say the peer's socket is closed: EPIPE (<see cref="SocketError.Shutdown"/>) and ECONNRESET.
    /// Only a closed socket proves the process holds nothing (rule 2, "closed means released"); a timeout proves
    /// nothing, so it is a drop for silence.
    /// </summary>
    internal static bool PeerClosed(SocketError error) =>
        error is SocketError.Shutdown or SocketError.ConnectionReset or SocketError.ConnectionAborted or SocketError.NotConnected;

    /// <summary>Removes a peer. A silent one's unexpired grants keep their CPUs blocked until they expire.</summary>
    private bool Drop(Peer peer, string reason, bool silent)
    {
        if (!_peers.Remove(peer))
        {
            return false;
        }

        if (silent)
        {
            long now = Stopwatch.GetTimestamp();
            foreach (var grant in peer.Outstanding.Where(g => g.Expiry > now))
            {
                _silentHoldings.Add((grant.Expiry, grant.Cpus));
            }
        }

        foreach (var key in _globalIds.Keys.Where(k => k.Key == peer.Key).ToArray())
        {
            _globalIds.Remove(key);
        }

        peer.Socket.Dispose();
        _trigger = "drop";
        Volatile.Write(ref _joined, _peers.Count(p => p.Allowed is not null));
        if (peer.Allowed is not null)
        {
            Log($"pid {peer.Credentials.ProcessId} dropped: {reason}");
        }

        return true;
    }

    private void Decide(long now, string trigger)
    {
        foreach (var peer in _peers.ToArray())
        {
            if (peer.Allowed is null && now - peer.ConnectedAt > _lease)
            {
                Drop(peer, "no hello", silent: false);
            }
            else if (peer.Allowed is not null && now - peer.LastReport > _lease)
            {
                Drop(peer, "no report for a lease", silent: true);
            }
            else
            {
                peer.Outstanding.RemoveAll(g => g.Expiry <= now);
            }
        }

        _silentHoldings.RemoveAll(h => h.Expiry <= now);
        _withheld.Clear();
        _intent.Clear();
        _releaseAt = long.MaxValue;
        if (now < _graceUntil)
        {
            return;
        }

        var members = _peers.Where(p => p.Reported).ToArray();
        if (members.Length == 0)
        {
            return;
        }

        DomainOutcome outcome;
        try
        {
            var participants = members.Select(p => new DomainParticipant(p.Key, p.Allowed!, p.Programs)).ToArray();
            outcome = DomainArbitration.Decide(participants, GlobalId, _previous, _policy, Topology(participants), _guard);
        }
        catch (Exception e) when (e is ArgumentException or InvalidOperationException or ArithmeticException)
        {
            // A policy that fails grants nothing this round; the leases run out and the processes fall back.
            Log($"decision failed: {e.Message}");
            return;
        }

        _previous = outcome.Assignment;
        Interlocked.Increment(ref _decisions);
        long expiry = now + _lease;
        bool traced = Instrumentation.EventsEnabled && MultiprogramEventSource.Log.IsEnabled(EventLevel.Verbose, MultiprogramEventSource.Keywords.Domain);
        foreach (var peer in members)
        {
            // CPU -> the process that may still hold it (0: one dropped for silence).
            var blocked = new Dictionary<int, int>();
            foreach (var other in _peers)
            {
                if (other != peer)
                {
                    foreach (var grant in other.Outstanding)
                    {
                        foreach (int cpu in grant.Cpus)
                        {
                            blocked.TryAdd(cpu, other.Credentials.ProcessId);
                        }
                    }
                }
            }

            foreach (var holding in _silentHoldings)
            {
                foreach (int cpu in holding.Cpus)
                {
                    blocked.TryAdd(cpu, 0);
                }
            }

            var programs = new List<GrantedCpus>();
            var cpus = new HashSet<int>();
            var withheld = traced ? new List<string>() : null;
            foreach (var (program, held) in outcome.CpusByParticipant[peer.Key])
            {
                int[] free = [.. held.Where(c => !blocked.ContainsKey(c))];
                foreach (int cpu in held.Where(blocked.ContainsKey))
                {
                    _withheld[cpu] = peer.Key;
                }

                programs.Add(new GrantedCpus(program, free));
                cpus.UnionWith(free);
                withheld?.AddRange(held.Where(blocked.ContainsKey).Select(c => FormattableString.Invariant($"{c}:{blocked[c]}")));
            }

            _intent[peer.Key] = [.. outcome.CpusByParticipant[peer.Key].Select(e => (e.Key, e.Value.ToArray()))];
            Send(peer, expiry, programs, cpus, withheld, now, trigger);
        }

        _intentExpiry = expiry;
        _handoverDue = false;
        UpdateReleaseTime();
    }

    /// <summary>
    /// Completes the last decision's handovers: each process a CPU was withheld from, once no other process can hold
    /// that CPU any more (the handover rule, exactly as in <see cref="Decide"/>), gets a grant of the decision's CPUs
    /// for it minus those still blocked, under the same lease. No policy runs and no other process hears of it, so
    /// it is not rate-limited: it is sent once per freed CPU at most (a freed CPU leaves the withheld set).
    /// </summary>
    private void CompleteHandovers(long now)
    {
        _handoverDue = false;
        if (now >= _intentExpiry || now < _graceUntil)
        {
            return; // the decision's lease is over: the next decision grants afresh
        }

        bool traced = Instrumentation.EventsEnabled && MultiprogramEventSource.Log.IsEnabled(EventLevel.Verbose, MultiprogramEventSource.Keywords.Domain);
        int[] recipients = [.. _withheld.Where(w => !IsBlocked(w.Key, w.Value)).Select(w => w.Value).Distinct().Order()];
        foreach (int key in recipients)
        {
            if (_peers.Find(p => p.Key == key && p.Reported) is not { } peer || !_intent.TryGetValue(key, out var intent))
            {
                continue;
            }

            var programs = new List<GrantedCpus>();
            var cpus = new HashSet<int>();
            var withheld = traced ? new List<string>() : null;
            foreach (var (program, held) in intent)
            {
                int[] free = [.. held.Where(c => !IsBlocked(c, key))];
                programs.Add(new GrantedCpus(program, free));
                cpus.UnionWith(free);
                withheld?.AddRange(held.Where(c => IsBlocked(c, key)).Select(c => FormattableString.Invariant($"{c}:-")));
            }

            foreach (int cpu in cpus)
            {
                _withheld.Remove(cpu);
            }

            Interlocked.Increment(ref _handovers);
            Send(peer, _intentExpiry, programs, cpus, withheld, now, "handover");
        }

        UpdateReleaseTime();
    }

    /// <summary>Sends <paramref name="peer"/> a grant under a new epoch and records it as outstanding; a failed send drops the peer.</summary>
    private void Send(Peer peer, long expiry, List<GrantedCpus> programs, HashSet<int> cpus, List<string>? withheld, long now, string trigger)
    {
        long epoch = ++_epoch;
        peer.LastSentEpoch = epoch;
        peer.Outstanding.Add((epoch, expiry, cpus));
        if (withheld is not null)
        {
            MultiprogramEventSource.Log.DomainGrantSent(
                peer.Credentials.ProcessId, epoch, string.Join(',', cpus.Order()), string.Join(',', withheld), now, trigger);
        }

        if (!TrySend(peer, new GrantMessage(epoch, expiry, programs), out var error))
        {
            if (PeerClosed(error))
            {
                // The kernel closed a killed process's socket between its last read and this send: the same
                // proof as a receive of zero bytes, so its CPUs are released now rather than at its lease's end.
                Drop(peer, $"connection failed on send ({error})", silent: false);
                _closedOnSend = true;
            }
            else
            {
                // Part of the grant may have arrived: its CPUs stay blocked until the lease ends.
                Drop(peer, $"not reading (send failed: {error})", silent: true);
            }
        }
    }

    /// <summary>
    /// When the grants that block a withheld CPU run out (the blocking process never acknowledged: dropped for
    /// silence, or hung), the CPU is free without any message: the loop decides again at that moment.
    /// </summary>
    private void UpdateReleaseTime()
    {
        _releaseAt = long.MaxValue;
        foreach (var (cpu, recipient) in _withheld)
        {
            foreach (var other in _peers.Where(o => o.Key != recipient))
            {
                foreach (var grant in other.Outstanding.Where(g => g.Cpus.Contains(cpu)))
                {
                    _releaseAt = Math.Min(_releaseAt, grant.Expiry);
                }
            }

            foreach (var holding in _silentHoldings.Where(h => h.Cpus.Contains(cpu)))
            {
                _releaseAt = Math.Min(_releaseAt, holding.Expiry);
            }
        }
    }

    private int GlobalId(int key, int local)
    {
        if (!_globalIds.TryGetValue((key, local), out int id))
        {
            id = ++_nextGlobal;
            _globalIds[(key, local)] = id;
        }

        return id;
    }

    private CpuTopology Topology(IReadOnlyList<DomainParticipant> participants)
    {
        int[] cpus = [.. participants.SelectMany(p => p.AllowedCpus).Distinct().Order()];
        if (_topology is { } cached && cached.Cpus.AsSpan().SequenceEqual(cpus))
        {
            return cached.Topology;
        }

        CpuTopology topology;
        try
        {
            topology = _options.Topology?.Invoke(cpus)
                ?? CpuTopologyDetector.Detect(CpuTopologyDetector.DefaultSysfsRoot, cpus);
        }
        catch (Exception e) when (e is IOException or ArgumentException or UnauthorizedAccessException)
        {
            topology = CpuTopologyDetector.Fallback(cpus);
        }

        _topology = (cpus, topology);
        return topology;
    }

    /// <summary>A connected process (owned by the coordinator's thread).</summary>
    private sealed class Peer(Socket socket, int key, PeerCredentials credentials, long connectedAt)
    {
        public Socket Socket { get; } = socket;

        public int Key { get; } = key;

        public PeerCredentials Credentials { get; } = credentials;

        public long ConnectedAt { get; } = connectedAt;

#pragma warning disable SA1401, CA1051 // a receive buffer grown in place
        public byte[] Buffer = new byte[4096];
#pragma warning restore SA1401, CA1051

        public int Count { get; set; }

        public IReadOnlyList<int>? Allowed { get; set; }

        public bool Reported { get; set; }

        public IReadOnlyList<ProgramState> Programs { get; set; } = [];

        public long LastReport { get; set; }

        public long LastSentEpoch { get; set; }

        /// <summary>Grants sent and not yet superseded by an acknowledged one, nor expired.</summary>
        public List<(long Epoch, long Expiry, HashSet<int> Cpus)> Outstanding { get; } = [];
    }
}
#endif
