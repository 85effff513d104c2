#if NET8_0_OR_GREATER
using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram.Domain;

/// <summary>Message types on the wire (one byte).</summary>
internal enum DomainMessageType : byte
{
    /// <summary>Client to coordinator: join.</summary>
    Hello = 1,

    /// <summary>Coordinator to client: joined; the decision interval and lease.</summary>
    Welcome = 2,

    /// <summary>Either way: refused, with a reason. Its layout never changes between versions.</summary>
    Reject = 3,

    /// <summary>Client to coordinator: the process's programs and the grant it applies.</summary>
    Report = 4,

    /// <summary>Coordinator to client: the CPUs of each program, until a lease expiry.</summary>
    Grant = 5,

    /// <summary>Client to coordinator: leaving.</summary>
    Leave = 6,
}

/// <summary>Why a peer was refused.</summary>
internal enum DomainRejectCode : ushort
{
    /// <summary>The peer speaks another protocol version.</summary>
    VersionMismatch = 1,

    /// <summary>The peer runs as another user and its group is not allowed.</summary>
    PermissionDenied = 2,

    /// <summary>The peer broke the protocol.</summary>
    ProtocolError = 3,

    /// <summary>The clocks of the two processes are not comparable.</summary>
    ClockMismatch = 4,

    /// <summary>The coordinator is full (too many processes).</summary>
    Full = 5,
}

/// <summary>A message of the domain protocol.</summary>
internal abstract record DomainMessage
{
    /// <summary>Its type on the wire.</summary>
    public abstract DomainMessageType Type { get; }
}

/// <summary>Join request.</summary>
/// <param name="ProcessId">The client's process id (for logs; identity comes from the socket's credentials).</param>
/// <param name="TimestampFrequency">The client's <see cref="System.Diagnostics.Stopwatch.Frequency"/>: lease expiries are absolute timestamps of the shared monotonic clock.</param>
/// <param name="AllowedCpus">The CPUs the process may use, strictly ascending.</param>
internal sealed record HelloMessage(int ProcessId, long TimestampFrequency, IReadOnlyList<int> AllowedCpus) : DomainMessage
{
    /// <inheritdoc />
    public override DomainMessageType Type => DomainMessageType.Hello;
}

/// <summary>Join accepted.</summary>
/// <param name="CoordinatorProcessId">The coordinator's process id (for logs).</param>
/// <param name="DecisionIntervalTicks">How often the client reports, in timestamp ticks.</param>
/// <param name="LeaseTicks">A grant's lifetime, in timestamp ticks.</param>
internal sealed record WelcomeMessage(int CoordinatorProcessId, long DecisionIntervalTicks, long LeaseTicks) : DomainMessage
{
    /// <inheritdoc />
    public override DomainMessageType Type => DomainMessageType.Welcome;
}

/// <summary>Refusal.</summary>
/// <param name="Code">Why.</param>
/// <param name="Reason">One line for the log.</param>
internal sealed record RejectMessage(DomainRejectCode Code, string Reason) : DomainMessage
{
    /// <inheritdoc />
    public override DomainMessageType Type => DomainMessageType.Reject;
}

/// <summary>The process's programs now.</summary>
/// <param name="AppliedEpoch">The epoch of the newest grant the client has handed to its scheduler (0: none).</param>
/// <param name="Programs">Each program's state, its id carrying its name.</param>
internal sealed record ReportMessage(long AppliedEpoch, IReadOnlyList<ProgramState> Programs) : DomainMessage
{
    /// <inheritdoc />
    public override DomainMessageType Type => DomainMessageType.Report;
}

/// <summary>The CPUs of one program of a grant.</summary>
/// <param name="Program">The program's id in its process.</param>
/// <param name="Cpus">Its CPUs, strictly ascending.</param>
internal readonly record struct GrantedCpus(int Program, IReadOnlyList<int> Cpus);

/// <summary>A grant: the CPUs of each program, valid until <paramref name="LeaseExpiresAt"/>.</summary>
/// <param name="Epoch">The decision's number; grows.</param>
/// <param name="LeaseExpiresAt">A <see cref="System.Diagnostics.Stopwatch"/> timestamp (the machine's monotonic clock) after which the grant is void.</param>
/// <param name="Programs">The programs given CPUs; no CPU twice.</param>
internal sealed record GrantMessage(long Epoch, long LeaseExpiresAt, IReadOnlyList<GrantedCpus> Programs) : DomainMessage
{
    /// <inheritdoc />
    public override DomainMessageType Type => DomainMessageType.Grant;
}

/// <summary>Leaving the domain.</summary>
internal sealed record LeaveMessage : DomainMessage
{
    /// <inheritdoc />
    public override DomainMessageType Type => DomainMessageType.Leave;
}
#endif
