using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Topology;
#if NET8_0_OR_GREATER
using System.Diagnostics;
using System.Diagnostics.Tracing;
using System.Net.Sockets;
using System.Runtime.Versioning;
#endif

namespace DivCon.Schedulers.Multiprogram.Domain;

/// <summary>How a process joins a machine-wide arbitration domain.</summary>
internal sealed record CpuDomainOptions
{
    /// <summary>The domain's directory; null: <c>$XDG_RUNTIME_DIR/divcon</c>, else <c>/tmp/divcon-&lt;uid&gt;</c>.</summary>
    public string? Directory { get; init; }

    /// <summary>How often the coordinator decides and clients report (default 100 ms; used by the process that becomes coordinator).</summary>
    public TimeSpan DecisionInterval { get; init; } = TimeSpan.FromMilliseconds(100);

    /// <summary>A grant's lifetime and a silent process's grace, in decision intervals (default 3).</summary>
    public int LeaseIntervals { get; init; } = 3;

    /// <summary>The policy the coordinator runs over every program of the domain; null: <see cref="LearnedScalabilityPolicy"/>.</summary>
    public IAllocationPolicy? Policy { get; init; }

    /// <summary>A group whose processes may also join (the directory must then belong to it, mode 0710); null: this user only.</summary>
    public uint? AllowedGroup { get; init; }

    /// <summary>Where the domain's events go (joins, drops, fallbacks with their reasons); null: nowhere.</summary>
    public Action<string>? Log { get; init; }

    /// <summary>The topology of given CPU ids (tests); null: read from sysfs.</summary>
    public Func<IReadOnlyList<int>, CpuTopology>? Topology { get; init; }

    /// <summary>
    /// The cgroup tree whose CPU quota caps the CPUs this process offers the domain at ceil(quota) (tests give fake
    /// files); default <c>/sys/fs/cgroup</c>; null: no quota is read.
    /// </summary>
    public string? CgroupRoot { get; init; } = CpuEnvironment.DefaultCgroupRoot;

    /// <summary>Whether this process may become the coordinator (tests turn it off to force a client); default true.</summary>
    public bool MayCoordinate { get; init; } = true;

    /// <summary>Checks the values.</summary>
    /// <exception cref="ArgumentOutOfRangeException">A value is out of range; the message names it.</exception>
    public void Validate()
    {
        if (DecisionInterval < TimeSpan.FromMilliseconds(1) || DecisionInterval > TimeSpan.FromMinutes(1))
        {
            throw new ArgumentOutOfRangeException(nameof(DecisionInterval), DecisionInterval, "The decision interval must be between 1 ms and 1 minute.");
        }

        if (LeaseIntervals is < 2 or > 100)
        {
            throw new ArgumentOutOfRangeException(nameof(LeaseIntervals), LeaseIntervals, "The lease must be 2 to 100 decision intervals.");
        }
    }
}

/// <summary>Joining a machine-wide arbitration domain, where the platform allows it.</summary>
internal static class CpuDomain
{
    /// <summary>Why this process cannot join a domain, or null when it can.</summary>
    public static string? UnsupportedReason =>
#if NET8_0_OR_GREATER
        !OperatingSystem.IsLinux()
            ? "the cross-process domain needs Linux (Unix domain socket credentials); this system is not supported, every process uses its own CPUs"

            // .NET takes flock only when file locking is on; without it two coordinators could be elected.
            : Environment.GetEnvironmentVariable("DOTNET_SYSTEM_IO_DISABLEFILELOCKING") is "1" or "true"
                ? "DOTNET_SYSTEM_IO_DISABLEFILELOCKING is set, so the lock file cannot elect a single coordinator"
                : null;
#else
        "the cross-process domain needs .NET 8 or later; on this runtime every process uses its own CPUs";
#endif

    /// <summary>Joins the domain (electing a coordinator or connecting to it, in the background).</summary>
    /// <param name="options">The options.</param>
    /// <param name="reason">Why no arbiter was returned.</param>
    /// <returns>The arbiter, or null when the domain is unavailable here or its directory was refused.</returns>
    public static ICpuArbiter? TryJoin(CpuDomainOptions options, out string? reason)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        reason = UnsupportedReason;
        if (reason is not null)
        {
            options.Log?.Invoke($"domain unavailable: {reason}");
            return null;
        }

#if NET8_0_OR_GREATER
        if (!OperatingSystem.IsLinux())
        {
            return null;
        }

