#if NET8_0_OR_GREATER
using System.Buffers.Binary;
using System.Text;
using DivCon.Schedulers.Multiprogram.Estimation;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Profiles;

namespace DivCon.Schedulers.Multiprogram.Domain;

/// <summary>What a peer of the domain sent that the decoder refused.</summary>
internal enum DomainProtocolError
{
    /// <summary>The frame does not start with the domain's magic number.</summary>
    BadMagic,

    /// <summary>The peer speaks another version of the protocol.</summary>
    VersionMismatch,

    /// <summary>An unknown message type.</summary>
    UnknownType,

    /// <summary>A length or count beyond its bound.</summary>
    TooLarge,

    /// <summary>A field out of range, bytes missing or left over, or text that is not UTF-8.</summary>
    Malformed,
}

/// <summary>The only exception the domain's decoder throws: the input was not a valid message.</summary>
internal sealed class DomainProtocolException : Exception
{
    /// <summary>Creates the exception.</summary>
    /// <param name="error">What was wrong.</param>
    /// <param name="message">One line saying where.</param>
    /// <param name="peerVersion">For <see cref="DomainProtocolError.VersionMismatch"/>, the version the peer speaks.</param>
    public DomainProtocolException(DomainProtocolError error, string message, int peerVersion = 0)
        : base(message)
    {
        Error = error;
        PeerVersion = peerVersion;
    }

    /// <summary>Creates an exception with no detail (for serializers).</summary>
    public DomainProtocolException()
        : this(DomainProtocolError.Malformed, "Malformed domain message.")
    {
    }

    /// <summary>Creates an exception with a message.</summary>
    /// <param name="message">The message.</param>
    public DomainProtocolException(string message)
        : this(DomainProtocolError.Malformed, message)
    {
    }

    /// <summary>Creates an exception with a message and a cause.</summary>
    /// <param name="message">The message.</param>
    /// <param name="innerException">The cause.</param>
    public DomainProtocolException(string message, Exception innerException)
        : base(message, innerException)
    {
        Error = DomainProtocolError.Malformed;
    }

    /// <summary>What was wrong.</summary>
    public DomainProtocolError Error { get; }

    /// <summary>The peer's version, for a version mismatch; otherwise 0.</summary>
    public int PeerVersion { get; }
}

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

/// <summary>
/// The wire format: a 12-byte header (magic "DVCD", version, type, flags = 0, payload length), then the payload,
/// little-endian. Encoding and strict decoding; see the README beside this file.
/// </summary>
/// <remarks>
/// The decoder bounds every length and count before it allocates and checks that the remaining bytes can hold
/// them, so input can make it allocate at most <see cref="MaxPayload"/> plus small arrays; it throws nothing but
/// <see cref="DomainProtocolException"/>. The header and the <see cref="RejectMessage"/> payload are frozen across
/// versions, so that a peer of another version is always told why it was refused.
/// </remarks>
internal static class DomainProtocol
{
    /// <summary>"DVCD" read as a little-endian integer.</summary>
    public const uint Magic = 0x44435644;

    /// <summary>The version this build speaks.</summary>
    public const ushort Version = 1;

    /// <summary>Bytes of the header.</summary>
    public const int HeaderSize = 12;

    /// <summary>Largest payload accepted.</summary>
    public const int MaxPayload = 1 << 20;

    /// <summary>Most CPUs in a CPU list.</summary>
    public const int MaxCpus = 4096;

    /// <summary>Largest CPU id.</summary>
    public const int MaxCpuId = 65535;

    /// <summary>Most programs in a report or grant.</summary>
    public const int MaxPrograms = 256;

    /// <summary>Most UTF-8 bytes of a name or reason.</summary>
    public const int MaxText = 1024;

    /// <summary>Most points of a scalability table or estimate curve.</summary>
    public const int MaxCurve = MaxCpus + 1;

    private static readonly UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    /// <summary>Encodes a message with its header.</summary>
    /// <param name="message">The message.</param>
    /// <param name="version">The version to stamp (tests write other versions).</param>
    /// <returns>The frame.</returns>
    public static byte[] Encode(DomainMessage message, ushort version = Version)
    {
        ArgumentNullException.ThrowIfNull(message);
        var w = new Writer();
        w.U32(Magic);
        w.U16(version);
        w.U8((byte)message.Type);
        w.U8(0);
        w.U32(0); // payload length, patched below
        switch (message)
        {
            case HelloMessage h:
                w.I32(h.ProcessId);
                w.I64(h.TimestampFrequency);
                w.CpuList(h.AllowedCpus);
                break;
            case WelcomeMessage m:
                w.I32(m.CoordinatorProcessId);
                w.I64(m.DecisionIntervalTicks);
                w.I64(m.LeaseTicks);
                break;
            case RejectMessage r:
                w.U16((ushort)r.Code);
                w.Text(r.Reason);
                break;
            case ReportMessage r:
                w.I64(r.AppliedEpoch);
                w.Count(r.Programs.Count, MaxPrograms);
                foreach (var p in r.Programs)
                {
                    WriteProgram(w, p);
                }

                break;
            case GrantMessage g:
                w.I64(g.Epoch);
                w.I64(g.LeaseExpiresAt);
                w.Count(g.Programs.Count, MaxPrograms);
                foreach (var p in g.Programs)
                {
                    w.I32(p.Program);
                    w.CpuList(p.Cpus);
                }

                break;
            case LeaveMessage:
                break;
            default:
                throw new ArgumentException($"Unknown message {message.GetType().Name}.", nameof(message));
        }

        byte[] frame = w.ToArray();
        if (frame.Length - HeaderSize > MaxPayload)
        {
            throw new ArgumentException($"Message of {frame.Length - HeaderSize} bytes exceeds {MaxPayload}.", nameof(message));
        }

        BinaryPrimitives.WriteUInt32LittleEndian(frame.AsSpan(8), (uint)(frame.Length - HeaderSize));
        return frame;
    }

    /// <summary>Reads one frame from the start of <paramref name="buffer"/>, if it is complete.</summary>
    /// <param name="buffer">Received bytes.</param>
    /// <param name="message">The message, when a whole frame was there.</param>
    /// <param name="consumed">Bytes of the frame, when a whole frame was there.</param>
    /// <returns>Whether a whole frame was there (false: read more bytes, the header so far is valid).</returns>
    /// <exception cref="DomainProtocolException">The bytes are not a valid frame (checked as soon as the header is in).</exception>
    public static bool TryDecode(ReadOnlySpan<byte> buffer, out DomainMessage? message, out int consumed)
    {
        message = null;
        consumed = 0;
        if (buffer.Length < HeaderSize)
        {
            return false;
        }

        var header = new Reader(buffer[..HeaderSize]);
        uint magic = header.U32();
        if (magic != Magic)
        {
            throw new DomainProtocolException(DomainProtocolError.BadMagic, FormattableString.Invariant($"Bad magic 0x{magic:x8}."));
        }

        int version = header.U16();
        byte type = header.U8();
        byte flags = header.U8();
        uint length = header.U32();
        if (version != Version && type != (byte)DomainMessageType.Reject)
        {
            throw new DomainProtocolException(
                DomainProtocolError.VersionMismatch,
                FormattableString.Invariant($"Peer speaks protocol version {version}; this build speaks {Version}."),
                version);
        }

        if (type is < (byte)DomainMessageType.Hello or > (byte)DomainMessageType.Leave)
        {
            throw new DomainProtocolException(DomainProtocolError.UnknownType, FormattableString.Invariant($"Unknown message type {type}."));
        }

        if (flags != 0)
        {
            throw new DomainProtocolException(DomainProtocolError.Malformed, FormattableString.Invariant($"Flags {flags} are not 0."));
        }

        if (length > MaxPayload)
        {
            throw new DomainProtocolException(DomainProtocolError.TooLarge, FormattableString.Invariant($"Payload of {length} bytes exceeds {MaxPayload}."));
        }

        if (buffer.Length - HeaderSize < length)
        {
            return false;
        }

        var r = new Reader(buffer.Slice(HeaderSize, (int)length));
        message = (DomainMessageType)type switch
        {
            DomainMessageType.Hello => new HelloMessage(r.I32(), r.Positive64("timestamp frequency"), r.CpuList()),
            DomainMessageType.Welcome => new WelcomeMessage(r.I32(), r.Positive64("decision interval"), r.Positive64("lease")),
            DomainMessageType.Reject => new RejectMessage((DomainRejectCode)r.U16(), r.Text()),
            DomainMessageType.Report => ReadReport(ref r),
            DomainMessageType.Grant => ReadGrant(ref r),
            _ => new LeaveMessage(),
        };
        r.End();
        consumed = HeaderSize + (int)length;
        return true;
    }