        try
        {
            return new DomainClient(options);
        }
        catch (Exception e) when (e is DomainSecurityException or IOException or UnauthorizedAccessException or PlatformNotSupportedException)
        {
            reason = e.Message;
            options.Log?.Invoke($"domain unavailable: {reason}");
            return null;
        }
#else
        return null;
#endif
    }
}

#if NET8_0_OR_GREATER
/// <summary>
/// A process's member of the domain (<see cref="ICpuArbiter"/>): a background thread that elects itself coordinator
/// or connects to the coordinator, reports the latest published view every decision interval, and installs grants.
/// </summary>
/// <remarks>
/// <para>Threads: <see cref="Publish"/> only swaps a reference, sets an event before the first join, and signals
/// the joined thread's wake-up when the busy programs changed (<see cref="DomainWakeup"/>), so it never blocks.
/// Everything else runs on the client's thread: the connection, sends (with a timeout), receives, lease expiry and
/// <see cref="GrantChanged"/>.</para>
/// <para>Fallback (<see cref="LatestGrant"/> null): before the first grant, when the lease of the current grant runs
/// out, and whenever the connection ends (the grant is dropped before the socket is closed, which is what lets the
/// coordinator release a closed connection's CPUs at once). It then elects or reconnects with backoff.</para>
/// </remarks>
[SupportedOSPlatform("linux")]
internal sealed class DomainClient : ICpuArbiter
{
    private const int MaxBackoffMs = 1000;
    private readonly CpuDomainOptions _options;
    private readonly DomainDirectory _directory;
    private readonly Thread _thread;
    private readonly ManualResetEventSlim _wake = new(false);
    private readonly DomainWakeup _changed = new();
    private Published? _latest;
    private ArbiterGrant? _grant;
    private DomainCoordinator? _coordinator;
    private volatile bool _disposed;
    private volatile string? _refusal;
    private readonly int? _cpuLimit;
    private int _joined;

    /// <summary>Opens the domain directory and starts joining in the background.</summary>
    /// <param name="options">The options.</param>
    /// <exception cref="DomainSecurityException">The directory was refused.</exception>
    public DomainClient(CpuDomainOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        _options = options;
        _directory = DomainDirectory.Open(options.Directory, options.AllowedGroup);
        _cpuLimit = DomainCpuQuota.Limit(options.CgroupRoot);
        if (_cpuLimit is { } limit)
        {
            Log(FormattableString.Invariant($"CPU quota: at most {limit} CPUs offered to the domain"));
        }

        _thread = new Thread(Run) { IsBackground = true, Name = "DivCon domain client" };
        _thread.Start();
    }

    /// <inheritdoc />
    public event Action? GrantChanged;

    /// <inheritdoc />
    public ArbiterGrant? LatestGrant => Volatile.Read(ref _grant);

    /// <summary>Whether this process hosts the coordinator now.</summary>
    public bool IsCoordinator => Volatile.Read(ref _coordinator) is not null;

    /// <summary>The coordinator this process hosts, if any (tests).</summary>
    internal DomainCoordinator? HostedCoordinator => Volatile.Read(ref _coordinator);

    /// <summary>Whether the client is joined now (welcomed and connected).</summary>
    public bool IsJoined => Volatile.Read(ref _joined) == 1;

    /// <summary>Why the coordinator refused this process for good (another version, another user), or null.</summary>
    public string? Refusal => _refusal;

    /// <inheritdoc />
    public void Publish(AllocationSnapshot local, IReadOnlyList<int> ownCpus, IReadOnlyDictionary<ProgramId, string> names)
    {
        ArgumentNullException.ThrowIfNull(local);
        ArgumentNullException.ThrowIfNull(ownCpus);
        ArgumentNullException.ThrowIfNull(names);
        int[] offered = DomainCpuQuota.Offered([.. ownCpus.Distinct().Order()], _cpuLimit, Environment.ProcessId);
        var published = new Published(local, offered, names);
        var previous = Interlocked.Exchange(ref _latest, published);
        if (previous is null)
        {
            _wake.Set();
        }
        else if (BusySignature(previous) != BusySignature(published))
        {
            // After the exchange: the joined thread clears the signal before it reads the view again, so it sees this
            // view (or a later one) whichever comes first.
            _changed.Signal();
        }
    }