    private static void WriteProgram(Writer w, ProgramState p)
    {
        w.I32(p.Id.Value);
        w.Text(p.Id.Name ?? string.Empty);
        w.F64(p.Speedup);
        w.I32(p.AvailableTasks);
        w.I32(p.RunningTasks);
        w.I32(p.CurrentCores);
        w.I32(p.ServingWorkers);
        if (p.Table is null)
        {
            w.U16(0);
        }
        else
        {
            w.Count(p.Table.Points.Count, MaxCurve);
            foreach (var point in p.Table.Points)
            {
                w.I32(point.Cores);
                w.F64(point.Speedup);
            }
        }

        if (p.Estimate is not { } e)
        {
            w.U8(0);
            return;
        }

        w.U8(1);
        w.Count(e.CoreCount, MaxCurve);
        for (int c = 1; c <= e.CoreCount; c++)
        {
            w.F64(e.SpeedupAt(c));
        }

        w.F64(e.Demand);
        w.F64(e.ObservedCoreSeconds);
        w.U8(e.IsSettled ? (byte)1 : (byte)0);
        w.I32(e.PhaseChanges);
    }

    private static ReportMessage ReadReport(ref Reader r)
    {
        long epoch = r.NonNegative64("applied epoch");
        int count = r.Count(MaxPrograms, minBytesEach: 33);
        var programs = new ProgramState[count];
        var seen = new HashSet<int>();
        for (int i = 0; i < count; i++)
        {
            int id = r.I32();
            if (!seen.Add(id))
            {
                throw Malformed($"Program {id} appears twice.");
            }

            string name = r.Text();
            double speedup = r.F64();
            if (!double.IsFinite(speedup) || speedup <= 0)
            {
                throw Malformed($"Speedup {speedup} of program {id} is not positive and finite.");
            }

            int available = r.NonNegative32("available tasks");
            int running = r.NonNegative32("running tasks");
            int current = r.NonNegative32("current cores");
            int serving = r.NonNegative32("serving workers");
            int points = r.Count(MaxCurve, minBytesEach: 12);
            ScalabilityTable? table = null;
            if (points > 0)
            {
                var list = new ScalabilityPoint[points];
                for (int k = 0; k < points; k++)
                {
                    int cores = r.I32();
                    double s = r.F64();
                    if (cores < 1 || (k > 0 && cores <= list[k - 1].Cores) || !double.IsFinite(s) || s <= 0)
                    {
                        throw Malformed($"Table point {k} ({cores}, {s}) of program {id} is invalid.");
                    }

                    list[k] = new ScalabilityPoint(cores, s);
                }

                table = new ScalabilityTable(list);
            }

            ScalabilityEstimate? estimate = null;
            byte hasEstimate = r.U8();
            if (hasEstimate > 1)
            {
                throw Malformed($"Estimate flag {hasEstimate} of program {id} is not 0 or 1.");
            }

            if (hasEstimate == 1)
            {
                int n = r.Count(MaxCurve, minBytesEach: 8);
                if (n < 1)
                {
                    throw Malformed($"Estimate of program {id} has no points.");
                }

                var curve = new double[n + 1];
                for (int c = 1; c <= n; c++)
                {
                    curve[c] = r.F64();
                    if (!double.IsFinite(curve[c]) || curve[c] < 0)
                    {
                        throw Malformed($"Estimated speedup {curve[c]} at {c} cores of program {id} is invalid.");
                    }
                }

                double demand = r.F64();
                double observed = r.F64();
                byte settled = r.U8();
                int phases = r.NonNegative32("phase changes");
                if (!double.IsFinite(demand) || demand < 0 || !double.IsFinite(observed) || observed < 0 || settled > 1)
                {
                    throw Malformed($"Estimate of program {id} is invalid.");
                }

                estimate = new ScalabilityEstimate(curve, demand, observed, settled == 1, phases);
            }

            programs[i] = new ProgramState(new ProgramId(id, name), speedup, available, current, table, serving, running) { Estimate = estimate };
        }

        return new ReportMessage(epoch, programs);
    }