    /// <summary>Leaves the domain (stopping the coordinator if this process hosts it) and stops the thread.</summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        _wake.Set();
        _changed.Signal();
        _thread.Join(TimeSpan.FromSeconds(5));
        Interlocked.Exchange(ref _coordinator, null)?.Dispose();
        _wake.Dispose();
        _changed.Dispose();
    }

    private void Log(string message) => _options.Log?.Invoke($"client {Environment.ProcessId}: {message}");

    private void Run()
    {
        int backoff = 10;
        while (!_disposed)
        {
            var latest = Volatile.Read(ref _latest);
            if (latest is null || _refusal is not null)
            {
                _wake.Wait(_refusal is null ? 100 : 1000);
                continue;
            }

            if (Volatile.Read(ref _coordinator) is { IsRunning: false } stopped)
            {
                // Our coordinator stopped (disposed, or its thread failed): run for election again.
                stopped.Dispose();
                Interlocked.CompareExchange(ref _coordinator, null, stopped);
            }

            if (_options.MayCoordinate && Volatile.Read(ref _coordinator) is null)
            {
                try
                {
                    if (DomainCoordinator.TryStart(_directory, _options) is { } started)
                    {
                        Volatile.Write(ref _coordinator, started);
                        Log("became the coordinator");
                    }
                }
                catch (Exception e) when (e is IOException or SocketException or UnauthorizedAccessException)
                {
                    Log($"could not start a coordinator: {e.Message}");
                }
            }

            string outcome = Session(latest.OwnCpus, ref backoff);
            SetGrant(null);
            Volatile.Write(ref _joined, 0);
            if (_disposed)
            {
                break;
            }

            Log($"fell back to own CPUs: {outcome}");

            // Backoff with jitter, so that processes left by a dead coordinator do not all retry at once.
            int delay = backoff / 2 + Random.Shared.Next(backoff / 2 + 1);
            backoff = Math.Min(backoff * 2, MaxBackoffMs);
            _wake.Reset();
            _wake.Wait(delay);
        }
    }

    /// <summary>One connection's life: hello, welcome, then reports and grants until it ends; returns why it ended.</summary>
    private string Session(int[] ownCpus, ref int backoff)
    {
        using var socket = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        try
        {
            socket.Connect(new UnixDomainSocketEndPoint(_directory.SocketPath));
        }
        catch (SocketException e)
        {
            return $"no coordinator ({e.SocketErrorCode})";
        }

        if (DomainDirectory.PeerOf(socket) is not { } peer || !_directory.Admits(peer))
        {
            return "the socket's owner is not admitted";
        }

        socket.SendTimeout = 200;
        var buffer = new byte[4096];
        int count = 0;
        long freq = Stopwatch.Frequency;
        long interval = 0, lease = 0;
        long lastHeard = Stopwatch.GetTimestamp();
        long lastSent = 0;
        long expiry = long.MaxValue;
        long appliedEpoch = 0;
        long handshakeDeadline = lastHeard + freq;
        long reactionGap = Math.Max(1, (long)(ReactionGap.TotalSeconds * freq));
        ulong reportedBusy = 0;
        try
        {
            socket.Send(DomainProtocol.Encode(new HelloMessage(Environment.ProcessId, freq, ownCpus)));
            while (!_disposed)
            {
                long now = Stopwatch.GetTimestamp();
                if (interval == 0 && now > handshakeDeadline)
                {
                    return "no welcome within a second";
                }

                if (now >= expiry)
                {
                    SetGrant(null);
                    expiry = long.MaxValue;
                    Log("grant lease expired");
                }

                if (interval > 0 && now - lastHeard > 2 * lease)
                {
                    return "the coordinator has been silent for two leases";
                }

                var latest = Volatile.Read(ref _latest)!;
                if (!latest.OwnCpus.AsSpan().SequenceEqual(ownCpus))
                {
                    return "this process's CPUs changed; rejoining";
                }

                // A report every interval, and at once (at most one per ReactionGap) when a program became busy or
                // idle: the coordinator decides on such a change without waiting for its interval, so a process whose
                // programs ran out of work gives its CPUs away, and one whose program has work again gets one back,
                // in milliseconds rather than in one or two intervals.
                ulong busy = BusySignature(latest);
                if (interval > 0 && (now - lastSent >= interval || (busy != reportedBusy && now - lastSent >= reactionGap)))
                {
                    socket.Send(DomainProtocol.Encode(Report(latest, appliedEpoch)));
                    lastSent = now;
                    reportedBusy = busy;
                }

                // Joined, the thread sleeps until a message, the next interval report, the lease's end, or a change of
                // the busy programs: Publish signals the wake-up on such a change, and a change seen within the
                // reaction gap of the last report waits for the gap's end. Without the wake-up (no eventfd) the wait is
                // capped so that a change is still seen within a few milliseconds.
                long until = interval > 0 ? Math.Min(lastSent + interval, expiry) : handshakeDeadline;
                if (interval > 0 && busy != reportedBusy)
                {
                    until = Math.Min(until, lastSent + reactionGap);
                }

                long capUs = interval > 0 && !_changed.IsAvailable ? PollCapMicroseconds : 100_000;
                int waitMs = (int)Math.Clamp(((until - now) * 1_000_000 / freq + 999) / 1000, 1, capUs / 1000);
                if (!_changed.Wait(socket, waitMs))
                {
                    continue;
                }

                if (count == buffer.Length)
                {
                    Array.Resize(ref buffer, Math.Min(buffer.Length * 2, DomainProtocol.HeaderSize + DomainProtocol.MaxPayload));
                }

                int read = socket.Receive(buffer, count, buffer.Length - count, SocketFlags.None);
                if (read == 0)
                {
                    return "the coordinator closed the connection";
                }

                count += read;
                lastHeard = Stopwatch.GetTimestamp();
                int offset = 0;
                while (DomainProtocol.TryDecode(buffer.AsSpan(offset, count - offset), out var message, out int consumed))
                {
                    offset += consumed;
                    switch (message)
                    {
                        case WelcomeMessage welcome when interval == 0:
                            interval = welcome.DecisionIntervalTicks;
                            lease = welcome.LeaseTicks;
                            backoff = 10;
                            Volatile.Write(ref _joined, 1);
                            Log(FormattableString.Invariant($"joined the domain of coordinator {welcome.CoordinatorProcessId}"));
                            socket.Send(DomainProtocol.Encode(Report(latest, appliedEpoch)));
                            lastSent = Stopwatch.GetTimestamp();
                            break;
                        case GrantMessage grant when interval > 0:
                            if (grant.Epoch <= appliedEpoch || grant.LeaseExpiresAt <= Stopwatch.GetTimestamp())
                            {
                                break; // stale: an older decision, or a lease already over
                            }

                            if (grant.Programs.Any(p => p.Cpus.Any(c => Array.BinarySearch(ownCpus, c) < 0)))
                            {
                                return "the coordinator granted a CPU outside this process's set";
                            }

                            bool changed = Install(grant, latest, lastHeard);
                            appliedEpoch = grant.Epoch;
                            expiry = grant.LeaseExpiresAt;

                            // Acknowledge at once: the coordinator gives a CPU this grant took away to another process
                            // only after this report (the handover rule), so waiting for the next interval would leave
                            // that CPU idle for up to an interval at every cross-process move.
                            socket.Send(DomainProtocol.Encode(Report(latest, appliedEpoch)));
                            lastSent = Stopwatch.GetTimestamp();
                            reportedBusy = BusySignature(latest);
                            if (Instrumentation.EventsEnabled && MultiprogramEventSource.Log.IsEnabled(EventLevel.Verbose, MultiprogramEventSource.Keywords.Domain))
                            {
                                MultiprogramEventSource.Log.DomainGrantInstalled(
                                    grant.Epoch, string.Join(',', grant.Programs.SelectMany(p => p.Cpus).Order()), changed, lastHeard, lastSent);
                            }
                            break;
                        case RejectMessage reject:
                            if (reject.Code is DomainRejectCode.VersionMismatch or DomainRejectCode.PermissionDenied or DomainRejectCode.ClockMismatch)
                            {
                                _refusal = $"{reject.Code}: {reject.Reason}";
                                Log($"refused for good, staying on own CPUs: {_refusal}");
                            }

                            return $"refused by the coordinator ({reject.Code}: {reject.Reason})";
                        default:
                            return $"unexpected {message!.Type} from the coordinator";
                    }
                }

                Buffer.BlockCopy(buffer, offset, buffer, 0, count - offset);
                count -= offset;
            }

            // Leaving: drop the grant first, then say so (the socket closes on return either way).
            SetGrant(null);
            socket.Send(DomainProtocol.Encode(new LeaveMessage()));
            return "left";
        }
        catch (SocketException e)
        {
            return $"connection failed ({e.SocketErrorCode})";
        }
        catch (DomainProtocolException e)
        {
            if (e.Error == DomainProtocolError.VersionMismatch)
            {
                _refusal = e.Message;
                Log($"refused for good, staying on own CPUs: {_refusal}");
            }

            return $"protocol error: {e.Message}";
        }
        finally
        {
            // The grant is void before the connection closes, so the coordinator may reassign at once.
            SetGrant(null);
        }
    }

    /// <summary>The least time between two reports sent because the busy programs changed.</summary>
    internal static readonly TimeSpan ReactionGap = TimeSpan.FromMilliseconds(2);

    /// <summary>Without an eventfd, the longest wait of the joined client's loop between looks at the published view, in microseconds.</summary>
    private const int PollCapMicroseconds = 5_000;

    /// <summary>
    /// Which programs of the view are busy (tasks queued or running), as bits by position (the first 58 programs; a
    /// change among later ones waits for the interval report), with the number of programs (up to 63) in the top six
    /// bits. Only a change of this signature makes an early report.
    /// </summary>
    internal static ulong BusySignature(Published latest)
    {
        ulong bits = (ulong)Math.Min(latest.Snapshot.Programs.Count, 63) << 58; // a change of the count is a change
        int i = 0;
        foreach (var p in latest.Snapshot.Programs)
        {
            if (i >= 58)
            {
                break;
            }

            if (p.AvailableTasks > 0 || p.RunningTasks > 0)
            {
                bits |= 1UL << i;
            }

            i++;
        }

        return bits;
    }

    private static ReportMessage Report(Published latest, long appliedEpoch) =>
        new(appliedEpoch, [.. latest.Snapshot.Programs.Select(p =>
            latest.Names.TryGetValue(p.Id, out string? name) && p.Id.Name != name
                ? new ProgramState(new ProgramId(p.Id.Value, name), p.Speedup, p.AvailableTasks, p.CurrentCores, p.Table, p.ServingWorkers, p.RunningTasks) { Estimate = p.Estimate }
                : p).Take(DomainProtocol.MaxPrograms)]);

    /// <summary>Installs a grant; returns whether its CPUs changed (false: a renewal).</summary>
    private bool Install(GrantMessage message, Published latest, long receivedAt)
    {
        var byProgram = new Dictionary<ProgramId, IReadOnlyList<int>>();
        foreach (var p in message.Programs)
        {
            var id = latest.Snapshot.Programs.Select(s => s.Id).FirstOrDefault(i => i.Value == p.Program, new ProgramId(p.Program));
            byProgram[id] = p.Cpus;
        }

        var current = Volatile.Read(ref _grant);
        if (current is not null && SameCpus(current.CpusByProgram, byProgram))
        {
            return false; // a renewal: the lease moves on, the grant (and its epoch) stays
        }

        SetGrant(new ArbiterGrant(message.Epoch, byProgram) { ReceivedAt = receivedAt });
        return true;
    }

    private static bool SameCpus(IReadOnlyDictionary<ProgramId, IReadOnlyList<int>> a, Dictionary<ProgramId, IReadOnlyList<int>> b) =>
        a.Count == b.Count && a.All(kv => b.TryGetValue(kv.Key, out var other) && other.SequenceEqual(kv.Value));

    private void SetGrant(ArbiterGrant? grant)
    {
        var previous = Interlocked.Exchange(ref _grant, grant);
        if (ReferenceEquals(previous, grant))
        {
            return;
        }

        try
        {
            GrantChanged?.Invoke();
        }
#pragma warning disable CA1031 // a subscriber's failure must not stop the domain's thread
        catch (Exception e)
#pragma warning restore CA1031
        {
            Log($"a GrantChanged handler threw: {e.Message}");
        }
    }

    internal sealed record Published(AllocationSnapshot Snapshot, int[] OwnCpus, IReadOnlyDictionary<ProgramId, string> Names);
}
#endif