    private static GrantMessage ReadGrant(ref Reader r)
    {
        long epoch = r.NonNegative64("epoch");
        long expiry = r.I64();
        int count = r.Count(MaxPrograms, minBytesEach: 6);
        var programs = new GrantedCpus[count];
        var seenPrograms = new HashSet<int>();
        var seenCpus = new HashSet<int>();
        for (int i = 0; i < count; i++)
        {
            int id = r.I32();
            if (!seenPrograms.Add(id))
            {
                throw Malformed($"Program {id} appears twice.");
            }

            var cpus = r.CpuList();
            foreach (int cpu in cpus)
            {
                if (!seenCpus.Add(cpu))
                {
                    throw Malformed($"CPU {cpu} is granted twice.");
                }
            }

            programs[i] = new GrantedCpus(id, cpus);
        }

        return new GrantMessage(epoch, expiry, programs);
    }

    private static DomainProtocolException Malformed(string message) =>
        new(DomainProtocolError.Malformed, message);

    /// <summary>A growing little-endian byte writer.</summary>
    private sealed class Writer
    {
        private byte[] _bytes = new byte[256];
        private int _length;

        public void U8(byte value) => Span(1)[0] = value;

        public void U16(ushort value) => BinaryPrimitives.WriteUInt16LittleEndian(Span(2), value);

        public void U32(uint value) => BinaryPrimitives.WriteUInt32LittleEndian(Span(4), value);

        public void I32(int value) => BinaryPrimitives.WriteInt32LittleEndian(Span(4), value);

        public void I64(long value) => BinaryPrimitives.WriteInt64LittleEndian(Span(8), value);

        public void F64(double value) => BinaryPrimitives.WriteInt64LittleEndian(Span(8), BitConverter.DoubleToInt64Bits(value));

        public void Count(int count, int max)
        {
            if (count < 0 || count > max)
            {
                throw new ArgumentException(FormattableString.Invariant($"Count {count} exceeds the protocol's bound {max}."));
            }

            U16((ushort)count);
        }

        public void Text(string text)
        {
            byte[] bytes = StrictUtf8.GetBytes(text);
            if (bytes.Length > MaxText)
            {
                // Names and reasons are for people: cut at a character boundary rather than fail.
                int chars = text.Length;
                do
                {
                    chars = Math.Min(chars - 1, MaxText);
                    if (chars > 0 && char.IsHighSurrogate(text[chars - 1]))
                    {
                        chars--;
                    }

                    bytes = StrictUtf8.GetBytes(text[..chars]);
                }
                while (bytes.Length > MaxText);
            }

            U16((ushort)bytes.Length);
            bytes.CopyTo(Span(bytes.Length));
        }

        public void CpuList(IReadOnlyList<int> cpus)
        {
            Count(cpus.Count, MaxCpus);
            for (int i = 0; i < cpus.Count; i++)
            {
                if (cpus[i] < 0 || cpus[i] > MaxCpuId || (i > 0 && cpus[i] <= cpus[i - 1]))
                {
                    throw new ArgumentException(FormattableString.Invariant($"CPU list must ascend strictly within 0..{MaxCpuId}: {cpus[i]} at index {i}."));
                }

                I32(cpus[i]);
            }
        }

        public byte[] ToArray() => _bytes.AsSpan(0, _length).ToArray();

        private Span<byte> Span(int size)
        {
            if (_length + size > _bytes.Length)
            {
                Array.Resize(ref _bytes, Math.Max(_bytes.Length * 2, _length + size));
            }

            var span = _bytes.AsSpan(_length, size);
            _length += size;
            return span;
        }
    }

    /// <summary>A bounds-checked little-endian reader: running past the end is a <see cref="DomainProtocolException"/>.</summary>
    private ref struct Reader(ReadOnlySpan<byte> bytes)
    {
        private readonly ReadOnlySpan<byte> _bytes = bytes;
        private int _position;

        private readonly int Remaining => _bytes.Length - _position;

        public byte U8() => Take(1)[0];

        public ushort U16() => BinaryPrimitives.ReadUInt16LittleEndian(Take(2));

        public uint U32() => BinaryPrimitives.ReadUInt32LittleEndian(Take(4));

        public int I32() => BinaryPrimitives.ReadInt32LittleEndian(Take(4));

        public long I64() => BinaryPrimitives.ReadInt64LittleEndian(Take(8));

        public double F64() => BitConverter.Int64BitsToDouble(I64());

        public int NonNegative32(string what)
        {
            int value = I32();
            return value >= 0 ? value : throw Malformed($"{char.ToUpperInvariant(what[0])}{what[1..]} {value} is negative.");
        }

        public long NonNegative64(string what)
        {
            long value = I64();
            return value >= 0 ? value : throw Malformed($"{char.ToUpperInvariant(what[0])}{what[1..]} {value} is negative.");
        }

        public long Positive64(string what)
        {
            long value = I64();
            return value > 0 ? value : throw Malformed($"{char.ToUpperInvariant(what[0])}{what[1..]} {value} is not positive.");
        }

        /// <summary>A count, bounded by <paramref name="max"/> and by what the remaining bytes can hold.</summary>
        public int Count(int max, int minBytesEach)
        {
            int count = U16();
            if (count > max)
            {
                throw new DomainProtocolException(DomainProtocolError.TooLarge, FormattableString.Invariant($"Count {count} exceeds {max}."));
            }

            if ((long)count * minBytesEach > Remaining)
            {
                throw Malformed($"Count {count} needs more bytes than the {Remaining} left.");
            }

            return count;
        }

        public string Text()
        {
            int length = U16();
            if (length > MaxText)
            {
                throw new DomainProtocolException(DomainProtocolError.TooLarge, FormattableString.Invariant($"Text of {length} bytes exceeds {MaxText}."));
            }

            var bytes = Take(length);
            try
            {
                return StrictUtf8.GetString(bytes);
            }
            catch (ArgumentException e)
            {
                // DecoderFallbackException derives from ArgumentException.
                throw new DomainProtocolException("Text is not valid UTF-8.", e);
            }
        }

        public int[] CpuList()
        {
            int count = Count(MaxCpus, minBytesEach: 4);
            var cpus = new int[count];
            for (int i = 0; i < count; i++)
            {
                cpus[i] = I32();
                if (cpus[i] < 0 || cpus[i] > MaxCpuId || (i > 0 && cpus[i] <= cpus[i - 1]))
                {
                    throw Malformed($"CPU list must ascend strictly within 0..{MaxCpuId}: {cpus[i]} at index {i}.");
                }
            }

            return cpus;
        }

        public readonly void End()
        {
            if (Remaining != 0)
            {
                throw Malformed($"{Remaining} bytes left over after the message.");
            }
        }

        private ReadOnlySpan<byte> Take(int size)
        {
            if (size > Remaining)
            {
                throw Malformed($"Message ends early: {size} bytes needed, {Remaining} left.");
            }

            var span = _bytes.Slice(_position, size);
            _position += size;
            return span;
        }

        private static DomainProtocolException Malformed(FormattableString message) =>
            new(DomainProtocolError.Malformed, FormattableString.Invariant(message));
    }
}
#endif
